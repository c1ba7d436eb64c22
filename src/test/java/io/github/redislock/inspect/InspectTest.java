package io.github.redislock.inspect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.github.redislock.LockInfo;
import io.github.redislock.LockLostEvent;
import io.github.redislock.LockLostException;
import io.github.redislock.RedisDistributedLock;
import io.github.redislock.RedisLockFactory;
import io.github.redislock.RedisReadWriteLock;
import io.github.redislock.testing.IntegrationTest;
import io.github.redislock.testing.RedisInvariants;
import io.github.redislock.testing.RedisServerExtension;
import io.github.redislock.testing.Timing;
import java.net.InetAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPubSub;

/**
 * {@code factory.inspect(name)} and {@code factory.forceUnlock(name)} on one Redis server, for
 * plain, fair and read-write names.
 */
@IntegrationTest
class InspectTest {
  @RegisterExtension static final RedisServerExtension redis = new RedisServerExtension();
  private static final Duration SHORT_LEASE = Timing.scaled(Duration.ofMillis(600));

  private final List<RedisLockFactory> factories = new ArrayList<>();
  private final List<LockLostEvent> lost = new CopyOnWriteArrayList<>();
  private ExecutorService threads;
  private String name;

  @BeforeEach
  void setUp(TestInfo info) {
    name = "inspect:" + info.getTestMethod().orElseThrow().getName();
    threads = Executors.newCachedThreadPool();
  }

  @AfterEach
  void tearDown() throws InterruptedException {
    RedisInvariants.closeAfterTest(redis.server(), threads, factories);
  }

  private RedisLockFactory factory(UnaryOperator<RedisLockFactory.Builder> settings) {
    RedisLockFactory factory =
        settings
            .apply(
                RedisLockFactory.builder().standalone(redis.server().uri()).onLockLost(lost::add))
            .build();
    factories.add(factory);
    return factory;
  }

  private RedisLockFactory factory() {
    return factory(b -> b);
  }

  private List<String> keys() {
    try (Jedis jedis = redis.server().jedis()) {
      return List.copyOf(jedis.keys("*"));
    }
  }

  @Test
  void aFreeLockIsNotLockedAndInspectingItWritesNothing() {
    LockInfo info = factory().inspect(name);
    assertThat(info.name()).isEqualTo(name);
    assertThat(info.isLocked()).isFalse();
    assertThat(info.remainingLease()).isEmpty();
    assertThat(info.fencingCounter()).isZero();
    assertThat(info.waiters()).isZero();
    assertThat(info.readers()).isZero();
    assertThat(info.holder()).isEmpty();
    assertThat(keys()).isEmpty();
  }

