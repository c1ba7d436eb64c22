package io.github.redislock.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.github.redislock.LockLostException;
import io.github.redislock.RedisDistributedLock;
import io.github.redislock.RedisLockFactory;
import io.github.redislock.testing.JvmProcess;
import io.github.redislock.testing.Timing;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/**
 * Fair locks across real JVMs ({@link FairWorker}s, one waiter each): they acquire in the order
 * they queued in Redis; the place of a JVM killed (SIGKILL) or frozen (SIGSTOP) while it waits is
 * skipped once its lease runs out; a Redis restart under queued JVMs loses the queue, and every JVM
 * queues again and acquires, one at a time.
 */
class FairProcessTest extends ProcessTestBase {
  /** The lease of the workers' holds and places: short, so that a dead place runs out soon. */
  private static final Duration SHORT_LEASE = Timing.scaled(Duration.ofSeconds(2));

  private static final Duration LEASE = Duration.ofSeconds(30);

  private final List<JvmProcess> workers = new ArrayList<>();
  private final List<RedisLockFactory> factories = new ArrayList<>();

  @AfterEach
  void stopWorkers() {
    workers.forEach(JvmProcess::close);
    workers.clear();
    factories.forEach(RedisLockFactory::close);
    factories.clear();
    ownKeys(FairWorker.orderKey(name), FairWorker.insideKey(name));
  }

  /** The fair lock {@code name}, held by this JVM (standing for one more process). */
  private RedisDistributedLock heldHere(Duration lease) {
    RedisLockFactory factory =
        RedisLockFactory.builder().standalone(redis.uri()).leaseTime(lease).build();
    factories.add(factory);
    RedisDistributedLock lock = factory.getFairLock(name);
    lock.lock();
    return lock;
  }

  /** Starts worker {@code id} and waits until it holds its place: the {@code places}-th. */
  private JvmProcess queue(int id, Duration lease, long places) {
    JvmProcess worker = FairWorker.start(redis.uri(), name, lease, id);
    workers.add(worker);
    worker.awaitOutputLine("ready", Timing.awaitAtMost());
    await("worker " + id + " queued").atMost(Timing.awaitAtMost()).until(() -> queued() == places);
    return worker;
  }

  private long queued() {
    try (Jedis jedis = redis.jedis()) {
      return jedis.zcard("{" + name + "}:lock-fq");
    }
  }

  private List<String> order() {
    try (Jedis jedis = redis.jedis()) {
      return jedis.lrange(FairWorker.orderKey(name), 0, -1);
    }
  }

  private static void awaitDone(JvmProcess worker) {
    assertThat(worker.waitFor(Timing.awaitAtMost()))
        .as("%s exited; output so far:%n%s", worker, worker.output())
        .isTrue();
    assertThat(worker.exitValue()).as("exit code; output:%n%s", worker.output()).isZero();
    assertThat(valueIn(worker, "violations")).as("overlaps seen by %s", worker).isZero();
  }

  @Test
  void fiveJvmsAcquireInExactlyTheOrderTheyQueued() {
    RedisDistributedLock holder = heldHere(LEASE);
    for (int id = 0; id < 5; id++) {
      queue(id, LEASE, id + 1);
    }
    holder.unlock();
    workers.forEach(FairProcessTest::awaitDone);
    assertThat(order()).containsExactly("0", "1", "2", "3", "4");
    assertThat(queued()).isZero();
  }

  @Test
  void theNextJvmAcquiresOnceThePlaceOfAKilledJvmRunsOut() {
    RedisDistributedLock holder = heldHere(LEASE);
    JvmProcess killed = queue(0, SHORT_LEASE, 1);
    JvmProcess next = queue(1, SHORT_LEASE, 2);
    killed.kill();
    holder.unlock();
    awaitDone(next);
    assertThat(order()).containsExactly("1");
    assertThat(queued()).as("the killed JVM's place").isZero();
  }

  @Test
  void aJvmFrozenWhileQueuedIsSkippedAndQueuesAgainWhenItThaws() {
    RedisDistributedLock holder = heldHere(LEASE);
    JvmProcess frozen = queue(0, SHORT_LEASE, 1);
    JvmProcess next = queue(1, SHORT_LEASE, 2);
    frozen.pause();
    try {
      holder.unlock();
      awaitDone(next);
      assertThat(order()).containsExactly("1");
    } finally {
      frozen.resume();
    }
    awaitDone(frozen);
    assertThat(order()).containsExactly("1", "0");
  }

  @Test
  void jvmsQueuedWhenRedisRestartsEmptyQueueAgainAndAllAcquireOneAtATime() {
    RedisDistributedLock holder = heldHere(SHORT_LEASE);
    for (int id = 0; id < 3; id++) {
      queue(id, SHORT_LEASE, id + 1);
    }
    redis.restart();
    workers.forEach(FairProcessTest::awaitDone);
    assertThat(order()).containsExactlyInAnyOrder("0", "1", "2");
    // The holder's key went with the restart; its renewal finds out (until then an unlock could
    // not tell a lost reply from a lost key, and would be judged by the lease).
    await()
        .atMost(Timing.awaitAtMost())
        .pollInSameThread()
        .until(() -> !holder.isHeldByCurrentThread());
    assertThatThrownBy(holder::unlock).isInstanceOf(LockLostException.class);
  }
}
