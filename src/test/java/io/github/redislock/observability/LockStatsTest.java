package io.github.redislock.observability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.github.redislock.LockLostException;
import io.github.redislock.LockStats;
import io.github.redislock.LockStatsListener;
import io.github.redislock.RedisDistributedLock;
import io.github.redislock.RedisLockException;
import io.github.redislock.RedisLockFactory;
import io.github.redislock.RedisReadWriteLock;
import io.github.redislock.testing.IntegrationTest;
import io.github.redislock.testing.RedisInvariants;
import io.github.redislock.testing.RedisServerExtension;
import io.github.redislock.testing.Timing;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.Jedis;

/** {@code recordStats()} and {@code factory.stats()}: what is counted, and the push listener. */
@IntegrationTest
class LockStatsTest {
  @RegisterExtension static final RedisServerExtension redis = new RedisServerExtension();
  private final List<RedisLockFactory> factories = new ArrayList<>();
  private String name;

  @BeforeEach
  void setUp(TestInfo info) {
    name = "stats:" + info.getTestMethod().orElseThrow().getName();
  }

  @AfterEach
  void tearDown() throws InterruptedException {
    RedisInvariants.closeAfterTest(redis.server(), null, factories);
  }

  private RedisLockFactory factory(UnaryOperator<RedisLockFactory.Builder> settings) {
    RedisLockFactory factory =
        settings.apply(RedisLockFactory.builder().standalone(redis.server().uri())).build();
    factories.add(factory);
    return factory;
  }

  @Test
  void withoutRecordStatsTheStatsAreEmpty() {
    RedisLockFactory factory = factory(b -> b);
    factory.getLock(name).runLocked(() -> {});
    assertThat(factory.stats()).isEqualTo(LockStats.empty());
  }

  @Test
  void acquisitionsFailuresAndTimeoutsAreCountedButNotReentrantOnes() throws Exception {
    RedisLockFactory factory = factory(RedisLockFactory.Builder::recordStats);
    RedisDistributedLock lock = factory.getLock(name);
    for (int i = 0; i < 3; i++) {
      lock.lock();
      lock.lock(); // reentrant: not an acquisition
      lock.unlock();
      lock.unlock();
    }
    RedisDistributedLock held = factory(b -> b).getLock(name);
    held.lock();
    try {
      assertThat(lock.tryLock()).isFalse();
      assertThat(lock.tryLock(20, TimeUnit.MILLISECONDS)).isFalse();
    } finally {
      held.unlock();
    }
    LockStats stats = factory.stats();
    assertThat(stats.acquisitionCount()).isEqualTo(3);
    assertThat(stats.failureCount()).isEqualTo(1);
    assertThat(stats.timeoutCount()).isEqualTo(1);
    assertThat(stats.totalWaitTime()).isGreaterThanOrEqualTo(stats.maxWaitTime());
    assertThat(stats.maxWaitTime()).isPositive();
    assertThat(stats.lostHoldCount()).isZero();
    assertThat(stats.handoffCount()).isZero();
  }

  @Test
  void readAndWriteAcquisitionsCountToo() {
    RedisLockFactory factory = factory(RedisLockFactory.Builder::recordStats);
    RedisReadWriteLock rw = factory.getReadWriteLock(name);
    rw.readLock().runLocked(() -> {});
    rw.writeLock().runLocked(() -> {});
    factory.getFairLock(name + ":fair").runLocked(() -> {});
    assertThat(factory.stats().acquisitionCount()).isEqualTo(3);
  }

  @Test
  void lostHoldsRenewalsAndRedisErrorsAreCounted() {
    RedisLockFactory factory =
        factory(
            b ->
                b.recordStats()
                    .leaseTime(Timing.scaled(Duration.ofMillis(300)))
                    .commandTimeout(Duration.ofMillis(100)));
    RedisDistributedLock lock = factory.getLock(name);
    lock.lock();
    await().atMost(Timing.awaitAtMost()).until(() -> factory.stats().renewalCount() >= 2);
    try (Jedis jedis = redis.server().jedis()) {
      jedis.del(name);
    }
    await().atMost(Timing.awaitAtMost()).until(() -> factory.stats().lostHoldCount() == 1);
    assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class);

    redis.server().pause();
    try {
      assertThatThrownBy(lock::tryLock).isInstanceOf(RedisLockException.class);
    } finally {
      redis.server().resume();
    }
    assertThat(factory.stats().redisErrorCount()).isPositive();
  }

  @Test
  void theListenerIsToldWhatIsCounted() {
    AtomicLong acquired = new AtomicLong();
    AtomicLong waited = new AtomicLong();
    AtomicLong released = new AtomicLong();
    LockStatsListener listener =
        new LockStatsListener() {
          @Override
          public void acquired(String lockName, long waitNanos, boolean handoff) {
            acquired.incrementAndGet();
            waited.addAndGet(waitNanos);
          }

          @Override
          public void released(String lockName, long heldNanos) {
            released.incrementAndGet();
          }
        };
    RedisLockFactory factory = factory(b -> b.recordStats(listener));
    RedisDistributedLock lock = factory.getLock(name);
    for (int i = 0; i < 5; i++) {
      lock.runLocked(() -> {});
    }
    LockStats stats = factory.stats();
    assertThat(acquired).hasValue(stats.acquisitionCount()).hasValue(5);
    assertThat(waited).hasValue(stats.totalWaitTime().toNanos());
    assertThat(released).hasValue(5);
  }

  @Test
  void theListenerIsToldOfARenewalThatFailed() {
    List<String> failed = new CopyOnWriteArrayList<>();
    AtomicLong errors = new AtomicLong();
    LockStatsListener listener =
        new LockStatsListener() {
          @Override
          public void renewalFailed(String lockName) {
            failed.add(lockName);
          }

          @Override
          public void redisError(String lockName) {
            errors.incrementAndGet();
          }
        };
    RedisLockFactory factory =
        factory(
            b ->
                b.recordStats(listener)
                    .leaseTime(Timing.scaled(Duration.ofMillis(300)))
                    .commandTimeout(Duration.ofMillis(100)));
    RedisDistributedLock lock = factory.getLock(name);
    lock.lock();
    redis.server().pause();
    try {
      await().atMost(Timing.awaitAtMost()).until(() -> !failed.isEmpty());
    } finally {
      redis.server().resume();
    }
    assertThat(failed).containsOnly(name);
    assertThat(errors.get()).isGreaterThanOrEqualTo(failed.size());
    try {
      lock.unlock();
    } catch (LockLostException e) { // the lease may have run out while Redis was frozen
      assertThat(e).hasMessageContaining("renewal failed");
    }
  }

  @Test
  void snapshotsAreValuesThatSubtract() {
    LockStats a = LockStats.of(5, 1, 2, 100, 40, 1, 0, 3, 7);
    LockStats b = LockStats.of(2, 0, 1, 30, 20, 0, 0, 1, 2);
    assertThat(a.minus(b)).isEqualTo(LockStats.of(3, 1, 1, 70, 40, 1, 0, 2, 5));
    assertThat(a.plus(b).minus(b)).isEqualTo(LockStats.of(5, 1, 2, 100, 40, 1, 0, 3, 7));
    assertThat(a.averageWaitTime()).isEqualTo(Duration.ofNanos(20));
    assertThat(LockStats.empty().averageWaitTime()).isZero();
    assertThat(a.toString()).contains("acquisitionCount=5");
    assertThatThrownBy(() -> LockStats.of(-1, 0, 0, 0, 0, 0, 0, 0, 0))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