  @Test
  void aHeldLockShowsItsRemainingLeaseAndFencingCounter() {
    RedisLockFactory factory = factory(b -> b.leaseTime(Duration.ofSeconds(30)));
    RedisDistributedLock lock = factory.getLock(name);
    lock.lock();
    try {
      long token = lock.getFencingToken();
      LockInfo info = factory().inspect(name);
      assertThat(info.isLocked()).isTrue();
      assertThat(info.remainingLease())
          .hasValueSatisfying(
              lease -> assertThat(lease).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(30)));
      assertThat(info.fencingCounter()).isEqualTo(token);
      assertThat(info.holder()).as("holders are not described by default").isEmpty();
      assertThat(keys()).doesNotContain("{" + name + "}:lock-holder");
    } finally {
      lock.unlock();
    }
  }

  @Test
  void describeHoldersTellsWhoHoldsTheLock() throws Exception {
    String localHost = InetAddress.getLocalHost().getHostName();
    RedisLockFactory described = factory(RedisLockFactory.Builder::describeHolders);
    RedisDistributedLock lock = described.getLock(name);
    Instant before = Instant.now().minusSeconds(60);
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch held = new CountDownLatch(1);
    Future<?> holder =
        threads.submit(
            () -> {
              Thread.currentThread().setName("the-holder");
              lock.lock();
              try {
                held.countDown();
                release.await();
              } finally {
                lock.unlock();
              }
              return null;
            });
    held.await();
    LockInfo info = factory().inspect(name);
    assertThat(info.holder())
        .hasValueSatisfying(
            who -> {
              assertThat(who.thread()).isEqualTo("the-holder");
              assertThat(who.pid()).isEqualTo(ProcessHandle.current().pid());
              assertThat(who.host()).isEqualTo(localHost);
              assertThat(who.since()).isAfter(before).isBefore(Instant.now().plusSeconds(60));
            });
    try (Jedis jedis = redis.server().jedis()) {
      assertThat(jedis.pttl("{" + name + "}:lock-holder"))
          .as("the description expires as the lock does")
          .isPositive();
    }
    release.countDown();
    holder.get();
    assertThat(factory().inspect(name).holder()).as("no holder once released").isEmpty();
  }

  @Test
  void waitersCountsTheProcessesWaitingForTheLock() throws Exception {
    RedisDistributedLock lock = factory().getLock(name);
    lock.lock();
    List<Future<?>> waiting = new ArrayList<>();
    try {
      for (int i = 0; i < 2; i++) {
        RedisDistributedLock other = factory().getLock(name);
        waiting.add(
            threads.submit(
                () -> {
                  other.lock();
                  other.unlock();
                }));
      }
      await()
          .atMost(Timing.awaitAtMost())
          .untilAsserted(() -> assertThat(factory().inspect(name).waiters()).isEqualTo(2));
    } finally {
      lock.unlock();
    }
    for (Future<?> f : waiting) {
      f.get();
    }
  }

  @Test
  void forceUnlockDeletesAnotherHoldersKeyAndTheHolderLearnsItAtItsNextRenewal() {
    RedisDistributedLock lock = factory(b -> b.leaseTime(SHORT_LEASE)).getLock(name);
    lock.lock();
    RedisLockFactory operator = factory();
    assertThat(operator.forceUnlock(name)).isTrue();
    assertThat(operator.inspect(name).isLocked()).isFalse();
    assertThat(operator.forceUnlock(name)).as("nothing left to delete").isFalse();
    await().atMost(Timing.awaitAtMost()).until(() -> !lost.isEmpty());
    assertThat(lost).singleElement().satisfies(e -> assertThat(e.lockName()).isEqualTo(name));
    assertThat(lock.isHeldByCurrentThread()).isFalse();
    assertThatThrownBy(lock::unlock).isInstanceOf(LockLostException.class);
  }

  @Test
  void forceUnlockPublishesTheRelease() throws Exception {
    RedisDistributedLock lock = factory(b -> b.leaseTime(SHORT_LEASE)).getLock(name);
    lock.lock();
    List<String> messages = new CopyOnWriteArrayList<>();
    JedisPubSub listener =
        new JedisPubSub() {
          @Override
          public void onMessage(String channel, String message) {
            messages.add(message);
          }
        };
    Jedis subscriber = redis.server().jedis();
    Future<?> subscribed =
        threads.submit(() -> subscriber.subscribe(listener, "{" + name + "}:lock-wake"));
    try {
      await().atMost(Timing.awaitAtMost()).until(listener::isSubscribed);
      assertThat(factory().forceUnlock(name)).isTrue();
      await().atMost(Timing.awaitAtMost()).until(() -> messages.contains("released"));
    } finally {
      listener.unsubscribe();
      subscribed.get();
      subscriber.close();
    }
    await().atMost(Timing.awaitAtMost()).until(() -> !lost.isEmpty());
    assertThatThrownBy(lock::unlock).isInstanceOf(LockLostException.class);
  }

  @Test
  void forceUnlockLetsAWaitingProcessTakeTheLock() throws Exception {
    RedisDistributedLock lock = factory(b -> b.leaseTime(SHORT_LEASE)).getLock(name);
    lock.lock();
    RedisDistributedLock other = factory().getLock(name);
    Future<Boolean> waiter =
        threads.submit(
            () -> {
              other.lock();
              other.unlock();
              return true;
            });
    await().atMost(Timing.awaitAtMost()).until(() -> factory().inspect(name).waiters() == 1);
    assertThat(factory().forceUnlock(name)).isTrue();
    assertThat(waiter.get(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS)).isTrue();
    await().atMost(Timing.awaitAtMost()).until(() -> !lost.isEmpty());
    assertThatThrownBy(lock::unlock).isInstanceOf(LockLostException.class);
  }

  @Test
  void aFairNameIsInspectedAndForceUnlockedLikeAPlainOneAndItsQueueMovesOn() throws Exception {
    RedisDistributedLock fair = factory(b -> b.leaseTime(SHORT_LEASE)).getFairLock(name);
    fair.lock();
    RedisDistributedLock queued = factory().getFairLock(name);
    Future<Boolean> waiter =
        threads.submit(
            () -> {
              queued.lock();
              queued.unlock();
              return true;
            });
    RedisLockFactory operator = factory();
    await().atMost(Timing.awaitAtMost()).until(() -> operator.inspect(name).waiters() == 1);
    assertThat(operator.inspect(name).isLocked()).isTrue();
    assertThat(operator.forceUnlock(name)).isTrue();
    assertThat(waiter.get(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS)).isTrue();
    await().atMost(Timing.awaitAtMost()).until(() -> !lost.isEmpty());
    assertThatThrownBy(fair::unlock).isInstanceOf(LockLostException.class);
  }

  @Test
  void aReadWriteNameShowsItsReadersAndForceUnlockEndsTheirShares() throws Exception {
    RedisReadWriteLock rw = factory(b -> b.leaseTime(SHORT_LEASE)).getReadWriteLock(name);
    RedisReadWriteLock other = factory(b -> b.leaseTime(SHORT_LEASE)).getReadWriteLock(name);
    rw.readLock().lock();
    other.readLock().lock();
    RedisLockFactory operator = factory();
    LockInfo read = operator.inspect(name);
    assertThat(read.isLocked()).as("the lock key is the write lock's").isFalse();
    assertThat(read.readers()).isEqualTo(2);
    assertThat(operator.forceUnlock(name)).isTrue();
    assertThat(operator.inspect(name).readers()).isZero();
    await().atMost(Timing.awaitAtMost()).until(() -> lost.size() == 2);
    assertThatThrownBy(rw.readLock()::unlock).isInstanceOf(LockLostException.class);
    assertThatThrownBy(other.readLock()::unlock).isInstanceOf(LockLostException.class);

    rw.writeLock().lock();
    assertThat(operator.inspect(name).isLocked()).isTrue();
    rw.writeLock().unlock();
  }

  @Test
  void theKeyPrefixApplies() {
    RedisLockFactory prefixed = factory(b -> b.keyPrefix("app:"));
    RedisDistributedLock lock = prefixed.getLock(name);
    lock.lock();
    try {
      assertThat(prefixed.inspect(name).isLocked()).isTrue();
      assertThat(factory().inspect(name).isLocked()).isFalse();
      assertThat(factory().inspect("app:" + name).isLocked()).isTrue();
    } finally {
      lock.unlock();
    }
  }

  @Test
  void badNamesAreRefused() {
    RedisLockFactory factory = factory();
    assertThatThrownBy(() -> factory.inspect(null)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> factory.forceUnlock("")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> factory.inspect("{a}:lock-meta"))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
