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
 * The read-write lock across real JVM processes: three child JVMs, each with reader and writer
 * threads on one read-write lock, check in Redis, inside every critical section, that writers are
 * alone and that no writer is inside while anyone reads, and count how many readers were inside at
 * once (see {@link ReadWriteWorker}). Writers increment a counter non-atomically, so an overlap of
 * two writers would also lose an update.
 */
class CrossProcessReadWriteTest extends ProcessTestBase {
  private static final int JVMS = 3;
  private static final int READERS = 3;
  private static final int WRITERS = 1;
  private static final int OPS = 40;

  @Test
  void writersAreAloneAndReadersShareAcrossThreeJvms() {
    List<JvmProcess> workers = startMixes(READERS, WRITERS, OPS);
    long started = System.nanoTime();
    awaitAll(workers);
    long millis = Duration.ofNanos(System.nanoTime() - started).toMillis();

    long maxReaders = 0;
    for (JvmProcess worker : workers) {
      assertThat(worker.exitValue())
          .as("exit code of %s; output:%n%s", worker, worker.output())
          .isZero();
      assertThat(valueIn(worker, "violations")).as("overlaps seen by %s", worker).isZero();
      assertThat(valueIn(worker, "fencing-violations"))
          .as("write fencing tokens not increasing, seen by %s", worker)
          .isZero();
      assertThat(valueIn(worker, "writes")).isEqualTo((long) WRITERS * OPS);
      assertThat(valueIn(worker, "reads")).isEqualTo((long) READERS * OPS);
      maxReaders = Math.max(maxReaders, valueIn(worker, "max-readers"));
    }
    try (Jedis jedis = redis.jedis()) {
      assertThat(jedis.get(name + ":counter"))
          .isEqualTo(Long.toString((long) JVMS * WRITERS * OPS));
      assertThat(jedis.exists(name)).as("write lock key after every unlock").isFalse();
      assertThat(jedis.exists("{" + name + "}:lock-rs")).as("read shares left").isFalse();
    }
    assertThat(maxReaders).as("readers inside the read lock at once").isGreaterThan(1);
    System.out.printf(
        "%d JVMs x (%d readers + %d writer) x %d sections: %d ms, up to %d readers at once%n",
        JVMS, READERS, WRITERS, OPS, millis, maxReaders);
  }

  /**
   * The checks above can fail: a writer inside that never leaves makes every reader's section a
   * violation, and a fencing high-water mark above every token makes every write one.
   */
  @Test
  void theWorkersReportOverlapsAndStaleTokens() {
    try (Jedis jedis = redis.jedis()) {
      jedis.set(ReadWriteWorker.writersKey(name), "1");
      jedis.set(ReadWriteWorker.fenceKey(name), Long.toString(Long.MAX_VALUE));
    }
    List<JvmProcess> workers = new ArrayList<>();
    workers.add(worker(name, 2, 1, 5));
    go(workers);
    awaitAll(workers);
    JvmProcess worker = workers.get(0);
    assertThat(worker.exitValue()).as("exit code; output:%n%s", worker.output()).isZero();
    assertThat(valueIn(worker, "violations")).isEqualTo(15);
    assertThat(valueIn(worker, "fencing-violations")).isEqualTo(5);
  }

  private List<JvmProcess> startMixes(int readers, int writers, int ops) {
    List<JvmProcess> workers = new ArrayList<>();
    for (int i = 0; i < JVMS; i++) {
      workers.add(worker(name, readers, writers, ops));
    }
    go(workers);
    return workers;
  }

  private JvmProcess worker(String lockName, int readers, int writers, int ops) {
    ownKeys(
        lockName + ":counter",
        ReadWriteWorker.readersKey(lockName),
        ReadWriteWorker.writersKey(lockName),
        ReadWriteWorker.fenceKey(lockName),
        ReadWriteWorker.goKey(lockName));
    JvmProcess child =
        ReadWriteWorker.start(
            "mix",
            redis.uri(),
            lockName,
            Integer.toString(readers),
            Integer.toString(writers),
            Integer.toString(ops));
    adopt(child);
    return child;
  }

  /** Waits until every worker is ready, then starts them together. */
  private void go(List<JvmProcess> workers) {
    for (JvmProcess worker : workers) {
      worker.awaitOutputLine("ready", Timing.awaitAtMost());
    }
    try (Jedis jedis = redis.jedis()) {
      jedis.set(ReadWriteWorker.goKey(name), "go", SetParams.setParams().px(60_000));
    }
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
