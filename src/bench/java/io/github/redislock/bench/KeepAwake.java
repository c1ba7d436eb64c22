package io.github.redislock.bench;

import io.github.redislock.testing.JvmProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Keeps every CPU out of its idle state with busy threads at the lowest priority, in a child
 * process started under {@code nice -n 19}.
 *
 * <p>Why: on a small VM, a CPU with nothing to run halts, and waking it for the next message costs
 * tens of microseconds more than the message itself (about 70 µs per wake-up on the machine this
 * benchmark was written on: a raw lock+unlock pair took 17 µs with both CPUs awake and 158 µs with
 * them idle). Single-thread results then depend on whether the scheduler happens to keep client and
 * server on one CPU, and flip between two states for seconds at a time. A nice-19 spinner only runs
 * when a CPU would otherwise idle; every benchmark thread preempts it at once. It is what {@code
 * idle=poll} does on a host where one can set it.
 *
 * <p>The child exits when its stdin closes (the benchmark ended or died) or after a day.
 */
public final class KeepAwake implements AutoCloseable {
  private static volatile long sink;

  private final Process process;

  private KeepAwake(Process process) {
    this.process = process;
  }

  /**
   * Starts the spinner, or returns null where {@code nice} is not available (not Linux).
   *
   * @return the running spinner, or null
   */
  static KeepAwake start() {
    if (!Files.isExecutable(Path.of("/usr/bin/nice"))) {
      return null;
    }
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    try {
      return new KeepAwake(
          new ProcessBuilder(
                  List.of(
                      "/usr/bin/nice",
                      "-n",
                      "19",
                      java,
                      "-Xint",
                      "-Xmx16m",
                      "-XX:+UseSerialGC",
                      "-cp",
                      JvmProcess.classPath(),
                      KeepAwake.class.getName()))
              .redirectOutput(ProcessBuilder.Redirect.DISCARD)
              .redirectError(ProcessBuilder.Redirect.INHERIT)
              .start());
    } catch (IOException e) {
      return null;
    }
  }

  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(5, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }

  /**
   * The spinner: one busy thread per CPU until stdin closes.
   *
   * @param args none
   * @throws IOException never in practice
   */
  public static void main(String[] args) throws IOException {
    for (int i = 0; i < Runtime.getRuntime().availableProcessors(); i++) {
      Thread spinner =
          new Thread(
              () -> {
                long n = 0;
                while (true) {
                  n++;
                  if ((n & 0xFFFFF) == 0) {
                    sink = n;
                  }
                }
              },
              "spinner-" + i);
      spinner.setDaemon(true);
      spinner.start();
    }
    Thread limit =
        new Thread(
            () -> {
              try {
                Thread.sleep(TimeUnit.DAYS.toMillis(1));
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              Runtime.getRuntime().halt(0);
            },
            "limit");
    limit.setDaemon(true);
    limit.start();
    while (System.in.read() >= 0) {
      // wait for the parent to close stdin (or die)
    }
    System.exit(0);
  }
}
