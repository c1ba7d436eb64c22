package io.github.redislock.shedlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.github.redislock.RedisLockException;
import io.github.redislock.RedisLockFactory;
import io.github.redislock.test.RedisLockExtension;
import io.github.redislock.test.ThrowawayRedis;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockExtender;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.support.LockException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.Jedis;

/**
 * What the provider adds to ShedLock's tests: the two nodes' view of lockAtLeastFor and of a dead
 * node's lock, locks that outlive their lease, extension through {@link LockExtender}, the limits
 * of a lease, and Redis failures.
 */
class RedisLockProviderTest {
  @RegisterExtension
  static final RedisLockExtension redis =
      RedisLockExtension.withSettings(
          builder -> builder.keyPrefix("app:").commandTimeout(Deployment.PATIENCE));

  private final String job = "job-" + UUID.randomUUID();

  private static LockConfiguration config(String name, Duration atMost, Duration atLeast) {
    return new LockConfiguration(ClockProvider.now(), name, atMost, atLeast);
  }

  private static Long ttlMillis(ThrowawayRedis server, String key) {
    try (Jedis jedis = server.jedis()) {
      return jedis.pttl(key);
    }
  }

  @Test
  void theKeyIsTheFactorysPrefixThenTheProvidersThenTheName(
      RedisLockFactory factory, ThrowawayRedis server) {
    SimpleLock plain =
        new RedisLockProvider(factory)
            .lock(config(job, Duration.ofMinutes(1), Duration.ZERO))
            .get();
    SimpleLock prefixed =
        new RedisLockProvider(factory, "jobs:")
            .lock(config(job, Duration.ofMinutes(1), Duration.ZERO))
            .get();

    try (Jedis jedis = server.jedis()) {
      assertThat(jedis.exists("app:" + job)).isTrue();
      assertThat(jedis.exists("app:jobs:" + job)).isTrue();
      plain.unlock();
      prefixed.unlock();
      assertThat(jedis.exists("app:" + job, "app:jobs:" + job)).isZero();
    }
  }

  @Test
  void theLeaseIsLockAtMostForAndIsNotRenewed(RedisLockFactory factory, ThrowawayRedis server) {
    SimpleLock lock =
        new RedisLockProvider(factory)
            .lock(config(job, Duration.ofSeconds(30), Duration.ZERO))
            .get();

    assertThat(ttlMillis(server, "app:" + job)).isBetween(1L, 30_000L);
    lock.unlock();
  }

  /**
   * Asserts that {@code node} finds the lock of {@code name} busy if it asks before {@code until}
   * (a machine that stalls past it makes the check moot), then waits until it can take the lock.
   */
  private static void busyUntilThenFree(RedisLockProvider node, String name, Instant until) {
    Optional<SimpleLock> early = node.lock(config(name, Duration.ofMinutes(1), Duration.ZERO));
    if (ClockProvider.now().isBefore(until)) {
      assertThat(early).as("asked before %s", until).isEmpty();
    }
    early.ifPresent(SimpleLock::unlock);
    SimpleLock later =
        await("the lock taken after " + until)
            .atMost(Duration.ofSeconds(30))
            .until(
                () -> node.lock(config(name, Duration.ofMinutes(1), Duration.ZERO)),
                Optional::isPresent)
            .get();
    later.unlock();
  }

  @Test
  void anotherNodeWaitsForLockAtLeastForAfterTheUnlock(
      RedisLockFactory factory, ThrowawayRedis server) {
    RedisLockProvider node1 = new RedisLockProvider(factory);
    try (RedisLockFactory otherFactory = redis.factory()) {
      LockConfiguration configuration = config(job, Duration.ofMinutes(1), Duration.ofSeconds(3));
      SimpleLock lock = node1.lock(configuration).get();

      lock.unlock();

      assertThat(ttlMillis(server, "app:" + job))
          .as("kept until lockAtLeastUntil, not lockAtMostUntil")
          .isLessThanOrEqualTo(3_000L)
          .isNotEqualTo(-1L);
      busyUntilThenFree(
          new RedisLockProvider(otherFactory), job, configuration.getLockAtLeastUntil());
    }
  }

