package io.github.redislock.soak;

import io.github.redislock.RedisLockFactory;
import io.github.redislock.test.RedisBinary;
import io.github.redislock.testing.JvmProcess;
import io.github.redislock.testing.RedisServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The leak soak: {@code mvn -q -Psoak test-compile exec:java}.
 *
 * <p>Against one {@code redis-server} started here, {@link LeakSoak} runs {@code soak.factories}
 * factory lifecycles, then {@code soak.locks} lock objects of two long-lived factories over {@code
 * soak.names} names, each phase with {@code soak.faults} faults (restart, {@code CLIENT KILL},
 * pause, in turn). Before, between and after, it measures what the JVM and the server hold (see
 * {@link Resources}), waiting up to {@code soak.settleSeconds} for it to return to the baseline
 * (the fencing counters and condition keys of a lock live a minute after its last use), and prints
 * a table; {@code soak.output=FILE} also writes it as Markdown. A resource not back within its
 * tolerance is a leak: the run then ends with an exception (and Maven with a failure).
 *
 * <p>System properties: {@code soak.quick} (1,000 / 10,000 / 1,000 and 6 faults per phase instead
 * of 100,000 / 1,000,000 / 100,000 and 30), {@code soak.factories}, {@code soak.locks}, {@code
 * soak.names}, {@code soak.faults}, {@code soak.threads} (4), {@code soak.heapToleranceMb} (4),
 * {@code soak.settleSeconds} (180), {@code soak.output}, {@code soak.verbose} (the library's own
 * warnings, off by default: faults make thousands).
 */
public final class Soak {
  private static final long MB = 1024 * 1024;
  private static final String CHILD = "soak.child";
  private static final String CHILD_HEAP = "512m";

  private Soak() {}

  /**
   * Runs the soak with the settings of the system properties, in a JVM of its own (see {@link
   * #fork}).
   *
   * @param args none
   * @throws IOException if the soak's JVM cannot be started
   * @throws InterruptedException if interrupted while waiting for it
   */
  public static void main(String[] args) throws IOException, InterruptedException {
    if (!Boolean.getBoolean(CHILD)) {
      fork();
      return;
    }
    if (!Boolean.getBoolean("soak.verbose")) {
      System.setProperty("org.slf4j.simpleLogger.log.io.github.redislock", "error");
      System.setProperty("org.slf4j.simpleLogger.log.redis.clients", "error");
    }
    boolean quick = Boolean.getBoolean("soak.quick");
    int factories = Integer.getInteger("soak.factories", quick ? 1_000 : 100_000);
    int locks = Integer.getInteger("soak.locks", quick ? 10_000 : 1_000_000);
    int names = Integer.getInteger("soak.names", quick ? 1_000 : 100_000);
    int faults = Integer.getInteger("soak.faults", quick ? 6 : 30);
    int threads = Integer.getInteger("soak.threads", 4);
    long heapTolerance = Integer.getInteger("soak.heapToleranceMb", 4) * MB;
    Duration settle = Duration.ofSeconds(Integer.getInteger("soak.settleSeconds", 180));
    String output = System.getProperty("soak.output");

    LeakSoak.Sizes sizes = LeakSoak.Sizes.of(factories, locks, names, threads, faults);
    List<String> lines = new ArrayList<>();
    Instant start = Instant.now().truncatedTo(ChronoUnit.SECONDS);
    try (RedisServer server = RedisServer.start()) {
      LeakSoak soak = new LeakSoak(server, sizes, line -> say(lines, line));
      say(
          lines,
          String.format(
              Locale.ROOT,
              "soak: %,d factory lifecycles, %,d lock objects over %,d names, %d threads,"
                  + " %d faults per phase, lease %s, command timeout %s; port %d; Java %s; %s",
              factories,
              locks,
              names,
              threads,
              faults,
              sizes.lease(),
              sizes.commandTimeout(),
              server.port(),
              Runtime.version(),
              RedisBinary.describe()));

      warmUp(soak, server);
      Resources baseline = LeakSoak.baseline(server, settle);
      say(lines, "baseline taken");

      long phaseOne = System.nanoTime();
      soak.factoryLifecycles(factories, faults);
      Duration lifecycles = since(phaseOne);
      LeakSoak.Tolerance closed = new LeakSoak.Tolerance(heapTolerance, 0, 0, 0);
      Resources afterLifecycles = LeakSoak.settle(server, baseline, closed, true, settle);
      say(lines, "after the factory lifecycles: measured");

      List<RedisLockFactory> longLived = List.of(soak.newFactory(), soak.newFactory());
      Resources openBaseline;
      Resources afterLocks;
      List<String> kept;
      Resources rightAfter;
      Duration lockObjects;
      // The open factories' idle pooled connections count too: Jedis's pool evicts a connection
      // idle for a minute (checked every 30 s), so they return to the baseline within settle.
      LeakSoak.Tolerance open = new LeakSoak.Tolerance(heapTolerance, 0, 0, 0);
      try {
        soak.lockObjects(longLived, Math.min(locks, 2_000), Math.min(names, 200), 0);
        LeakSoak.awaitFactoriesIdle(longLived, settle);
        server.flushAll();
        openBaseline = LeakSoak.baseline(server, settle);
        say(lines, "baseline with the long-lived factories open taken");
        long phaseTwo = System.nanoTime();
        soak.lockObjects(longLived, locks, names, faults);
        lockObjects = since(phaseTwo);
        kept = LeakSoak.awaitFactoriesIdle(longLived, settle);
        rightAfter = LeakSoak.awaitNoWakeUpThread(server, settle);
        afterLocks = LeakSoak.settle(server, openBaseline, open, true, settle);
        say(lines, "after the lock objects, factories open: measured");
      } finally {
        longLived.forEach(RedisLockFactory::close);
      }
      Resources end = LeakSoak.settle(server, baseline, closed, true, settle);
      Duration total = Duration.between(start, Instant.now());

      List<LeakSoak.Row> first = LeakSoak.compare(baseline, afterLifecycles, closed, true);
      List<LeakSoak.Row> last = LeakSoak.compare(baseline, end, closed, true);
      List<LeakSoak.Row> during = LeakSoak.compare(openBaseline, afterLocks, open, true);
      int leaks = 0;
      for (List<LeakSoak.Row> rows : List.of(first, last, during)) {
        leaks += (int) rows.stream().filter(row -> !row.ok()).count();
      }
      leaks += kept.isEmpty() ? 0 : 1;
      leaks += rightAfter.clientSubscriptions() == 0 ? 0 : 1;
      leaks += soak.unexpected().isEmpty() ? 0 : 1;

      String report =
          report(
              sizes,
              start,
              total,
              lifecycles,
              lockObjects,
              first,
              last,
              during,
              kept,
              rightAfter,
              soak,
              leaks);
      System.out.println();
      System.out.println(report);
      if (output != null) {
        write(Path.of(output), markdown(report, lines));
        System.out.println("written to " + output);
      }
      int faultCount = soak.faults().values().stream().mapToInt(Integer::intValue).sum();
      System.out.printf(
          Locale.ROOT,
          "soak: %,d factory lifecycles, %,d lock objects, %,d names, %d faults, %d leaks%n",
          factories,
          locks,
          names,
          faultCount,
          leaks);
      if (leaks != 0) {
        throw new IllegalStateException(leaks + " resource(s) did not return to the baseline");
      }
    }
  }

