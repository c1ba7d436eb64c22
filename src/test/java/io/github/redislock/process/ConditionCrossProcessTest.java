package io.github.redislock.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.redislock.RedisDistributedLock;
import io.github.redislock.RedisLockFactory;
import io.github.redislock.testing.JvmProcess;
import io.github.redislock.testing.Timing;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/**
 * Conditions across real JVM processes: the bounded buffer of {@code Condition}'s Javadoc shared by
 * three JVMs, on a plain lock and on the write lock of a read-write lock (with readers), and an
 * awaiting JVM killed (SIGKILL) after a signal went to it.
 */
class ConditionCrossProcessTest extends ProcessTestBase {
  private static final int JVMS = 3;
  private static final int PRODUCERS = 2;
  private static final int CONSUMERS = 2;
  private static final int ITEMS = 60;
  private static final int CAPACITY = 4;
  private static final int READERS = 2;

  @Test
  void aBoundedBufferSharedByThreeJvmsDeliversEveryItemExactlyOnce() {
    runBuffer();
  }

  /**
   * The same buffer on the write lock of a read-write lock and its conditions, with reader threads
   * in every JVM: writers exclude each other and every reader, readers get in between, and every
   * item is delivered once.
   */
  @Test
  void aBoundedBufferOnAWriteLockWithReadersInThreeJvmsDeliversEveryItemExactlyOnce() {
    long reads = runBuffer("write", Integer.toString(READERS));
    assertThat(reads).as("reads made beside the writers").isPositive();
  }

  /**
   * Runs the buffer in {@value #JVMS} JVMs ({@code extra}: the worker's optional arguments) and
   * checks every item was delivered once, with no overlap and no spurious wake-up.
   *
   * @return the reads made by every JVM's readers
   */
  private long runBuffer(String... extra) {
    ownKeys(
        ConditionWorker.itemsKey(name),
        ConditionWorker.takenKey(name),
        ConditionWorker.deliveredKey(name),
        ConditionWorker.insideKey(name),
        ConditionWorker.readersKey(name),
        ConditionWorker.goKey(name));
    long total = (long) JVMS * PRODUCERS * ITEMS;
    List<JvmProcess> workers = new ArrayList<>();
    for (int jvm = 0; jvm < JVMS; jvm++) {
      List<String> args =
          new ArrayList<>(
              List.of(
                  "buffer",
                  redis.uri(),
                  name,
                  Integer.toString(CAPACITY),
                  Integer.toString(PRODUCERS),
                  Integer.toString(CONSUMERS),
                  Integer.toString(ITEMS),
                  Long.toString(total),
                  Integer.toString(jvm)));
      args.addAll(List.of(extra));
      workers.add(child(ConditionWorker.start(args.toArray(String[]::new))));
    }
    for (JvmProcess worker : workers) {
      worker.awaitOutputLine("ready", Timing.awaitAtMost());
    }
    try (Jedis jedis = redis.jedis()) {
      jedis.set(ConditionWorker.goKey(name), "go");
    }
    long consumed = 0;
    long rechecks = 0;
    long reads = 0;
    for (JvmProcess worker : workers) {
      awaitExit(worker);
      assertThat(worker.exitValue()).as("exit code; output:%n%s", worker.output()).isZero();
      assertThat(valueIn(worker, "duplicates")).as("items delivered twice").isZero();
      assertThat(valueIn(worker, "violations")).as("overlapping critical sections").isZero();
      assertThat(valueIn(worker, "spurious")).as("spurious wake-ups").isZero();
      consumed += valueIn(worker, "consumed");
      rechecks += valueIn(worker, "rechecks");
      reads += valueIn(worker, "reads");
    }
    try (Jedis jedis = redis.jedis()) {
      assertThat(consumed).as("items consumed by all JVMs").isEqualTo(total);
      assertThat(jedis.scard(ConditionWorker.deliveredKey(name))).isEqualTo(total);
      for (int jvm = 0; jvm < JVMS; jvm++) {
        for (int p = 0; p < PRODUCERS; p++) {
          for (int i = 0; i < ITEMS; i++) {
            assertThat(
                    jedis.sismember(
                        ConditionWorker.deliveredKey(name), "j" + jvm + "-p" + p + "-" + i))
                .isTrue();
          }
        }
      }
      assertThat(jedis.llen(ConditionWorker.itemsKey(name))).isZero();
      assertThat(jedis.exists(name)).as("lock key after every unlock").isFalse();
    }
    System.out.printf(
        "%d JVMs x (%d producers + %d consumers), %d items through a buffer of %d:"
            + " %d awaits returned with their condition taken by another thread, %d reads%n",
        JVMS, PRODUCERS, CONSUMERS, total, CAPACITY, rechecks, reads);
    return reads;
  }

  @Test
  void theSignalOfAKilledAwaitingJvmPassesOnToTheNextAwaiter() {
    Duration signalLease = Timing.scaled(Duration.ofSeconds(2));
    String queue = "{" + name + "}:lock-condadbq"; // condition 1: "1" is 0x31
    String signalled = "{" + name + "}:lock-condadbs";
    // The dying awaiter's lease outlasts the signal's (2 s): its signal must pass on when the
    // signalled entry runs out, not with its own entry. The release that signals hands it the lock
    // (nobody else listens on the lock's channel), which its death holds for that lease: 10 s.
    JvmProcess dying =
        child(
            ConditionWorker.start(
                "await",
                redis.uri(),
                name,
                Long.toString(Timing.scaled(Duration.ofSeconds(10)).toMillis())));
    await().atMost(Timing.awaitAtMost()).until(() -> zcard(queue) == 1);
    JvmProcess next =
        child(
            ConditionWorker.start(
                "await",
                redis.uri(),
                name,
                Long.toString(Timing.scaled(Duration.ofSeconds(3)).toMillis())));
    await().atMost(Timing.awaitAtMost()).until(() -> zcard(queue) == 2);
    dying.kill();

    try (RedisLockFactory factory =
        RedisLockFactory.builder().standalone(redis.uri()).leaseTime(signalLease).build()) {
      RedisDistributedLock lock = factory.getLock(name);
      lock.lock();
      try {
        lock.newCondition().signal(); // to the oldest awaiter: the dead one
      } finally {
        lock.unlock();
      }
    }
    assertThat(zcard(signalled)).as("the dead awaiter's signal").isOne();
    assertThat(zcard(queue)).as("the next awaiter, waiting still").isOne();

    awaitExit(next);
    assertThat(next.exitValue()).as("exit code; output:%n%s", next.output()).isZero();
    assertThat(next.output()).contains("woken");
    assertThat(valueIn(next, "spurious")).as("woken by the signal it was passed").isZero();
    assertThat(zcard(queue)).isZero();
  }

  private JvmProcess child(JvmProcess process) {
    adopt(process);
    return process;
  }

  private long zcard(String key) {
    try (Jedis jedis = redis.jedis()) {
      return jedis.zcard(key);
    }
  }

  private static void awaitExit(JvmProcess child) {
    Duration bound = Timing.awaitAtMost().multipliedBy(3);
    assertThat(child.waitFor(bound))
        .as("%s exited within %s; output so far:%n%s", child, bound, child.output())
        .isTrue();
  }
}
