package io.github.redislock.spring.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.github.redislock.LockLostException;
import io.github.redislock.RedisLockException;
import io.github.redislock.RedisLockFactory;
import io.github.redislock.test.RedisLockExtension;
import io.github.redislock.test.ThrowawayRedis;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.integration.support.locks.DistributedLock;
import org.springframework.integration.support.locks.LockRegistry;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;
import redis.clients.jedis.Jedis;

/** The registry's locks are the factory's, with Spring Integration's forms on top. */
class RedisLockFactoryLockRegistryTest {
  @RegisterExtension
  static final RedisLockExtension redis =
      RedisLockExtension.withSettings(builder -> builder.keyPrefix("si:"));

  @Test
  void obtainReturnsOneObjectPerKeyForTheFactorysLockOfThatName(RedisLockFactory factory) {
    RedisLockFactoryLockRegistry registry = new RedisLockFactoryLockRegistry(factory);
    RegistryLock lock = registry.obtain("orders");

    assertThat(registry.obtain("orders")).isSameAs(lock);
    assertThat(registry.obtain("invoices")).isNotSameAs(lock);
    assertThat(lock.getKey()).isEqualTo("orders");
    assertThat(lock.getRedisLock().getName()).isEqualTo("orders");
    assertThat(new RedisLockFactoryLockRegistry(factory, "app").obtain("orders").getRedisLock())
        .extracting(l -> l.getName())
        .isEqualTo("app:orders");
    // Usable where Spring's RedisLockRegistry is: a LockRegistry<DistributedLock>.
    LockRegistry<DistributedLock> asSpringSeesIt = registry;
    assertThat(asSpringSeesIt.obtain("orders")).isSameAs(lock);
  }

  @Test
  void aHeldLockIsAKeyInRedisThatExcludesAnotherFactory(
      RedisLockFactory factory, ThrowawayRedis server) {
    RedisLockFactoryLockRegistry registry = new RedisLockFactoryLockRegistry(factory, "app");
    RegistryLock lock = registry.obtain("job");
    try (RedisLockFactory otherFactory = redis.factory();
        Jedis jedis = server.jedis()) {
      RegistryLock other = new RedisLockFactoryLockRegistry(otherFactory, "app").obtain("job");

      lock.lock();
      try {
        assertThat(jedis.exists("si:app:job")).isTrue();
        assertThat(other.tryLock()).as("held by the first factory").isFalse();
        assertThat(lock.tryLock()).as("reentrant").isTrue();
        assertThat(lock.getHoldCount()).isEqualTo(2);
        lock.unlock();
        assertThat(other.tryLock()).as("still held once").isFalse();
      } finally {
        lock.unlock();
      }

      assertThat(jedis.exists("si:app:job")).isFalse();
      assertThat(other.tryLock()).isTrue();
      other.unlock();
    }
  }

  @Test
  void twoRegistriesOnOneFactoryHandOutTheSameLocks(RedisLockFactory factory) {
    RegistryLock first = new RedisLockFactoryLockRegistry(factory).obtain("shared");
    RegistryLock second = new RedisLockFactoryLockRegistry(factory).obtain("shared");
    first.lock();
    try {
      assertThat(second.isHeldByCurrentThread()).isTrue();
      assertThat(second.tryLock()).as("re-entered through the other registry").isTrue();
      second.unlock();
    } finally {
      first.unlock();
    }
  }