  @Test
  void aDeadNodesLockIsFreeAgainAtLockAtMostUntil(RedisLockFactory factory) {
    RedisLockFactory dying = redis.factory();
    LockConfiguration configuration = config(job, Duration.ofSeconds(3), Duration.ZERO);
    assertThat(new RedisLockProvider(dying).lock(configuration)).isPresent();

    dying.close(); // as the process dies: nobody unlocks

    busyUntilThenFree(new RedisLockProvider(factory), job, configuration.getLockAtMostUntil());
  }

  @Test
  void aLockWhoseLeaseRanOutUnlocksWithoutThrowing(
      RedisLockFactory factory, ThrowawayRedis server) {
    SimpleLock lock =
        new RedisLockProvider(factory)
            .lock(config(job, Duration.ofMillis(200), Duration.ZERO))
            .get();
    await("the lease ran out")
        .atMost(Duration.ofSeconds(10))
        .until(() -> ttlMillis(server, "app:" + job) == -2L);

    lock.unlock(); // logged: the job outlived lockAtMostFor

    assertThatThrownBy(lock::unlock)
        .as("ShedLock's contract: a lock is unlocked once")
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void lockExtenderSetsTheLeaseAgainFromWithinTheJob(
      RedisLockFactory factory, ThrowawayRedis server) {
    DefaultLockingTaskExecutor executor =
        new DefaultLockingTaskExecutor(new RedisLockProvider(factory));
    long[] ttls = new long[2];

    executor.executeWithLock(
        (Runnable)
            () -> {
              ttls[0] = ttlMillis(server, "app:" + job);
              LockExtender.extendActiveLock(Duration.ofMinutes(10), Duration.ZERO);
              ttls[1] = ttlMillis(server, "app:" + job);
            },
        config(job, Duration.ofSeconds(30), Duration.ZERO));

    assertThat(ttls[0]).isBetween(1L, 30_000L);
    assertThat(ttls[1]).isGreaterThan(30_000L);
    assertThat(ttlMillis(server, "app:" + job)).as("unlocked after the job").isEqualTo(-2L);
  }

  @Test
  void lockAtMostForLongerThanADayIsRefused(RedisLockFactory factory) {
    RedisLockProvider provider = new RedisLockProvider(factory);

    assertThatThrownBy(() -> provider.lock(config(job, Duration.ofHours(25), Duration.ZERO)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(job);
    SimpleLock aDay = provider.lock(config(job, Duration.ofDays(1), Duration.ZERO)).get();
    aDay.unlock();
  }

  @Test
  void aLockAtMostUntilInThePastStillLocksForAMoment(RedisLockFactory factory) {
    LockConfiguration late =
        new LockConfiguration(
            ClockProvider.now().minusSeconds(5), job, Duration.ofSeconds(1), Duration.ZERO);

    Optional<SimpleLock> lock = new RedisLockProvider(factory).lock(late);

    assertThat(lock).isPresent();
    lock.get().unlock();
  }

  @Test
  void aFailingRedisIsALockExceptionNotABusyLock() {
    ThrowawayRedis doomed = ThrowawayRedis.start();
    try (RedisLockFactory factory =
        RedisLockFactory.builder()
            .standalone(doomed.uri())
            .commandTimeout(Duration.ofMillis(200))
            .build()) {
      RedisLockProvider provider = new RedisLockProvider(factory);
      SimpleLock held = provider.lock(config(job, Duration.ofMinutes(1), Duration.ZERO)).get();

      doomed.close();

      assertThatThrownBy(() -> provider.lock(config("other", Duration.ofMinutes(1), Duration.ZERO)))
          .isInstanceOf(LockException.class)
          .hasCauseInstanceOf(RedisLockException.class);
      assertThatThrownBy(held::unlock)
          .isInstanceOf(LockException.class)
          .hasCauseInstanceOf(RedisLockException.class);
    } finally {
      doomed.close();
    }
  }
}
