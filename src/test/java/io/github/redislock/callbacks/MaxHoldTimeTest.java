package io.github.redislock.callbacks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.github.redislock.LockLostEvent;
import io.github.redislock.LockLostException;
import io.github.redislock.RedisDistributedLock;
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
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.Jedis;

/**
 * A maximum hold time: renewal stops once a hold has lasted that long, the key expires with its
 * lease, and the hold is reported lost with reason "max hold time"; a lock's own maximum overrides
 * the factory's.
 */
@IntegrationTest
class MaxHoldTimeTest {
  @RegisterExtension static final RedisServerExtension redis = new RedisServerExtension();
  private static final Duration LEASE = Timing.scaled(Duration.ofMillis(300));
  private static final Duration MAX_HOLD = Timing.scaled(Duration.ofMillis(400));

  private final List<RedisLockFactory> factories = new ArrayList<>();
  private final List<LockLostEvent> lost = new CopyOnWriteArrayList<>();
  private String name;

  @BeforeEach
  void setUp(TestInfo info) {
    name = "maxhold:" + info.getTestMethod().orElseThrow().getName();
  }

  @AfterEach
  void tearDown() throws InterruptedException {
    RedisInvariants.closeAfterTest(redis.server(), null, factories);
  }

  private RedisLockFactory factory(UnaryOperator<RedisLockFactory.Builder> settings) {
    RedisLockFactory factory =
        settings
            .apply(
                RedisLockFactory.builder()
                    .standalone(redis.server().uri())
                    .leaseTime(LEASE)
                    .onLockLost(lost::add))
            .build();
    factories.add(factory);
    return factory;
  }

  private boolean exists(String key) {
    try (Jedis jedis = redis.server().jedis()) {
      return jedis.exists(key);
    }
  }

  private LockLostEvent awaitLoss(String lockName) {
    await()
        .atMost(Timing.awaitAtMost())
        .until(() -> lost.stream().anyMatch(e -> e.lockName().equals(lockName)));
    return lost.stream().filter(e -> e.lockName().equals(lockName)).findFirst().orElseThrow();
  }

  @Test
  void aHoldOfTheFactorysMaximumIsLostWithReasonMaxHoldTimeAndItsKeyExpires() {
    RedisDistributedLock lock = factory(b -> b.maxHoldTime(MAX_HOLD)).getLock(name);
    lock.lock();
    LockLostEvent event = awaitLoss(name);
    assertThat(event.reason()).contains("max hold time");
    assertThat(lock.isHeldByCurrentThread()).isFalse();
    await("the key expires with its lease").atMost(Timing.awaitAtMost()).until(() -> !exists(name));
    assertThatThrownBy(lock::unlock)
        .isInstanceOf(LockLostException.class)
        .hasMessageContaining("max hold time");
  }

  @Test
  void renewalOutlivesManyLeasesWithoutAMaximumButNotWithOne() {
    RedisLockFactory factory = factory(b -> b);
    RedisDistributedLock unlimited = factory.getLock(name + ":unlimited");
    RedisDistributedLock limited = factory.getLock(name).withMaxHoldTime(MAX_HOLD);
    unlimited.lock();
    limited.lock();
    awaitLoss(name);
    // Renewal of the lock without a maximum goes on (the default is none): it held past the
    // other's maximum plus a lease, so it was renewed.
    assertThat(lost).extracting(LockLostEvent::lockName).containsExactly(name);
    assertThat(unlimited.isHeldByCurrentThread()).isTrue();
    assertThat(exists(name + ":unlimited")).isTrue();
    unlimited.unlock();
    assertThatThrownBy(limited::unlock).isInstanceOf(LockLostException.class);
  }

  @Test
  void aLocksOwnMaximumOverridesTheFactorys() {
    RedisLockFactory factory = factory(b -> b.maxHoldTime(MAX_HOLD));
    RedisDistributedLock longer =
        factory.getLock(name + ":longer").withMaxHoldTime(Duration.ofDays(1));
    RedisDistributedLock byFactory = factory.getLock(name);
    longer.lock();
    byFactory.lock();
    awaitLoss(name);
    assertThat(lost).extracting(LockLostEvent::lockName).containsExactly(name);
    assertThat(longer.isHeldByCurrentThread()).isTrue();
    longer.unlock();
    assertThatThrownBy(byFactory::unlock).isInstanceOf(LockLostException.class);
  }

  @Test
  void aViewIsTheSameLock() {
    RedisLockFactory factory = factory(b -> b);
    RedisDistributedLock lock = factory.getLock(name);
    RedisDistributedLock view = lock.withMaxHoldTime(Duration.ofMinutes(1));
    assertThat(view.getName()).isEqualTo(name);
    view.lock();
    assertThat(lock.isHeldByCurrentThread()).isTrue();
    lock.lock(); // reentrant, through the other object
    assertThat(view.getHoldCount()).isEqualTo(2);
    lock.unlock();
    view.unlock();
    assertThat(exists(name)).isFalse();
  }

  @Test
  void theFactorysMaximumAppliesToFairAndReadWriteLocks() {
    RedisLockFactory factory = factory(b -> b.maxHoldTime(MAX_HOLD));
    RedisDistributedLock fair = factory.getFairLock(name + ":fair");
    RedisReadWriteLock rw = factory.getReadWriteLock(name + ":rw");
    RedisReadWriteLock readers = factory.getReadWriteLock(name + ":read");
    fair.lock();
    rw.writeLock().lock();
    readers.readLock().lock();
    assertThat(awaitLoss(name + ":fair").reason()).contains("max hold time");
    assertThat(awaitLoss(name + ":rw").reason()).contains("max hold time");
    assertThat(awaitLoss(name + ":read").reason()).contains("max hold time");
    assertThatThrownBy(fair::unlock).isInstanceOf(LockLostException.class);
    assertThatThrownBy(rw.writeLock()::unlock).isInstanceOf(LockLostException.class);
    assertThatThrownBy(readers.readLock()::unlock).isInstanceOf(LockLostException.class);
  }

  @Test
  void theMaximumIsCheckedWhenSet() {
    RedisDistributedLock lock = factory(b -> b).getLock(name);
    assertThatThrownBy(() -> lock.withMaxHoldTime(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> lock.withMaxHoldTime(null)).isInstanceOf(NullPointerException.class);
    RedisLockFactory.Builder builder = RedisLockFactory.builder();
    assertThatThrownBy(() -> builder.maxHoldTime(Duration.ofMillis(-1)))
        .isInstanceOf(IllegalArgumentException.class);
    builder.maxHoldTime(Duration.ofSeconds(1));
    assertThatThrownBy(() -> builder.maxHoldTime(Duration.ofSeconds(2)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("maxHoldTime");
  }
}
