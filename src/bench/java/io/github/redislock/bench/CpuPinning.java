package io.github.redislock.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Puts this JVM and the Redis servers of a single-thread measurement on one CPU, with {@code
 * taskset -a -p} (every thread of each process), and gives them every CPU back after.
 *
 * <p>Why: a single thread talking to one server is a ping-pong between two processes. On a VM,
 * waking a process on the other vCPU costs an inter-processor interrupt and a VM exit: on the
 * machine this was written on a raw lock+unlock pair took 17 µs with client and server on one vCPU
 * and 98 to 152 µs on two (busy or idle), and the scheduler switched between the two placements for
 * seconds at a time, so unpinned single-thread figures were bimodal and mostly told where the
 * scheduler had put things. On one CPU every implementation pays for exactly the work it does,
 * helper threads (event loops, renewal schedulers) included, as context switches. A Redlock
 * client's parallel fan-out cannot overlap the servers' work there: the Redlock rows' single-thread
 * figures are therefore upper bounds.
 */
final class CpuPinning {
  private static final Path TASKSET = Path.of("/usr/bin/taskset");
  private static final int CPU = 0;
  private static final int ATTEMPTS = 5;

  private CpuPinning() {}

  /** Whether pinning works here (Linux with {@code taskset}, more than one CPU). */
  static boolean available() {
    return Files.isExecutable(TASKSET) && Runtime.getRuntime().availableProcessors() > 1;
  }

  /** Pins this JVM and the given processes to CPU 0. */
  static void pin(List<Long> pids) {
    apply(pids, Integer.toString(CPU));
  }

  /** Lets this JVM and the given processes run on every CPU again. */
  static void unpin(List<Long> pids) {
    apply(pids, "0-" + (Runtime.getRuntime().availableProcessors() - 1));
  }

  /**
   * Runs {@code taskset} for each process. It walks the process's threads one by one and fails when
   * one ends meanwhile, so each call is retried a few times; a process still failing is reported
   * (the measurement goes on, less well placed) rather than stopping the run.
   */
  private static void apply(List<Long> pids, String cpus) {
    List<Long> all = new ArrayList<>(pids);
    all.add(ProcessHandle.current().pid());
    for (long pid : all) {
      boolean done = false;
      for (int attempt = 0; attempt < ATTEMPTS && !done; attempt++) {
        done = taskset(pid, cpus);
      }
      if (!done) {
        LockBenchmark.log(
            "  warning: taskset -a -p -c " + cpus + " " + pid + " failed " + ATTEMPTS + " times");
      }
    }
  }

  private static boolean taskset(long pid, String cpus) {
    try {
      Process taskset =
          new ProcessBuilder(TASKSET.toString(), "-a", "-p", "-c", cpus, Long.toString(pid))
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.DISCARD)
              .start();
      if (!taskset.waitFor(10, TimeUnit.SECONDS)) {
        taskset.destroyForcibly();
        return false;
      }
      return taskset.exitValue() == 0;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }
}