  /**
   * Runs the soak in a JVM of its own, whose heap, threads and descriptors are the soak's only
   * (Maven's JVM, where {@code exec:java} runs, keeps javac's and its own caches behind soft
   * references that a collection may or may not clear): {@value #CHILD_HEAP} of heap, and soft
   * references cleared by every collection ({@code -XX:SoftRefLRUPolicyMSPerMB=0}), so that the
   * heap after a collection is what is strongly reachable. Its output is this one's; its failure is
   * this one's.
   */
  private static void fork() throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Xmx" + CHILD_HEAP);
    command.add("-XX:SoftRefLRUPolicyMSPerMB=0");
    command.add("-D" + CHILD + "=true");
    for (String name : soakProperties()) {
      command.add("-D" + name + "=" + System.getProperty(name));
    }
    command.add("-cp");
    command.add(JvmProcess.classPath());
    command.add(Soak.class.getName());
    Process child = new ProcessBuilder(command).inheritIO().start();
    int exit;
    try {
      exit = child.waitFor();
    } finally {
      child.destroy();
    }
    if (exit != 0) {
      throw new IllegalStateException("the soak failed (its JVM exited with " + exit + ")");
    }
  }

  /** The {@code soak.*} system properties set, but the one that marks the child JVM. */
  private static List<String> soakProperties() {
    return System.getProperties().stringPropertyNames().stream()
        .filter(name -> name.startsWith("soak.") && !name.equals(CHILD))
        .sorted()
        .toList();
  }

  /** Loads every code path once (each kind, each fault), so that the baseline includes it. */
  private static void warmUp(LeakSoak soak, RedisServer server) {
    soak.factoryLifecycles(200, 0);
    for (LeakSoak.Fault fault : LeakSoak.Fault.values()) {
      soak.inject(fault);
    }
    List<RedisLockFactory> factories = List.of(soak.newFactory(), soak.newFactory());
    try {
      soak.lockObjects(factories, 2_000, 200, 0);
    } finally {
      factories.forEach(RedisLockFactory::close);
    }
    server.flushAll();
  }

  private static String report(
      LeakSoak.Sizes sizes,
      Instant start,
      Duration total,
      Duration lifecycles,
      Duration lockObjects,
      List<LeakSoak.Row> first,
      List<LeakSoak.Row> last,
      List<LeakSoak.Row> during,
      List<String> kept,
      Resources rightAfter,
      LeakSoak soak,
      int leaks) {
    StringBuilder out = new StringBuilder();
    out.append(
        String.format(
            Locale.ROOT,
            "Started %s, took %s. Factory lifecycles: %,d in %s (%,.0f per second)."
                + " Lock objects: %,d over %,d names in %s (%,.0f per second).%n%n",
            start,
            human(total),
            sizes.factories(),
            human(lifecycles),
            sizes.factories() / seconds(lifecycles),
            sizes.locks(),
            sizes.names(),
            human(lockObjects),
            sizes.locks() / seconds(lockObjects)));
    out.append("Every factory closed (baseline: after a warm-up, before the first lifecycle):\n\n");
    out.append(
        "| resource | baseline | after the lifecycles | at the end | tolerance | verdict |\n");
    out.append("|---|---:|---:|---:|---:|---|\n");
    for (int i = 0; i < first.size(); i++) {
      LeakSoak.Row a = first.get(i);
      LeakSoak.Row b = last.get(i);
      out.append(
          String.format(
              Locale.ROOT,
              "| %s | %s | %s | %s | %s | %s |%n",
              a.resource(),
              a.baseline(),
              a.now(),
              b.now(),
              a.tolerance(),
              a.ok() && b.ok() ? "returned" : "LEAK"));
    }
    out.append(
        "\nTwo long-lived factories open (baseline: after their own warm-up, before the first"
            + " lock object):\n\n");
    out.append("| resource | baseline | after the lock objects | tolerance | verdict |\n");
    out.append("|---|---:|---:|---:|---|\n");
    for (LeakSoak.Row row : during) {
      out.append(
          String.format(
              Locale.ROOT,
              "| %s | %s | %s | %s | %s |%n",
              row.resource(),
              row.baseline(),
              row.now(),
              row.tolerance(),
              row.ok() ? "returned" : "LEAK"));
    }
    out.append("\nState the open factories keep after the lock objects (renewing holds, names with")
        .append(" local state, channels subscribed): ")
        .append(kept.isEmpty() ? "none" : String.join("; ", kept))
        .append(".\n\nRight after the lock objects, once no redis-lock-wakeups thread runs (before")
        .append(" the pool evicts idle connections): ")
        .append(rightAfter.connections())
        .append(" connection(s), of which subscribed: ")
        .append(rightAfter.clientSubscriptions())
        .append(rightAfter.clientSubscriptions() == 0 ? "" : " LEAK " + rightAfter.clients())
        .append(".\n\nFaults injected (three of them in the warm-up): ");
    List<String> faultCounts = new ArrayList<>();
    soak.faults().forEach((fault, n) -> faultCounts.add(fault + " " + n));
    out.append(String.join(", ", faultCounts)).append(".\n\nHow the lock calls ended:\n\n");
    out.append("| outcome | count |\n|---|---:|\n");
    for (Map.Entry<String, Long> outcome : soak.outcomes().entrySet()) {
      out.append(
          String.format(Locale.ROOT, "| %s | %,d |%n", outcome.getKey(), outcome.getValue()));
    }
    if (!soak.unexpected().isEmpty()) {
      out.append("\nUnexpected exceptions:\n\n```\n");
      soak.unexpected().forEach(trace -> out.append(trace).append('\n'));
      out.append("```\n");
    }
    out.append("\nResult: ").append(leaks == 0 ? "no leak" : leaks + " leak(s)").append(".\n");
    return out.toString();
  }

  /** The Markdown file: the command that ran, the report, and the run's log. */
  private static String markdown(String report, List<String> lines) {
    StringBuilder command = new StringBuilder("flock /work/notes/heavy.lock ./mvnw -q -Psoak");
    command.append(" test-compile exec:java");
    soakProperties()
        .forEach(
            name ->
                command.append(" -D").append(name).append('=').append(System.getProperty(name)));
    return "# Leak soak\n\n"
        + "Written by `src/soak/java/io/github/redislock/soak/Soak.java` (see `src/soak/README.md`)."
        + " Command:\n\n```\n"
        + command
        + "\n```\n\n"
        + report
        + "\n<details><summary>The run's log (faults as injected)</summary>\n\n```\n"
        + String.join("\n", lines)
        + "\n```\n</details>\n";
  }

  private static void say(List<String> lines, String line) {
    String stamped = Instant.now().truncatedTo(ChronoUnit.SECONDS) + " " + line;
    lines.add(stamped);
    System.out.println(stamped);
  }

  private static Duration since(long startNanos) {
    return Duration.ofNanos(System.nanoTime() - startNanos);
  }

  private static double seconds(Duration d) {
    return Math.max(d.toMillis(), 1) / 1000.0;
  }

  private static String human(Duration d) {
    long s = d.toSeconds();
    return s >= 60 ? (s / 60) + " min " + (s % 60) + " s" : s + " s";
  }

  private static void write(Path file, String report) {
    try {
      Path parent = file.toAbsolutePath().getParent();
      if (parent != null) {
        Files.createDirectories(parent);
      }
      Files.writeString(file, report, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file, e);
    }
  }
}
