package io.github.redislock.fair;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

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
import java.util.concurrent.locks.Condition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.Jedis;

/**
 * Fair locks on one server: waiters of several factories (each standing for a process) acquire in
 * the order they reached Redis, whatever happens to the queue around them. The cross-process and
 * fault tests are in {@code FairProcessTest}; the {@code Lock} contract in the {@code
 * *FairLockContractTest} classes.
 */
@IntegrationTest
class FairLockTest {
  @RegisterExtension static final RedisServerExtension redis = new RedisServerExtension();
  private final List<RedisLockFactory> factories = new ArrayList<>();
  private ExecutorService threads;
  private String name;

  @BeforeEach
  void setUp(TestInfo info) {
    name = "fair:" + info.getTestMethod().orElseThrow().getName();
    threads = Executors.newCachedThreadPool();
  }

  @AfterEach
  void tearDown() throws InterruptedException {
    RedisInvariants.closeAfterTest(redis.server(), threads, factories);
  }

  private RedisLockFactory factory() {
    RedisLockFactory factory = RedisLockFactory.builder().standalone(redis.server().uri()).build();
    factories.add(factory);
    return factory;
  }

  private String queueKey() {
    return "{" + name + "}:lock-fq";
  }

  private String leasesKey() {
    return "{" + name + "}:lock-ft";
  }

  private long queued() {
    try (Jedis jedis = redis.server().jedis()) {
      return jedis.zcard(queueKey());
    }
  }

  private long evalshaCalls() {
    try (Jedis jedis = redis.server().jedis()) {
      return jedis
          .info("commandstats")
          .lines()
          .filter(line -> line.startsWith("cmdstat_evalsha:"))
          .mapToLong(line -> Long.parseLong(line.replaceAll("^[^:]*:calls=(\\d+),.*", "$1")))
          .sum();
    }
  }

  /**
   * Puts a waiter that will never come into the queue by hand, as a waiter whose process froze
   * right after queueing: place {@code sequence}, its lease running out in {@code lease}.
   */
  private void placeOfAWaiterThatNeverComes(String id, long sequence, Duration lease) {
    try (Jedis jedis = redis.server().jedis()) {
      List<String> time = jedis.time();
      long nowMillis = Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
      jedis.zadd(queueKey(), sequence, id);
      jedis.zadd(leasesKey(), nowMillis + lease.toMillis(), id);
      jedis.pexpire(queueKey(), 120_000);
      jedis.pexpire(leasesKey(), 120_000);
    }
  }

  /** Starts a thread that takes {@code lock} with {@code lock()}, notes {@code me}, unlocks. */
  private Future<?> queue(RedisDistributedLock lock, List<Integer> order, int me) {
    return threads.submit(
        () -> {
          lock.lock();
          try {
            order.add(me);
          } finally {
            lock.unlock();
          }
          return null;
        });
  }

  private static void awaitAll(List<Future<?>> futures) throws Exception {
    for (Future<?> future : futures) {
      future.get(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS);
    }
  }

