package io.github.redislock.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.github.redislock.LockLostEvent;
import io.github.redislock.LockLostException;
import io.github.redislock.RedisDistributedLock;
import io.github.redislock.RedisLockException;
import io.github.redislock.RedisLockFactory;
import io.github.redislock.testing.IntegrationTest;
import io.github.redislock.testing.Timing;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.TestInstance;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.params.SetParams;

/**
 * The {@code Lock} contract, in the manner of the JDK's TCK: every method in each case (free,
 * reentrant, held elsewhere, interrupted, timed out, lost, Redis down), one property per test.
 * Subclasses name the deployment; the same suite runs against each.
 */
@IntegrationTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class LockContractTest {
  static final Duration SHORT_LEASE = Duration.ofMillis(600);

  private Deployment deployment;
  private final List<RedisLockFactory> factories = new CopyOnWriteArrayList<>();
  private final List<LockLostEvent> lostEvents = new CopyOnWriteArrayList<>();
  private ExecutorService threads;
  private String name;

  /** The threads a test runs beside its own: platform threads, unless a subclass says so. */
  protected ExecutorService newThreads() {
    return Executors.newCachedThreadPool();
  }

  /** Starts the deployment this subclass tests. */
  protected abstract Deployment startDeployment();

  @BeforeAll
  void startRedis() {
    deployment = startDeployment();
  }

  @AfterAll
  void stopRedis() {
    deployment.close();
  }

  @BeforeEach
  void setUp(TestInfo info) {
    name = "contract:" + info.getTestMethod().orElseThrow().getName() + ":" + System.nanoTime();
    threads = newThreads();
    lostEvents.clear();
  }

  @AfterEach
  void checkNothingLeaks() throws InterruptedException {
    threads.shutdownNow();
    assertThat(threads.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    for (RedisLockFactory factory : factories) {
      assertThat(factory.activity().renewingHoldCount()).as("renewals still running").isZero();
      await()
          .atMost(Timing.awaitAtMost())
          .untilAsserted(
              () ->
                  assertThat(factory.activity().subscribedChannelCount())
                      .as("wake-up channels still subscribed")
                      .isZero());
      factory.close();
    }
    factories.clear();
    // LeakCheck (@IntegrationTest) then checks threads, keys and subscriptions, and flushes.
  }

  // ---- helpers ----

  RedisLockFactory factory() {
    return factory(b -> {});
  }

  RedisLockFactory factory(Consumer<RedisLockFactory.Builder> settings) {
    RedisLockFactory.Builder builder = deployment.builder().onLockLost(lostEvents::add);
    settings.accept(builder);
    RedisLockFactory factory = builder.build();
    factories.add(factory);
    return factory;
  }

  /** The name of the lock this test uses. */
  String name() {
    return name;
  }

  /** The deployment under test. */
  Deployment deployment() {
    return deployment;
  }

  RedisDistributedLock lock() {
    return lockOf(factory(), name);
  }

  /**
   * The lock of {@code name} that the suite tests, from {@code factory}: the plain lock; a subclass
   * may test another kind (the fair lock) with the same properties.
   */
  protected RedisDistributedLock lockOf(RedisLockFactory factory, String name) {
    return factory.getLock(name);
  }

  /** Runs {@code command} on every server that keeps a copy of {@code key} (Redlock: all). */
  void onCopies(String key, Consumer<Jedis> command) {
    for (Jedis jedis : deployment.rawCopies(key)) {
      try (jedis) {
        command.accept(jedis);
      }
    }
  }

  /** Runs {@code command} on every server of the deployment. */
  void onAll(Consumer<Jedis> command) {
    for (Jedis jedis : deployment.rawAll()) {
      try (jedis) {
        command.accept(jedis);
      }
    }
  }

  /**
   * The value a majority of the servers hold for {@code key} (on one server: its value), or {@code
   * null}. A lock call returns once a majority answered, so a minority may lag.
   */
  String rawGet(String key) {
    Map<String, Integer> votes = new HashMap<>();
    List<Jedis> copies = deployment.rawCopies(key);
    for (Jedis jedis : copies) {
      try (jedis) {
        String value = jedis.get(key);
        if (value != null) {
          votes.merge(value, 1, Integer::sum);
        }
      }
    }
    return votes.entrySet().stream()
        .filter(e -> e.getValue() > copies.size() / 2)
        .map(Map.Entry::getKey)
        .findFirst()
        .orElse(null);
  }

  /** The longest remaining time to live of {@code key} on any server. */
  long rawPttl(String key) {
    long pttl = -2;
    for (Jedis jedis : deployment.rawCopies(key)) {
      try (jedis) {
        pttl = Math.max(pttl, jedis.pttl(key));
      }
    }
    return pttl;
  }

  /** Waits until every server holds the same value for {@code key}. */
  void awaitSettled(String key) {
    await()
        .atMost(Timing.awaitAtMost())
        .until(
            () -> {
              List<String> values = new ArrayList<>();
              onCopies(key, jedis -> values.add(jedis.get(key)));
              return values.stream().distinct().count() == 1;
            });
  }

  Map<String, Long> commandStats() {
    Map<String, Long> stats = new java.util.TreeMap<>();
    for (Jedis jedis : deployment.rawAll()) {
      try (jedis) {
        for (String line : jedis.info("commandstats").lines().toList()) {
          if (line.startsWith("cmdstat_")) {
            String calls = line.substring(line.indexOf("calls=") + 6);
            stats.merge(
                line.substring(8, line.indexOf(':')),
                Long.parseLong(calls.substring(0, calls.indexOf(','))),
                Long::sum);
          }
        }
      }
    }
    return stats;
  }

  long redisCalls() {
    long total = 0;
    for (Jedis jedis : deployment.rawAll()) {
      try (jedis) {
        for (String line : jedis.info("commandstats").lines().toList()) {
          // Left out: INFO and CLIENT, which the counting connection sends itself (Jedis sends
          // CLIENT SETINFO on connect; Redis 6.2 counts it as a failed call, 7.0 rejects it).
          String command = line.startsWith("cmdstat_") ? line.substring(8, line.indexOf(':')) : "";
          if (!command.isEmpty()
              && !command.equals("info")
              && !command.startsWith("client")
              && !deployment.backgroundCommands().contains(command)) {
            String calls = line.substring(line.indexOf("calls=") + 6);
            total += Long.parseLong(calls.substring(0, calls.indexOf(',')));
          }
        }
      }
    }
    return total;
  }

  /** A thread of this test that holds {@code lock} until {@link Holder#release()}. */
  Holder holdInOtherThread(RedisDistributedLock lock) throws Exception {
    Holder holder = new Holder(lock);
    threads.execute(holder);
    holder.acquired.await(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS);
    assertThat(holder.acquired.getCount()).isZero();
    return holder;
  }

  static final class Holder implements Runnable {
    final RedisDistributedLock lock;
    final CountDownLatch acquired = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);
    final CompletableFuture<Void> done = new CompletableFuture<>();
    volatile Thread thread;

    Holder(RedisDistributedLock lock) {
      this.lock = lock;
    }

    @Override
    public void run() {
      thread = Thread.currentThread();
      lock.lock();
      try {
        acquired.countDown();
        release.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } finally {
        try {
          lock.unlock();
          done.complete(null);
        } catch (RuntimeException e) {
          done.completeExceptionally(e);
        }
      }
    }

    void release() throws Exception {
      release.countDown();
      done.get(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS);
    }
  }

  /** Starts {@code task} on a thread of this test; see {@link Waiter#awaitWaiting()}. */
  <T> Waiter<T> startWaiter(java.util.concurrent.Callable<T> task) {
    Waiter<T> waiter = new Waiter<>();
    waiter.future =
        threads.submit(
            () -> {
              waiter.thread = Thread.currentThread();
              return task.call();
            });
    return waiter;
  }

  /** A thread of this test that takes {@code lock}, releases it and returns {@code true}. */
  Waiter<Boolean> lockAndUnlock(RedisDistributedLock lock) {
    return startWaiter(
        () -> {
          lock.lock();
          lock.unlock();
          return true;
        });
  }

  /** A task on its own thread that is expected to block in a lock method. */
  static final class Waiter<T> {
    volatile Thread thread;
    Future<T> future;

    Thread thread() {
      return thread;
    }

    /** Waits until the task's thread is parked, and checks that the task has not finished. */
    void awaitWaiting() {
      await()
          .atMost(Timing.awaitAtMost())
          .until(
              () ->
                  thread != null
                      && (thread.getState() == Thread.State.WAITING
                          || thread.getState() == Thread.State.TIMED_WAITING));
      assertThat(future).isNotDone();
    }

    T get(long timeout, TimeUnit unit) throws Exception {
      return future.get(timeout, unit);
    }
  }

  // ---- the lock is free ----

  @Nested
  class WhenFree {
    @Test
    void lockAcquiresWithHoldCountOne() {
      RedisDistributedLock lock = lock();
      lock.lock();
      try {
        assertThat(lock.isHeldByCurrentThread()).isTrue();
        assertThat(lock.getHoldCount()).isEqualTo(1);
      } finally {
        lock.unlock();
      }
    }

    @Test
    void tryLockReturnsTrue() {
      RedisDistributedLock lock = lock();
      assertThat(lock.tryLock()).isTrue();
      lock.unlock();
    }

    @Test
    void timedTryLockReturnsTrue() throws InterruptedException {
      RedisDistributedLock lock = lock();
      assertThat(lock.tryLock(1, TimeUnit.SECONDS)).isTrue();
      lock.unlock();
    }

    @Test
    void timedTryLockWithZeroTimeoutMakesOneAttempt() throws InterruptedException {
      RedisDistributedLock lock = lock();
      assertThat(lock.tryLock(0, TimeUnit.SECONDS)).isTrue();
      lock.unlock();
      assertThat(lock.tryLock(-5, TimeUnit.SECONDS)).isTrue();
      lock.unlock();
    }

    @Test
    void lockInterruptiblyAcquires() throws InterruptedException {
      RedisDistributedLock lock = lock();
      lock.lockInterruptibly();
      assertThat(lock.isHeldByCurrentThread()).isTrue();
      lock.unlock();
    }

    @Test
    void lockSetsTheKeyToARandomTokenWithTheLease() {
      RedisDistributedLock lock = lockOf(factory(b -> b.leaseTime(Duration.ofSeconds(20))), name);
      lock.lock();
      try {
        assertThat(rawGet(name)).startsWith("rl1:").hasSize(4 + 32);
        assertThat(rawPttl(name)).isBetween(1L, 20_000L);
      } finally {
        lock.unlock();
      }
    }

    @Test
    void eachHoldHasANewToken() {
      RedisDistributedLock lock = lock();
      lock.lock();
      String first = rawGet(name);
      lock.unlock();
      lock.lock();
      String second = rawGet(name);
      lock.unlock();
      assertThat(second).isNotEqualTo(first);
    }

    @Test
    void unlockDeletesTheKey() {
      RedisDistributedLock lock = lock();
      lock.lock();
      lock.unlock();
      assertThat(rawGet(name)).isNull();
      assertThat(lock.isHeldByCurrentThread()).isFalse();
      assertThat(lock.getHoldCount()).isZero();
    }

    @Test
    void isLockedIsFalse() {
      assertThat(lock().isLocked()).isFalse();
    }

    @Test
    void noThreadIsQueued() {
      RedisDistributedLock lock = lock();
      assertThat(lock.getQueueLength()).isZero();
      assertThat(lock.hasQueuedThreads()).isFalse();
      lock.lock();
      try {
        assertThat(lock.getQueueLength()).as("the holder does not wait").isZero();
      } finally {
        lock.unlock();
      }
    }

    @Test
    void unlockWithoutHoldingThrowsIllegalMonitorState() {
      RedisDistributedLock lock = lock();
      assertThatThrownBy(lock::unlock)
          .isInstanceOf(IllegalMonitorStateException.class)
          .isNotInstanceOf(LockLostException.class)
          .hasMessageContaining(name);
    }

    @Test
    void fencingTokenWithoutHoldingThrowsIllegalMonitorState() {
      assertThatThrownBy(lock()::getFencingToken).isInstanceOf(IllegalMonitorStateException.class);
    }
  }

  // ---- the current thread holds it ----

  @Nested
  class WhenHeldByCurrentThread {
    @Test
    void lockIncrementsTheHoldCount() {
      RedisDistributedLock lock = lock();
      lock.lock();
      lock.lock();
      assertThat(lock.getHoldCount()).isEqualTo(2);
      lock.unlock();
      lock.unlock();
    }

    @Test
    void reentrantAcquireAndInnerReleaseMakeNoRedisCall() throws InterruptedException {
      RedisDistributedLock lock = lock();
      lock.lock();
      try {
        lock.getFencingToken(); // under Redlock the first call raises the majority's counters
        awaitSettled(name);
        Map<String, Long> beforeStats = commandStats();
        long before = redisCalls();
        lock.lock();
        assertThat(lock.tryLock()).isTrue();
        assertThat(lock.tryLock(1, TimeUnit.SECONDS)).isTrue();
        lock.lockInterruptibly();
        lock.getHoldCount();
        lock.isHeldByCurrentThread();
        lock.getFencingToken();
        lock.unlock();
        lock.unlock();
        lock.unlock();
        lock.unlock();
        assertThat(redisCalls())
            .as("commands: before %s, after %s", beforeStats, commandStats())
            .isEqualTo(before);
      } finally {
        lock.unlock();
      }
    }

    @Test
    void innerUnlockKeepsTheKey() {
      RedisDistributedLock lock = lock();
      lock.lock();
      lock.lock();
      lock.unlock();
      assertThat(rawGet(name)).isNotNull();
      assertThat(lock.isHeldByCurrentThread()).isTrue();
      lock.unlock();
      assertThat(rawGet(name)).isNull();
    }

    @Test
    void anotherInstanceOfTheSameNameIsTheSameLock() {
      RedisLockFactory factory = factory();
      RedisDistributedLock first = lockOf(factory, name);
      RedisDistributedLock second = lockOf(factory, name);
      first.lock();
      assertThat(second.tryLock()).isTrue();
      assertThat(second.getHoldCount()).isEqualTo(2);
      second.unlock();
      first.unlock();
    }

    @Test
    void isLockedIsTrue() {
      RedisDistributedLock lock = lock();
      lock.lock();
      try {
        assertThat(lock.isLocked()).isTrue();
      } finally {
        lock.unlock();
      }
    }

    @Test
    void fencingTokenIsPositiveAndStableWhileHeld() {
      RedisDistributedLock lock = lock();
      lock.lock();
      try {
        long token = lock.getFencingToken();
        assertThat(token).isPositive();
        lock.lock();
        assertThat(lock.getFencingToken()).isEqualTo(token);
        lock.unlock();
      } finally {
        lock.unlock();
      }
    }

    @Test
    void holdIsRenewedBeyondTheLease() {
      RedisDistributedLock lock = lockOf(factory(b -> b.leaseTime(SHORT_LEASE)), name);
      lock.lock();
      try {
        String token = rawGet(name);
        // Several leases pass: the key is still ours only if renewal extended it.
        long until = System.nanoTime() + 4 * SHORT_LEASE.toNanos();
        await().atMost(Timing.awaitAtMost()).until(() -> System.nanoTime() - until > 0);
        assertThat(rawGet(name)).isEqualTo(token);
        assertThat(lock.isHeldByCurrentThread()).isTrue();
      } finally {
        lock.unlock();
      }
      assertThat(lostEvents).isEmpty();
    }
  }

  // ---- another thread, here or elsewhere, holds it ----

  @Nested
  class WhenHeldElsewhere {
    @Test
    void tryLockReturnsFalseWhileAnotherThreadHoldsIt() throws Exception {
      RedisDistributedLock lock = lock();
      Holder holder = holdInOtherThread(lock);
      assertThat(lock.tryLock()).isFalse();
      assertThat(lock.isHeldByCurrentThread()).isFalse();
      holder.release();
    }

    @Test
    void tryLockReturnsFalseWhileAnotherFactoryHoldsIt() throws Exception {
      Holder holder = holdInOtherThread(lockOf(factory(), name));
      assertThat(lock().tryLock()).isFalse();
      holder.release();
    }

    @Test
    void timedTryLockReturnsFalseWhenTheTimeElapses() throws Exception {
      Holder holder = holdInOtherThread(lockOf(factory(), name));
      assertThat(lock().tryLock(200, TimeUnit.MILLISECONDS)).isFalse();
      holder.release();
    }

    @Test
    void timedTryLockAcquiresWhenReleasedInTime() throws Exception {
      Holder holder = holdInOtherThread(lockOf(factory(), name));
      RedisDistributedLock lock = lock();
      Waiter<Boolean> result =
          startWaiter(
              () -> {
                boolean acquired =
                    lock.tryLock(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS);
                if (acquired) {
                  lock.unlock();
                }
                return acquired;
              });
      result.awaitWaiting();
      holder.release();
      assertThat(result.get(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS)).isTrue();
    }

    @Test
    void lockWaitsUntilTheHolderInAnotherFactoryReleases() throws Exception {
      Holder holder = holdInOtherThread(lockOf(factory(), name));
      RedisDistributedLock lock = lock();
      Waiter<Long> result =
          startWaiter(
              () -> {
                lock.lock();
                try {
                  return lock.getFencingToken();
                } finally {
                  lock.unlock();
                }
              });
      result.awaitWaiting();
      holder.release();
      assertThat(result.get(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS)).isPositive();
    }

    @Test
    void lockWaitsUntilAnotherThreadOfTheSameFactoryReleases() throws Exception {
      RedisDistributedLock lock = lock();
      Holder holder = holdInOtherThread(lock);
      Waiter<Boolean> result =
          startWaiter(
              () -> {
                lock.lock();
                lock.unlock();
                return true;
              });
      result.awaitWaiting();
      holder.release();
      assertThat(result.get(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS)).isTrue();
    }

    @Test
    void lockInterruptiblyWaitsUntilReleased() throws Exception {
      Holder holder = holdInOtherThread(lockOf(factory(), name));
      RedisDistributedLock lock = lock();
      Waiter<Boolean> result =
          startWaiter(
              () -> {
                lock.lockInterruptibly();
                lock.unlock();
                return true;
              });
      result.awaitWaiting();
      holder.release();
      assertThat(result.get(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS)).isTrue();
    }

    @Test
    void queueLengthCountsThisJvmsThreadsWaitingForAHolderElsewhere() throws Exception {
      RedisDistributedLock elsewhere = lockOf(factory(), name);
      Holder holder = holdInOtherThread(elsewhere);
      RedisDistributedLock lock = lock();
      List<Waiter<Boolean>> waiters = List.of(lockAndUnlock(lock), lockAndUnlock(lock));
      await().atMost(Timing.awaitAtMost()).until(() -> lock.getQueueLength() == 2);
      assertThat(lock.hasQueuedThreads()).isTrue();
      assertThat(elsewhere.getQueueLength()).as("other processes' waiters").isZero();
      holder.release();
      for (Waiter<Boolean> waiter : waiters) {
        assertThat(waiter.get(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS)).isTrue();
      }
      assertThat(lock.getQueueLength()).isZero();
      assertThat(lock.hasQueuedThreads()).isFalse();
    }

    @Test
    void queueLengthCountsThreadsQueuedBehindAHolderOfThisJvm() throws Exception {
      RedisDistributedLock lock = lock();
      Holder holder = holdInOtherThread(lock);
      List<Waiter<Boolean>> waiters = List.of(lockAndUnlock(lock), lockAndUnlock(lock));
      await().atMost(Timing.awaitAtMost()).until(() -> lock.getQueueLength() == 2);
      assertThat(lock.hasQueuedThreads()).isTrue();
      holder.release();
      for (Waiter<Boolean> waiter : waiters) {
        assertThat(waiter.get(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS)).isTrue();
      }
      assertThat(lock.getQueueLength()).isZero();
    }

    @Test
    void unlockByANonOwnerThreadThrowsIllegalMonitorState() throws Exception {
      RedisDistributedLock lock = lock();
      Holder holder = holdInOtherThread(lock);
      assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class);
      assertThat(rawGet(name)).isNotNull();
      holder.release();
    }

    @Test
    void isLockedIsTrue() throws Exception {
      Holder holder = holdInOtherThread(lockOf(factory(), name));
      assertThat(lock().isLocked()).isTrue();
      holder.release();
    }

    @Test
    void fencingTokensIncreaseFromHolderToHolder() {
      List<Long> tokens = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        RedisDistributedLock lock = lockOf(factory(), name);
        lock.lock();
        tokens.add(lock.getFencingToken());
        lock.unlock();
      }
      assertThat(tokens).isSorted().doesNotHaveDuplicates();
    }

    @Test
    void fencingTokensIncreaseWhetherIssuedWithTheAcquisitionOrWhenFirstAskedFor() {
      // A factory issues tokens when first asked for until it was asked once, then with every
      // acquisition; holders that never ask get none. All of them must interleave in order.
      RedisLockFactory asking = factory();
      List<Long> tokens = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        RedisDistributedLock eager = lockOf(asking, name);
        eager.lock();
        tokens.add(eager.getFencingToken());
        eager.unlock();
        RedisDistributedLock silent = lockOf(factory(), name);
        silent.lock();
        silent.unlock();
        RedisDistributedLock lazy = lockOf(factory(), name);
        lazy.lock();
        tokens.add(lazy.getFencingToken());
        assertThat(lazy.getFencingToken()).isEqualTo(tokens.get(tokens.size() - 1));
        lazy.unlock();
      }
      assertThat(tokens).isSorted().doesNotHaveDuplicates();
    }

    @Test
    void fencingTokensKeepIncreasingAfterTheCounterIsDeleted() {
      RedisDistributedLock lock = lock();
      lock.lock();
      long first = lock.getFencingToken();
      lock.unlock();
      onCopies(name, Jedis::flushAll);
      lock.lock();
      long second = lock.getFencingToken();
      lock.unlock();
      assertThat(second).isGreaterThan(first);
    }
  }

  // ---- interrupts ----

  @Nested
  class WhenInterrupted {
    @Test
    void lockInterruptiblyThrowsWhenInterruptedWhileWaiting() throws Exception {
      Holder holder = holdInOtherThread(lockOf(factory(), name));
      String holderToken = rawGet(name);
      RedisDistributedLock lock = lock();
      Waiter<Throwable> result =
          startWaiter(
              () -> {
                try {
                  lock.lockInterruptibly();
                  return null;
                } catch (InterruptedException e) {
                  return e;
                }
              });
      result.awaitWaiting();
      result.thread().interrupt();
      assertThat(result.get(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS))
          .isInstanceOf(InterruptedException.class);
      assertThat(rawGet(name)).isEqualTo(holderToken);
      holder.release();
      assertThat(rawGet(name)).isNull();
    }

    @Test
    void lockInterruptiblyThrowsWhenAlreadyInterrupted() {
      RedisDistributedLock lock = lock();
      Thread.currentThread().interrupt();
      assertThatThrownBy(lock::lockInterruptibly).isInstanceOf(InterruptedException.class);
      assertThat(Thread.interrupted()).isFalse();
      assertThat(rawGet(name)).isNull();
    }

    @Test
    void timedTryLockThrowsWhenAlreadyInterrupted() {
      RedisDistributedLock lock = lock();
      Thread.currentThread().interrupt();
      assertThatThrownBy(() -> lock.tryLock(1, TimeUnit.SECONDS))
          .isInstanceOf(InterruptedException.class);
      assertThat(rawGet(name)).isNull();
    }

    @Test
    void timedTryLockThrowsWhenInterruptedWhileWaiting() throws Exception {
      Holder holder = holdInOtherThread(lockOf(factory(), name));
      RedisDistributedLock lock = lock();
      Waiter<Throwable> result =
          startWaiter(
              () -> {
                try {
                  lock.tryLock(1, TimeUnit.HOURS);
                  return null;
                } catch (InterruptedException e) {
                  return e;
                }
              });
      result.awaitWaiting();
      result.thread().interrupt();
      assertThat(result.get(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS))
          .isInstanceOf(InterruptedException.class);
      holder.release();
      assertThat(rawGet(name)).isNull();
    }

    @Test
    void lockKeepsWaitingThroughAnInterruptAndRestoresTheFlag() throws Exception {
      Holder holder = holdInOtherThread(lockOf(factory(), name));
      RedisDistributedLock lock = lock();
      Waiter<Boolean> result =
          startWaiter(
              () -> {
                lock.lock();
                boolean interrupted = Thread.currentThread().isInterrupted();
                lock.unlock();
                return interrupted;
              });
      result.awaitWaiting();
      result.thread().interrupt();
      result.awaitWaiting(); // still waiting after the interrupt
      holder.release();
      assertThat(result.get(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS)).isTrue();
    }

    @Test
    void interruptedLocalWaiterLeavesTheQueue() throws Exception {
      RedisDistributedLock lock = lock();
      Holder holder = holdInOtherThread(lock);
      Waiter<Throwable> result =
          startWaiter(
              () -> {
                try {
                  lock.lockInterruptibly();
                  return null;
                } catch (InterruptedException e) {
                  return e;
                }
              });
      result.awaitWaiting();
      result.thread().interrupt();
      assertThat(result.get(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS))
          .isInstanceOf(InterruptedException.class);
      holder.release();
      assertThat(lock.tryLock()).isTrue();
      lock.unlock();
    }
  }

  // ---- the hold was lost ----

  @Nested
  class WhenLost {
    private RedisDistributedLock heldWithShortLease() {
      RedisDistributedLock lock = lockOf(factory(b -> b.leaseTime(SHORT_LEASE)), name);
      lock.lock();
      return lock;
    }

    private void awaitLost(RedisDistributedLock lock) {
      await()
          .atMost(Timing.awaitAtMost())
          .pollInSameThread()
          .until(() -> !lock.isHeldByCurrentThread());
    }

    @Test
    void deletedKeyIsReportedLostAndUnlockThrowsLockLost() {
      RedisDistributedLock lock = heldWithShortLease();
      onCopies(name, jedis -> jedis.del(name));
      awaitLost(lock);
      assertThat(lock.getHoldCount()).isZero();
      assertThatThrownBy(lock::unlock)
          .isInstanceOf(LockLostException.class)
          .hasMessageContaining(name);
      assertThatThrownBy(lock::unlock)
          .isInstanceOf(IllegalMonitorStateException.class)
          .isNotInstanceOf(LockLostException.class);
    }

    @Test
    void keyTakenByAnotherOwnerIsReportedLost() {
      RedisDistributedLock lock = heldWithShortLease();
      long token = lock.getFencingToken();
      onCopies(name, jedis -> jedis.set(name, "someone-else", SetParams.setParams().px(60_000)));
      awaitLost(lock);
      await().atMost(Timing.awaitAtMost()).until(() -> lostEvents.size() == 1);
      assertThat(lostEvents.get(0).lockName()).isEqualTo(name);
      assertThat(lostEvents.get(0).fencingToken()).isEqualTo(token);
      assertThatThrownBy(lock::unlock).isInstanceOf(LockLostException.class);
      assertThat(rawGet(name)).isEqualTo("someone-else");
      onCopies(name, jedis -> jedis.del(name));
    }

    @Test
    void listenerIsCalledOncePerLostHold() {
      RedisDistributedLock lock = heldWithShortLease();
      onCopies(name, jedis -> jedis.del(name));
      awaitLost(lock);
      await().atMost(Timing.awaitAtMost()).until(() -> !lostEvents.isEmpty());
      assertThatThrownBy(lock::unlock).isInstanceOf(LockLostException.class);
      assertThat(lostEvents).hasSize(1);
    }

    @Test
    void reentrantLockOnALostHoldThrowsLockLost() {
      RedisDistributedLock lock = heldWithShortLease();
      onCopies(name, jedis -> jedis.del(name));
      awaitLost(lock);
      assertThat(lock.isHeldByCurrentThread()).isFalse();
      assertThatThrownBy(lock::getFencingToken).isInstanceOf(LockLostException.class);
      assertThatThrownBy(lock::lock).as("learns of the loss").isInstanceOf(LockLostException.class);
      assertThatThrownBy(lock::unlock)
          .as("once only")
          .isInstanceOf(IllegalMonitorStateException.class)
          .isNotInstanceOf(LockLostException.class);
      assertThat(lock.tryLock()).isTrue();
      lock.unlock();
    }

    @Test
    void closingTheFactoryLosesHoldsWithoutReleasingThem() {
      RedisLockFactory factory = factory();
      RedisDistributedLock lock = lockOf(factory, name);
      lock.lock();
      factory.close();
      assertThat(rawGet(name)).isNotNull();
      assertThat(lock.isHeldByCurrentThread()).isFalse();
      assertThatThrownBy(lock::unlock).isInstanceOf(LockLostException.class);
      assertThat(lostEvents).hasSize(1);
      onCopies(name, jedis -> jedis.del(name));
    }

    @Test
    void closedFactoryRejectsNewAcquisitions() {
      RedisLockFactory factory = factory();
      RedisDistributedLock lock = lockOf(factory, name);
      factory.close();
      assertThatThrownBy(lock::lock).isInstanceOf(IllegalStateException.class);
      assertThatThrownBy(() -> lockOf(factory, name)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void closingTheFactoryWakesItsWaiters() throws Exception {
      Holder holder = holdInOtherThread(lockOf(factory(), name));
      RedisLockFactory factory = factory();
      RedisDistributedLock lock = lockOf(factory, name);
      AtomicReference<Throwable> failure = new AtomicReference<>();
      Waiter<?> result =
          startWaiter(
              () -> {
                try {
                  lock.lock();
                } catch (RuntimeException e) {
                  failure.set(e);
                }
                return null;
              });
      result.awaitWaiting();
      factory.close();
      result.get(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS);
      assertThat(failure.get()).isInstanceOf(IllegalStateException.class);
      holder.release();
    }
  }

  // ---- Redis is down ----

  @Nested
  class WhenRedisIsDown {
    @Test
    void tryLockThrowsRedisLockException() {
      RedisDistributedLock lock = lock();
      deployment.stop();
      try {
        assertThatThrownBy(lock::tryLock)
            .isInstanceOf(RedisLockException.class)
            .hasRootCauseInstanceOf(redis.clients.jedis.exceptions.JedisException.class);
      } finally {
        deployment.restart();
      }
    }

    @Test
    void timedTryLockThrowsRedisLockException() {
      RedisDistributedLock lock = lock();
      deployment.stop();
      try {
        assertThatThrownBy(() -> lock.tryLock(300, TimeUnit.MILLISECONDS))
            .isInstanceOf(RedisLockException.class);
      } finally {
        deployment.restart();
      }
    }

    @Test
    void isLockedThrowsRedisLockException() {
      RedisDistributedLock lock = lock();
      deployment.stop();
      try {
        assertThatThrownBy(lock::isLocked).isInstanceOf(RedisLockException.class);
      } finally {
        deployment.restart();
      }
    }

    @Test
    void lockRetriesUntilRedisIsBack() throws Exception {
      RedisDistributedLock lock = lock();
      deployment.stop();
      Waiter<Long> result =
          startWaiter(
              () -> {
                lock.lock();
                try {
                  return lock.getFencingToken();
                } finally {
                  lock.unlock();
                }
              });
      try {
        result.awaitWaiting();
      } finally {
        deployment.restart();
      }
      assertThat(result.get(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS)).isPositive();
    }

    @Test
    void lockInterruptiblyCanBeInterruptedWhileRedisIsDown() throws Exception {
      RedisDistributedLock lock = lock();
      deployment.stop();
      Waiter<Throwable> result =
          startWaiter(
              () -> {
                try {
                  lock.lockInterruptibly();
                  return null;
                } catch (InterruptedException e) {
                  return e;
                }
              });
      try {
        result.awaitWaiting();
        result.thread().interrupt();
        assertThat(result.get(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS))
            .isInstanceOf(InterruptedException.class);
      } finally {
        deployment.restart();
      }
    }

    @Test
    void unlockThrowsRedisLockExceptionAndClearsTheLocalHold() {
      RedisDistributedLock lock = lock();
      lock.lock();
      deployment.stop();
      try {
        assertThatThrownBy(lock::unlock)
            .isInstanceOf(RedisLockException.class)
            .isNotInstanceOf(LockLostException.class);
        assertThat(lock.isHeldByCurrentThread()).isFalse();
        assertThat(lock.getHoldCount()).isZero();
        assertThatThrownBy(lock::unlock)
            .as("a second unlock: the hold is gone")
            .isInstanceOf(IllegalMonitorStateException.class)
            .isNotInstanceOf(LockLostException.class);
      } finally {
        deployment.restart();
      }
      RedisDistributedLock again = lock();
      assertThat(again.tryLock()).isTrue();
      again.unlock();
    }

    @Test
    void holdIsReportedLostWhenRedisRestartsEmpty() {
      RedisDistributedLock lock = lockOf(factory(b -> b.leaseTime(SHORT_LEASE)), name);
      lock.lock();
      deployment.stop();
      deployment.restart();
      await()
          .atMost(Timing.awaitAtMost())
          .pollInSameThread()
          .until(() -> !lock.isHeldByCurrentThread());
      assertThatThrownBy(lock::unlock).isInstanceOf(LockLostException.class);
      await().atMost(Timing.awaitAtMost()).until(() -> lostEvents.size() == 1);
    }
  }

  // ---- interoperability and odd keys ----

  @Nested
  class OnTheWire {
    @Test
    void rawSetNxFailsWhileHeld() {
      RedisDistributedLock lock = lock();
      lock.lock();
      try {
        awaitSettled(name);
        onCopies(
            name,
            jedis ->
                assertThat(jedis.set(name, "other", SetParams.setParams().nx().px(10_000)))
                    .isNull());
      } finally {
        lock.unlock();
      }
    }

    @Test
    void rawHolderBlocksTryLock() {
      onCopies(name, jedis -> jedis.set(name, "other", SetParams.setParams().nx().px(10_000)));
      assertThat(lock().tryLock()).isFalse();
      assertThat(rawGet(name)).isEqualTo("other");
      onCopies(name, jedis -> jedis.del(name));
    }

    @Test
    void rawDeleteLetsAWaitingLockIn() throws Exception {
      onCopies(name, jedis -> jedis.set(name, "other", SetParams.setParams().nx().px(60_000)));
      RedisDistributedLock lock = lock();
      Waiter<String> result =
          startWaiter(
              () -> {
                lock.lock();
                try {
                  return rawGet(name);
                } finally {
                  lock.unlock();
                }
              });
      result.awaitWaiting();
      onCopies(name, jedis -> jedis.del(name));
      assertThat(result.get(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS))
          .startsWith("rl1:");
    }

    @Test
    void rawHolderWithoutExpiryIsWaitedForNotOverwritten() throws Exception {
      onCopies(name, jedis -> jedis.set(name, "forever"));
      assertThat(lock().tryLock(200, TimeUnit.MILLISECONDS)).isFalse();
      assertThat(rawGet(name)).isEqualTo("forever");
      onCopies(name, jedis -> jedis.del(name));
    }

    @Test
    void keyOfTheWrongTypeIsAClearError() {
      onCopies(
          name,
          jedis -> {
            jedis.lpush(name, "not a lock");
            jedis.pexpire(name, 60_000);
          });
      RedisDistributedLock lock = lock();
      assertThatThrownBy(lock::tryLock)
          .isInstanceOf(RedisLockException.class)
          .hasMessageContaining("WRONGTYPE");
      assertThatThrownBy(lock::lock)
          .isInstanceOf(RedisLockException.class)
          .hasMessageContaining("WRONGTYPE");
      onCopies(name, jedis -> assertThat(jedis.type(name)).isEqualTo("list"));
      onCopies(name, jedis -> jedis.del(name));
    }

    /** The fencing counter's expiry, shortened well below its time to live of at least 1 min. */
    private static final long SHORTENED_MILLIS = 30_000;

    /** The companion hash of {@code name}, which holds the fencing counter. */
    private String counterKey() {
      return "{" + name + "}:lock-meta";
    }

    /** Shortens the counter's expiry on every server that has it. */
    private void shortenCounter() {
      await()
          .atMost(Timing.awaitAtMost())
          .untilAsserted(
              () -> onCopies(name, jedis -> assertThat(jedis.exists(counterKey())).isTrue()));
      onCopies(name, jedis -> jedis.pexpire(counterKey(), SHORTENED_MILLIS));
    }

    /** Waits until every server's counter has its full time to live again. */
    private void awaitCounterRefreshed(String cause) {
      await(cause + " refreshes the counter's expiry")
          .atMost(Timing.awaitAtMost())
          .untilAsserted(
              () ->
                  onCopies(
                      name,
                      jedis ->
                          assertThat(jedis.pttl(counterKey())).isGreaterThan(SHORTENED_MILLIS)));
    }

    @Test
    void aTokenIssuedWithTheAcquisitionRefreshesTheCountersExpiry() {
      RedisDistributedLock lock = lock();
      lock.lock();
      lock.getFencingToken(); // from now on the factory issues tokens with every acquisition
      lock.unlock();
      shortenCounter();
      lock.lock();
      try {
        awaitCounterRefreshed("the acquisition's token");
      } finally {
        lock.unlock();
      }
    }

    @Test
    void aTokenIssuedWhenFirstAskedForRefreshesTheCountersExpiry() {
      RedisDistributedLock earlier = lock();
      earlier.lock();
      earlier.getFencingToken();
      earlier.unlock();
      shortenCounter();
      RedisDistributedLock lock = lock(); // a new factory: it issues tokens when first asked
      lock.lock();
      try {
        lock.getFencingToken();
        awaitCounterRefreshed("the first request's token");
      } finally {
        lock.unlock();
      }
    }

    @Test
    void renewalRefreshesTheCountersExpiry() {
      RedisDistributedLock lock = lockOf(factory(b -> b.leaseTime(SHORT_LEASE)), name);
      lock.lock();
      try {
        lock.getFencingToken();
        shortenCounter();
        awaitCounterRefreshed("renewal");
      } finally {
        lock.unlock();
      }
    }

    @Test
    void scriptFlushDoesNotBreakLocking() {
      RedisDistributedLock lock = lock();
      for (int i = 0; i < 3; i++) {
        lock.lock();
        onAll(Jedis::scriptFlush);
        lock.unlock();
      }
      assertThat(rawGet(name)).isNull();
    }

    @Test
    void keyPrefixIsPrependedToTheName() {
      RedisDistributedLock lock = lockOf(factory(b -> b.keyPrefix("app:")), name);
      lock.lock();
      try {
        assertThat(rawGet("app:" + name)).startsWith("rl1:");
      } finally {
        lock.unlock();
      }
    }

    @Test
    void namesWithHashTagsAndBracesWork() {
      RedisLockFactory factory = factory();
      for (String odd : List.of("{" + name + "}", name + "}", "{}" + name, "{a}" + name)) {
        RedisDistributedLock lock = lockOf(factory, odd);
        lock.lock();
        try {
          assertThat(lock.getFencingToken()).isPositive();
        } finally {
          lock.unlock();
        }
      }
    }
  }
}
