package io.github.redislock.bench;

import io.github.redislock.testing.JvmProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import org.HdrHistogram.Histogram;

/**
 * The cross-process scenario for one implementation: two child JVMs ({@link TwoJvmChild}) with N
 * threads each on one key, sharing a memory-mapped {@link SharedRegion} that checks mutual
 * exclusion and times handoffs.
 *
 * <p>The pair is started (and warmed up) once and kept for every round, as the in-JVM
 * implementations are; each {@link #run} starts both children on the same {@code go}. A run that
 * fails or overruns kills the pair; the next round starts a new one.
 */
final class TwoJvmPair implements AutoCloseable {
  private static final int JVMS = 2;
  private static final Duration START_TIMEOUT = Duration.ofMinutes(2);
  private static final Duration GRACE = Duration.ofMinutes(1);

  private final Implementation impl;
  private final Path file;
  private final SharedRegion region;
  private final List<ChildJvm> children = new ArrayList<>();

  private TwoJvmPair(Implementation impl, Path file) {
    this.impl = impl;
    this.file = file;
    this.region = SharedRegion.map(file);
  }

  /**
   * Starts the two children of {@code impl} and waits until both are warmed up.
   *
   * @throws IllegalStateException if a child fails to start
   */
  static TwoJvmPair start(Implementation impl, List<String> uris, BenchSettings settings)
      throws InterruptedException {
    Path file;
    try {
      file = Files.createTempFile("lock-bench-", ".shared");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    TwoJvmPair pair = new TwoJvmPair(impl, file);
    List<String> options =
        new ArrayList<>(
            List.of(
                "-Xmx1g",
                "-Dbench.rawBackoffMicros=" + settings.rawBackoffMicros(),
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                "-D" + LockBenchmark.QUIET_LOGGER + "=off"));
    String classPath;
    if (impl.baseline()) {
      // The baseline's jar in place of the current classes: no class loader tricks in the child.
      Baseline baseline = Baseline.require();
      options.add("-D" + Baseline.IN_CLASS_PATH + "=" + baseline.jar());
      classPath = baseline.childClassPath();
    } else {
      classPath = JvmProcess.classPath();
    }
    try {
      for (int jvm = 0; jvm < JVMS; jvm++) {
        List<String> args =
            new ArrayList<>(
                List.of(
                    impl.id(),
                    Integer.toString(jvm),
                    Integer.toString(settings.jvmThreads()),
                    Long.toString(settings.warmup().toMillis()),
                    file.toString()));
        args.addAll(uris);
        pair.children.add(ChildJvm.start(TwoJvmChild.class, options, args, classPath));
      }
      for (ChildJvm child : pair.children) {
        child.await("ready", START_TIMEOUT);
      }
      return pair;
    } catch (RuntimeException | InterruptedException e) {
      pair.close();
      throw e;
    }
  }

  /** One measured run of {@code duration} on {@code key}. */
  Sample run(int round, String key, Duration duration) throws InterruptedException {
    region.reset();
    try {
      children.forEach(child -> child.send("go " + key + " " + duration.toMillis()));
      Histogram wait = Sample.newHistogram();
      Histogram handoff = Sample.newHistogram();
      List<Long> perJvm = new ArrayList<>();
      long elapsed = 0;
      String note = "";
      for (ChildJvm child : children) {
        String[] result = child.await("result", duration.plus(GRACE)).split(" ");
        perJvm.add(Long.parseLong(result[1]));
        elapsed = Math.max(elapsed, Long.parseLong(result[2]));
        wait.add(Histograms.decode(result[3]));
        handoff.add(Histograms.decode(result[4]));
        if (!result[5].equals("-") && note.isEmpty()) {
          note =
              "error: " + new String(Base64.getDecoder().decode(result[5]), StandardCharsets.UTF_8);
        }
      }
      long ops = perJvm.stream().mapToLong(Long::longValue).sum();
      long violations = region.violations() + Math.abs(ops - region.counter());
      if (ops == 0) {
        return Sample.failed(
            impl, Scenario.TWO_JVMS, round, note.isEmpty() ? "no acquisition" : note);
      }
      return new Sample(
          impl,
          Scenario.TWO_JVMS,
          round,
          ops,
          elapsed,
          wait,
          handoff,
          violations,
          perJvm,
          region.moves(),
          note);
    } catch (IllegalStateException e) {
      close();
      return Sample.failed(impl, Scenario.TWO_JVMS, round, e.getMessage());
    }
  }

  /** Whether both children are still usable. */
  boolean isAlive() {
    return !children.isEmpty() && children.stream().allMatch(ChildJvm::isAlive);
  }

  /** Asks the children to exit, then kills what is left. */
  @Override
  public void close() {
    for (ChildJvm child : children) {
      try {
        child.send("exit");
      } catch (UncheckedIOException e) {
        // already gone
      }
    }
    for (ChildJvm child : children) {
      try {
        child.awaitExit(Duration.ofSeconds(10));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      child.close();
    }
    children.clear();
    region.close();
    try {
      Files.deleteIfExists(file);
    } catch (IOException e) {
      // a temp file; the OS cleans it up
    }
  }
}