  @Test
  void waitersOfEveryProcessAcquireInTheOrderTheyReachedRedis() throws Exception {
    RedisDistributedLock holder = factory().getFairLock(name);
    holder.lock();
    List<Integer> order = new CopyOnWriteArrayList<>();
    List<Future<?>> waiters = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      waiters.add(queue(factory().getFairLock(name), order, i)); // a factory each: a process each
      long expected = i + 1L;
      await().atMost(Timing.awaitAtMost()).until(() -> queued() == expected);
    }
    holder.unlock();
    awaitAll(waiters);
    assertThat(order).containsExactly(0, 1, 2, 3, 4);
    assertThat(queued()).isZero();
  }

  @Test
  void tryLockBargesAndATimedWaiterThatGivesUpLeavesTheQueue() throws Exception {
    RedisDistributedLock holder = factory().getFairLock(name);
    holder.lock();
    RedisDistributedLock other = factory().getFairLock(name);
    Future<Boolean> timed =
        threads.submit(
            () -> other.tryLock(Timing.scaled(Duration.ofMillis(300)).toMillis(), MILLISECONDS));
    await().atMost(Timing.awaitAtMost()).until(() -> queued() == 1);
    assertThat(timed.get()).isFalse();
    await().atMost(Timing.awaitAtMost()).until(() -> queued() == 0);
    holder.unlock();
    assertThat(other.tryLock()).isTrue();
    other.unlock();
  }

  @Test
  void zeroTimeoutTryLockHonoursTheQueueWhereTryLockBarges() throws Exception {
    placeOfAWaiterThatNeverComes("ghost", 1, Duration.ofMinutes(1));
    RedisDistributedLock lock = factory().getFairLock(name);

    assertThat(lock.tryLock(0, TimeUnit.SECONDS)).as("tryLock(0, unit) behind a waiter").isFalse();
    assertThat(queued()).as("places after tryLock(0, unit)").isEqualTo(1);
    assertThat(lock.tryLock()).as("tryLock() barges").isTrue();
    lock.unlock(); // hands the lock to the waiter that never comes
    assertThat(queued()).as("places after tryLock()").isZero();

    try (Jedis jedis = redis.server().jedis()) {
      assertThat(jedis.get(name)).isEqualTo("ghost");
      jedis.del(name);
    }
    assertThat(lock.tryLock(0, TimeUnit.SECONDS)).as("tryLock(0, unit), nobody queued").isTrue();
    lock.unlock();
  }

  @Test
  void aFirstWaiterThatNeverComesIsSkippedOnceItsPlaceRunsOutWhileTheNextWaitsQuietly()
      throws Exception {
    Duration ghostLease = Timing.scaled(Duration.ofSeconds(2));
    placeOfAWaiterThatNeverComes("ghost", 1, ghostLease);
    RedisDistributedLock lock = factory().getFairLock(name);
    long before = evalshaCalls();
    List<Integer> order = new CopyOnWriteArrayList<>();

    awaitAll(List.of(queue(lock, order, 1)));

    assertThat(order).containsExactly(1);
    assertThat(queued()).isZero();
    // Waiting behind a place for its lease takes a few attempts (each renews the waiter's own
    // place), not one every millisecond.
    assertThat(evalshaCalls() - before).as("scripts run while waiting").isLessThan(20);
  }

  @Test
  void aReleaseHandsTheLockToTheFirstWaiterWhoseGrantRunsOutWithItsPlaceIfItNeverComes()
      throws Exception {
    RedisDistributedLock holder = factory().getFairLock(name);
    holder.lock();
    Duration ghostLease = Timing.scaled(Duration.ofSeconds(2));
    placeOfAWaiterThatNeverComes("rl1:ghost", 1, ghostLease);
    List<Integer> order = new CopyOnWriteArrayList<>();
    Future<?> next = queue(factory().getFairLock(name), order, 1);
    await().atMost(Timing.awaitAtMost()).until(() -> queued() == 2);

    holder.unlock();

    try (Jedis jedis = redis.server().jedis()) {
      assertThat(jedis.get(name)).as("the lock key right after the release").isEqualTo("rl1:ghost");
      assertThat(jedis.pttl(name)).isBetween(1L, ghostLease.toMillis());
    }
    awaitAll(List.of(next));
    assertThat(order).containsExactly(1);
    assertThat(queued()).isZero();
  }

  @Test
  void theWaiterWokenByAHandOverHoldsTheLockWithoutAnotherAttempt() throws Exception {
    RedisDistributedLock holder = factory().getFairLock(name);
    holder.lock();
    RedisDistributedLock waiter = factory().getFairLock(name);
    java.util.concurrent.CountDownLatch acquired = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
    Future<?> waiting =
        threads.submit(
            () -> {
              waiter.lock();
              try {
                acquired.countDown();
                release.await();
              } finally {
                waiter.unlock();
              }
              return null;
            });
    await().atMost(Timing.awaitAtMost()).until(() -> queued() == 1);

    // The waiter's next re-check is about 1.5 s away: whatever runs now is the hand-over's.
    long before = evalshaCalls();
    holder.unlock();
    assertThat(acquired.await(Timing.awaitAtMost().toMillis(), MILLISECONDS)).isTrue();
    assertThat(evalshaCalls() - before).as("scripts run: the release alone").isEqualTo(1);
    release.countDown();
    waiting.get(Timing.awaitAtMost().toMillis(), MILLISECONDS);
  }

  @Test
  void anAwaitHandsTheLockToTheFirstWaiterAsAReleaseDoes() throws Exception {
    // The waiter a release names holds the lock on that message alone, so an await, which
    // releases the lock too, must hand the key to that waiter as fair_release.lua does: else the
    // waiter believes it holds a lock whose key is gone (anyone's tryLock() gets in), and its place
    // stays queued.
    RedisDistributedLock awaiter = factory().getFairLock(name);
    RedisDistributedLock waiter = factory().getFairLock(name); // another process
    Condition awaited = awaiter.newCondition();
    Condition signalled = waiter.newCondition();
    awaiter.lock();
    Future<String> handed =
        threads.submit(
            () -> {
              waiter.lock();
              try {
                String key;
                try (Jedis jedis = redis.server().jedis()) {
                  key = jedis.get(name);
                }
                signalled.signal(); // LockLostException unless the key holds the waiter's token
                return key;
              } finally {
                waiter.unlock();
              }
            });
    await().atMost(Timing.awaitAtMost()).until(() -> queued() == 1);

    boolean woken;
    try {
      woken = awaited.await(Timing.awaitAtMost().toMillis(), MILLISECONDS);
    } finally {
      awaiter.unlock();
    }

    assertThat(handed.get(Timing.awaitAtMost().toMillis(), MILLISECONDS))
        .as("the lock key while the waiter holds the lock")
        .isNotNull();
    assertThat(woken).as("signalled by the waiter").isTrue();
    assertThat(queued()).as("places left in the queue").isZero();
  }

  @Test
  void theQueueKeepsItsOrderWhenItsSequenceCounterIsLost() throws Exception {
    RedisDistributedLock holder = factory().getFairLock(name);
    holder.lock();
    List<Integer> order = new CopyOnWriteArrayList<>();
    List<Future<?>> waiters = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      if (i == 2) {
        try (Jedis jedis = redis.server().jedis()) {
          jedis.del("{" + name + "}:lock-meta"); // deleted or evicted: it has a TTL
        }
      }
      waiters.add(queue(factory().getFairLock(name), order, i));
      long expected = i + 1L;
      await().atMost(Timing.awaitAtMost()).until(() -> queued() == expected);
    }
    holder.unlock();
    awaitAll(waiters);
    assertThat(order).containsExactly(0, 1, 2);
  }

  @Test
  void aReleaseThatOthersWaitedForOwesNoYieldTheQueueGivesTheTurns() throws Exception {
    // A plain lock's next attempt after such a release gives way for a few milliseconds before it
    // tries; a fair waiter that did would not be queued meanwhile, and a waiter of another process
    // arriving later would pass it. The queue already gives the turns.
    RedisLockFactory releasing = factory();
    RedisDistributedLock holder = releasing.getFairLock(name);
    holder.lock();
    List<Integer> order = new CopyOnWriteArrayList<>();
    Future<?> waiter = queue(factory().getFairLock(name), order, 1);
    await().atMost(Timing.awaitAtMost()).until(() -> queued() == 1);
    holder.unlock();
    awaitAll(List.of(waiter));
    assertThat(releasing.activity().turnsGivenCount()).isZero();
  }

  @Test
  void closingAFactoryTakesTheQueuePlacesOfItsWaitersOut() throws Exception {
    RedisDistributedLock holder = factory().getFairLock(name);
    holder.lock();
    RedisLockFactory closing = factory();
    RedisDistributedLock waiter = closing.getFairLock(name);
    Future<?> waiting = threads.submit(() -> waiter.lock());
    await().atMost(Timing.awaitAtMost()).until(() -> queued() == 1);

    closing.close();

    assertThat(catchThrowable(() -> waiting.get(Timing.awaitAtMost().toMillis(), MILLISECONDS)))
        .hasCauseInstanceOf(IllegalStateException.class);
    await("the place of a waiter whose factory closed")
        .atMost(Timing.awaitAtMost())
        .until(() -> queued() == 0);
    holder.unlock();
  }

  private static final TimeUnit MILLISECONDS = TimeUnit.MILLISECONDS;
}