  @Test
  void threadsOfTwoFactoriesNeverOverlapNorLoseAnUpdate(RedisLockFactory factory) throws Exception {
    int threads = 4;
    int rounds = 25;
    AtomicLong counter = new AtomicLong();
    AtomicInteger inside = new AtomicInteger();
    AtomicInteger mostInside = new AtomicInteger();
    try (RedisLockFactory otherFactory = redis.factory()) {
      List<RedisLockFactoryLockRegistry> registries =
          List.of(
              new RedisLockFactoryLockRegistry(factory),
              new RedisLockFactoryLockRegistry(otherFactory));
      ExecutorService pool = Executors.newFixedThreadPool(threads);
      try {
        CountDownLatch start = new CountDownLatch(1);
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
          RedisLockFactoryLockRegistry registry = registries.get(t % 2);
          done.add(
              pool.submit(
                  () -> {
                    start.await();
                    for (int i = 0; i < rounds; i++) {
                      registry.executeLocked(
                          "counter",
                          () -> {
                            mostInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
                            long seen = counter.get();
                            Thread.yield();
                            counter.set(seen + 1); // an update lost if two threads overlap
                            inside.decrementAndGet();
                          });
                    }
                    return null;
                  }));
        }
        start.countDown();
        for (Future<?> each : done) {
          each.get(2, TimeUnit.MINUTES);
        }
      } finally {
        pool.shutdownNow();
      }
    }
    assertThat(mostInside.get()).as("threads inside at once").isEqualTo(1);
    assertThat(counter.get()).isEqualTo((long) threads * rounds);
  }

  @Test
  void executeLockedReturnsTheResultAndReleases(RedisLockFactory factory) throws Exception {
    RedisLockFactoryLockRegistry registry = new RedisLockFactoryLockRegistry(factory);
    try (RedisLockFactory otherFactory = redis.factory()) {
      RegistryLock other = new RedisLockFactoryLockRegistry(otherFactory).obtain("task");

      String result =
          registry.executeLocked(
              "task",
              () -> {
                assertThat(registry.obtain("task").isHeldByCurrentThread()).isTrue();
                assertThat(other.tryLock()).isFalse();
                return "done";
              });
      assertThat(result).isEqualTo("done");
      assertThat(registry.obtain("task").isHeldByCurrentThread()).isFalse();

      assertThat(
              registry.executeLocked(
                  "task", Duration.ofSeconds(5), () -> registry.obtain("task").getHoldCount()))
          .isEqualTo(1);
      assertThat(other.tryLock()).as("released").isTrue();
      other.unlock();
    }
  }

  @Test
  void executeLockedPassesTheTasksExceptionAfterReleasing(RedisLockFactory factory) {
    RedisLockFactoryLockRegistry registry = new RedisLockFactoryLockRegistry(factory);
    IOException failure = new IOException("task failed");

    assertThatThrownBy(
            () ->
                registry.executeLocked(
                    "task",
                    () -> {
                      throw failure;
                    }))
        .isSameAs(failure);
    assertThat(failure.getSuppressed()).isEmpty();
    assertThat(registry.obtain("task").isHeldByCurrentThread()).isFalse();
    assertThat(factory.getLock("task").isLocked()).isFalse();
  }

  @Test
  void executeLockedTimesOutWhileAnotherFactoryHoldsTheLock(RedisLockFactory factory) {
    RedisLockFactoryLockRegistry registry = new RedisLockFactoryLockRegistry(factory);
    try (RedisLockFactory otherFactory = redis.factory()) {
      RegistryLock other = new RedisLockFactoryLockRegistry(otherFactory).obtain("busy");
      other.lock();
      try {
        AtomicInteger ran = new AtomicInteger();
        assertThatThrownBy(
                () ->
                    registry.executeLocked(
                        "busy",
                        Duration.ofMillis(200),
                        () -> {
                          ran.incrementAndGet();
                        }))
            .isInstanceOf(TimeoutException.class)
            .hasMessageContaining("busy");
        assertThat(ran).hasValue(0);
      } finally {
        other.unlock();
      }
    }
  }

  @Test
  void executeLockedReportsAHoldLostWhileTheTaskRan(RedisLockFactory factory) {
    RedisLockFactoryLockRegistry registry = new RedisLockFactoryLockRegistry(factory);
    try (RedisLockFactory otherFactory = redis.factory()) {
      assertThatThrownBy(
              () ->
                  registry.executeLocked(
                      "stolen",
                      () -> {
                        otherFactory.forceUnlock("stolen");
                      }))
          .isInstanceOf(LockLostException.class);

      IllegalStateException failure = new IllegalStateException("task failed");
      assertThatThrownBy(
              () ->
                  registry.executeLocked(
                      "stolen",
                      () -> {
                        otherFactory.forceUnlock("stolen");
                        throw failure;
                      }))
          .isSameAs(failure);
      assertThat(failure.getSuppressed()).singleElement().isInstanceOf(LockLostException.class);
    }
  }

  @Test
  void aKeyThatIsNotAStringIsRefusedClearly(RedisLockFactory factory) {
    RedisLockFactoryLockRegistry registry = new RedisLockFactoryLockRegistry(factory);

    assertThatThrownBy(() -> registry.obtain(42))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("must be a String")
        .hasMessageContaining("java.lang.Integer");
    assertThatThrownBy(() -> registry.obtain(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("must not be null");
    assertThatThrownBy(() -> registry.obtain(""))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("must not be empty");
    assertThatThrownBy(() -> registry.executeLocked(42L, () -> {}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("java.lang.Long");
    assertThatThrownBy(() -> registry.renewLock(null)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void aRedisKeyOfAnotherTypeIsAnErrorNotAWait(RedisLockFactory factory, ThrowawayRedis server) {
    try (Jedis jedis = server.jedis()) {
      jedis.rpush("si:a-list", "not a lock");
    }
    RegistryLock lock = new RedisLockFactoryLockRegistry(factory).obtain("a-list");

    assertThatThrownBy(lock::lock).isInstanceOf(RedisLockException.class);
    assertThatThrownBy(lock::tryLock).isInstanceOf(RedisLockException.class);
    assertThat(lock.isHeldByCurrentThread()).isFalse();
  }

  @Test
  void renewLockConfirmsAHoldTheFactoryRenews(RedisLockFactory factory) {
    RedisLockFactoryLockRegistry registry = new RedisLockFactoryLockRegistry(factory);
    assertThatThrownBy(() -> registry.renewLock("job"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("does not hold");

    RegistryLock lock = registry.obtain("job");
    lock.lock();
    try (RedisLockFactory otherFactory = redis.factory()) {
      registry.renewLock("job");
      registry.renewLock("job", Duration.ofMinutes(5));
      assertThat(lock.isHeldByCurrentThread()).isTrue();
      assertThat(otherFactory.getLock("job").tryLock()).isFalse();
      assertThatThrownBy(() -> registry.renewLock("job", Duration.ZERO))
          .isInstanceOf(IllegalArgumentException.class);
    } finally {
      lock.unlock();
    }
    assertThatThrownBy(() -> registry.renewLock("job")).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void renewLockRefusesAHoldTakenWithATimeToLive(RedisLockFactory factory) throws Exception {
    RedisLockFactoryLockRegistry registry = new RedisLockFactoryLockRegistry(factory);
    RegistryLock lock = registry.obtain("capped");

    lock.lock(Duration.ofMinutes(1));
    try {
      assertThatThrownBy(() -> registry.renewLock("capped", Duration.ofMinutes(1)))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("time-to-live");
      lock.lock(); // reentrant: keeps the hold's time-to-live
      lock.unlock();
      assertThatThrownBy(() -> registry.renewLock("capped"))
          .isInstanceOf(IllegalStateException.class);
    } finally {
      lock.unlock();
    }

    assertThat(lock.tryLock(Duration.ZERO, Duration.ofMinutes(1))).isTrue();
    try {
      assertThatThrownBy(() -> registry.renewLock("capped"))
          .isInstanceOf(IllegalStateException.class);
    } finally {
      lock.unlock();
    }

    lock.lock(); // a hold without a time-to-live again
    try {
      registry.renewLock("capped");
    } finally {
      lock.unlock();
    }
  }

  @Test
  void aHoldTakenWithATimeToLiveEndsAndIsReportedLost(ThrowawayRedis server) throws Exception {
    try (RedisLockFactory factory =
            RedisLockFactory.builder()
                .standalone(server.uri())
                .keyPrefix("si:")
                .leaseTime(Duration.ofMillis(500))
                .build();
        RedisLockFactory otherFactory = redis.factory()) {
      RedisLockFactoryLockRegistry registry = new RedisLockFactoryLockRegistry(factory);
      RegistryLock other = new RedisLockFactoryLockRegistry(otherFactory).obtain("ttl");

      for (boolean timed : new boolean[] {false, true}) {
        RegistryLock lock = registry.obtain("ttl");
        if (timed) {
          assertThat(lock.tryLock(Duration.ofSeconds(5), Duration.ofMillis(200))).isTrue();
        } else {
          lock.lock(Duration.ofMillis(200));
        }
        assertThat(other.tryLock()).isFalse();

        await().pollInSameThread().atMost(Duration.ofSeconds(30)).until(other::tryLock);
        other.unlock();
        assertThat(lock.isHeldByCurrentThread()).isFalse();
        assertThatThrownBy(lock::unlock).isInstanceOf(LockLostException.class);
      }
    }
  }

  @Test
  void aLostHoldCannotBeRenewed(ThrowawayRedis server) {
    try (RedisLockFactory factory =
            RedisLockFactory.builder()
                .standalone(server.uri())
                .keyPrefix("si:")
                .leaseTime(Duration.ofSeconds(1))
                .build();
        RedisLockFactory otherFactory = redis.factory()) {
      RedisLockFactoryLockRegistry registry = new RedisLockFactoryLockRegistry(factory);
      RegistryLock lock = registry.obtain("lost");
      lock.lock();
      otherFactory.forceUnlock("lost");

      await()
          .pollInSameThread()
          .atMost(Duration.ofSeconds(30))
          .until(() -> !lock.isHeldByCurrentThread());
      assertThatThrownBy(() -> registry.renewLock("lost"))
          .isInstanceOf(IllegalStateException.class);
      assertThatThrownBy(lock::unlock).isInstanceOf(LockLostException.class);
    }
  }

  @Test
  void unusedLocksAreDroppedAndLocksInUseKept(RedisLockFactory factory) {
    RedisLockFactoryLockRegistry registry = new RedisLockFactoryLockRegistry(factory);
    RegistryLock held = registry.obtain("held");
    RegistryLock unused = registry.obtain("unused");
    held.lock();
    try {
      registry.expireUnusedOlderThan(TimeUnit.DAYS.toMillis(1));
      assertThat(registry.obtain("unused")).as("used recently").isSameAs(unused);

      registry.expireUnusedOlderThan(-1);
      assertThat(registry.obtain("held")).as("held").isSameAs(held);
      assertThat(registry.obtain("unused")).as("dropped").isNotSameAs(unused);

      registry.setCacheCapacity(1);
      RegistryLock a = registry.obtain("a");
      RegistryLock b = registry.obtain("b");
      assertThat(registry.obtain("held")).as("held, beyond the capacity").isSameAs(held);
      assertThat(registry.obtain("b")).isSameAs(b);
      assertThat(registry.obtain("a")).as("the least recently obtained").isNotSameAs(a);
    } finally {
      held.unlock();
    }
    registry.expireUnusedOlderThan(-1);
    assertThat(registry.obtain("held")).as("released").isNotSameAs(held);
    assertThatThrownBy(() -> registry.setCacheCapacity(-1))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void conditionsAreNamedOnTheRedisLockAndARenewalSchedulerIsNotNeeded(RedisLockFactory factory) {
    RedisLockFactoryLockRegistry registry = new RedisLockFactoryLockRegistry(factory);
    RegistryLock lock = registry.obtain("cond");

    assertThatThrownBy(lock::newCondition)
        .isInstanceOf(UnsupportedOperationException.class)
        .hasMessageContaining("newCondition(name)");
    assertThat(lock.getRedisLock().newCondition("ready")).isNotNull();
    registry.setRenewalTaskScheduler(new ThreadPoolTaskScheduler());
    assertThatThrownBy(() -> registry.setRenewalTaskScheduler(null))
        .isInstanceOf(NullPointerException.class);
  }

  @Test
  void aHoldHasAFencingTokenThatGrows(RedisLockFactory factory) {
    RegistryLock lock = new RedisLockFactoryLockRegistry(factory).obtain("fenced");
    long first;
    lock.lock();
    try {
      first = lock.getFencingToken();
    } finally {
      lock.unlock();
    }
    lock.lock();
    try {
      assertThat(lock.getFencingToken()).isGreaterThan(first);
    } finally {
      lock.unlock();
    }
  }
}
