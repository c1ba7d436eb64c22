package io.github.redislock.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.github.redislock.LockLostEvent;
import io.github.redislock.LockLostException;
import io.github.redislock.RedisDistributedLock;
import io.github.redislock.RedisLockFactory;
import io.github.redislock.testing.IntegrationTest;
import io.github.redislock.testing.RedisInvariants;
import io.github.redislock.testing.RedisServerExtension;
import io.github.redislock.testing.Timing;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.Jedis;

/**
 * A hold lost in Redis gives up the JVM-local lock at once: the common guard {@code finally { if
 * (lock.isHeldByCurrentThread()) lock.unlock(); }} skips the unlock of a lost hold, and other
 * threads of the JVM must not wait for it forever. The former owner still learns of the loss, once.
 */
@IntegrationTest
class LostHoldTest {
  @RegisterExtension static final RedisServerExtension redis = new RedisServerExtension();
  private final List<RedisLockFactory> factories = new ArrayList<>();
  private final List<LockLostEvent> lost = new CopyOnWriteArrayList<>();
  private ExecutorService threads;
  private String name;

  @BeforeEach
  void setUp(TestInfo info) {
    name = "lost:" + info.getTestMethod().orElseThrow().getName();
    threads = Executors.newCachedThreadPool();
  }

  @AfterEach
  void tearDown() throws InterruptedException {
    RedisInvariants.closeAfterTest(redis.server(), threads, factories);
  }

  private RedisLockFactory factory() {
    RedisLockFactory factory =
        RedisLockFactory.builder()
            .standalone(redis.server().uri())
            .leaseTime(Timing.scaled(Duration.ofMillis(600)))
            .onLockLost(lost::add)
            .build();
    factories.add(factory);
    return factory;
  }

  /** Takes the lock on this thread, deletes its key, and waits until renewal reports the loss. */
  private void loseAHold(RedisDistributedLock lock) {
    lock.lock();
    lock.lock(); // a reentrant hold too: the loss clears every count
    try (Jedis jedis = redis.server().jedis()) {
      jedis.del(lock.getName());
    }
    await().atMost(Timing.awaitAtMost()).until(() -> !lost.isEmpty());
  }

  @Test
  void anotherThreadTakesALostLockWithoutTheFormerOwnersUnlock() throws Exception {
    RedisDistributedLock lock = factory().getLock(name);
    loseAHold(lock);
    assertThat(lock.isHeldByCurrentThread()).isFalse();
    assertThat(lock.getHoldCount()).isZero();
    if (lock.isHeldByCurrentThread()) { // the usual guard: skips the unlock
      lock.unlock();
    }
    Future<Boolean> other =
        threads.submit(
            () -> {
              boolean acquired =
                  lock.tryLock(
                      Timing.scaled(Duration.ofSeconds(5)).toMillis(), TimeUnit.MILLISECONDS);
              if (acquired) {
                lock.unlock();
              }
              return acquired;
            });
    assertThat(other.get()).as("another thread acquires the lost lock").isTrue();
  }

  @Test
  void theFormerOwnersNextUnlockThrowsLockLostOnceThenIllegalMonitorState() {
    RedisDistributedLock lock = factory().getLock(name);
    loseAHold(lock);
    assertThatThrownBy(lock::unlock).isInstanceOf(LockLostException.class);
    assertThatThrownBy(lock::unlock)
        .isInstanceOf(IllegalMonitorStateException.class)
        .isNotInstanceOf(LockLostException.class);
  }

  @Test
  void theFormerOwnersNextLockThrowsLockLostOnceThenAcquires() {
    RedisDistributedLock lock = factory().getLock(name);
    loseAHold(lock);
    assertThatThrownBy(lock::lock).isInstanceOf(LockLostException.class);
    lock.lock();
    assertThat(lock.getHoldCount()).isOne();
    lock.unlock();
    assertThat(lock.isHeldByCurrentThread()).isFalse();
  }

  @Test
  void aLostLockThatNobodyUnlocksLeavesNoLocalState() {
    RedisLockFactory factory = factory();
    RedisDistributedLock lock = factory.getLock(name);
    loseAHold(lock);
    await()
        .atMost(Timing.awaitAtMost())
        .untilAsserted(() -> assertThat(factory.activity().namesInUseCount()).isZero());
    assertThat(factory.activity().renewingHoldCount()).isZero();
  }

  @Test
  void aQueuedThreadGetsTheLockOfALostHold() throws Exception {
    RedisLockFactory factory = factory();
    RedisDistributedLock lock = factory.getLock(name);
    lock.lock();
    Future<Boolean> waiter =
        threads.submit(
            () -> {
              lock.lock(); // queued locally behind this thread
              lock.unlock();
              return true;
            });
    await().atMost(Timing.awaitAtMost()).until(() -> lock.getQueueLength() == 1);
    try (Jedis jedis = redis.server().jedis()) {
      jedis.del(lock.getName());
    }
    assertThat(waiter.get(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS)).isTrue();
    assertThatThrownBy(lock::unlock).isInstanceOf(LockLostException.class);
  }
}
