package io.github.redislock.process;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.redislock.testing.JvmProcess;
import io.github.redislock.testing.Timing;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.params.SetParams;

/**
 * Mutual exclusion across real JVM processes: several child JVMs, each with several threads,
 * increment one Redis counter non-atomically ({@code GET}, then {@code SET value + 1}) under the
 * same lock. Any overlap of two critical sections would lose updates and be seen directly by the
 * workers' {@code INCR inside} check.
 */
class CrossProcessMutualExclusionTest extends ProcessTestBase {
  private static final int JVMS = 3;
  private static final int THREADS = 4;
  private static final int INCREMENTS = 100;

  @Test
  void nonAtomicIncrementsUnderTheLockLoseNothingAcrossProcesses() {
    String counter = name + ":counter";
    ownKeys(
        counter,
        LockWorker.insideKey(name),
        LockWorker.fenceKey(name),
        LockWorker.lastHolderKey(name),
        LockWorker.goKey(name));

    List<JvmProcess> workers = startCounters(JVMS, THREADS, INCREMENTS, counter);
    long started = System.nanoTime();
    awaitAll(workers);
    long millis = Duration.ofNanos(System.nanoTime() - started).toMillis();

    long handoffs = 0;
    for (JvmProcess worker : workers) {
      assertThat(worker.exitValue())
          .as("exit code of %s; output:%n%s", worker, worker.output())
          .isZero();
      assertThat(valueIn(worker, "violations")).as("overlaps seen by %s", worker).isZero();
      assertThat(valueIn(worker, "fencing-violations"))
          .as("fencing tokens not increasing, seen by %s", worker)
          .isZero();
      handoffs += valueIn(worker, "handoffs");
    }
    try (Jedis jedis = redis.jedis()) {
      assertThat(jedis.get(counter)).isEqualTo(Long.toString((long) JVMS * THREADS * INCREMENTS));
      assertThat(jedis.get(LockWorker.insideKey(name))).isEqualTo("0");
      assertThat(jedis.exists(name)).as("lock key after every unlock").isFalse();
    }
    // Every JVM but the first to lock takes the lock over from another JVM at least once.
    assertThat(handoffs).isGreaterThanOrEqualTo(JVMS);
    System.out.printf(
        "%d JVMs x %d threads x %d increments under the lock: %d ms,"
            + " %d acquisitions right after another JVM's hold%n",
        JVMS, THREADS, INCREMENTS, millis, handoffs);
  }

  /**
   * The checks above can fail: a worker that finds someone "inside" and a fencing high-water mark
   * above its token reports each critical section as a violation.
   */
  @Test
  void theWorkersReportOverlapsAndStaleTokens() {
    String counter = name + ":counter";
    ownKeys(
        counter,
        LockWorker.insideKey(name),
        LockWorker.fenceKey(name),
        LockWorker.lastHolderKey(name),
        LockWorker.goKey(name));
    try (Jedis jedis = redis.jedis()) {
      jedis.set(LockWorker.insideKey(name), "1"); // an intruder that never leaves
      jedis.set(LockWorker.fenceKey(name), Long.toString(Long.MAX_VALUE));
    }

    List<JvmProcess> workers = startCounters(1, 2, 5, counter);
    awaitAll(workers);

    JvmProcess worker = workers.get(0);
    assertThat(worker.exitValue()).as("exit code; output:%n%s", worker.output()).isZero();
    assertThat(valueIn(worker, "violations")).isEqualTo(10);
    assertThat(valueIn(worker, "fencing-violations")).isEqualTo(10);
    try (Jedis jedis = redis.jedis()) {
      assertThat(jedis.get(counter)).isEqualTo("10");
    }
  }

  /** Starts the counting JVMs, waits until all are ready, then starts them together. */
  private List<JvmProcess> startCounters(int jvms, int threads, int increments, String counter) {
    List<JvmProcess> workers = new ArrayList<>();
    for (int i = 0; i < jvms; i++) {
      workers.add(
          worker(
              "count",
              redis.uri(),
              name,
              counter,
              Integer.toString(threads),
              Integer.toString(increments)));
    }
    for (JvmProcess worker : workers) {
      worker.awaitOutputLine("ready", Timing.awaitAtMost());
    }
    try (Jedis jedis = redis.jedis()) {
      jedis.set(LockWorker.goKey(name), "go", SetParams.setParams().px(60_000));
    }
    return workers;
  }

  private static void awaitAll(List<JvmProcess> workers) {
    Duration bound = Timing.scaled(Duration.ofMinutes(2));
    for (JvmProcess worker : workers) {
      assertThat(worker.waitFor(bound))
          .as("%s finished within %s; output so far:%n%s", worker, bound, worker.output())
          .isTrue();
    }
  }
}
