package io.github.redislock.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.github.redislock.LockLostEvent;
import io.github.redislock.LockLostException;
import io.github.redislock.RedisDistributedLock;
import io.github.redislock.RedisLockException;
import io.github.redislock.RedisLockFactory;
import io.github.redislock.RedisReadWriteLock;
import io.github.redislock.testing.IntegrationTest;
import io.github.redislock.testing.Timing;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
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
 * The {@code ReadWriteLock} contract of {@link RedisReadWriteLock}, in the manner of {@link
 * LockContractTest}: each lock method in each case, shared reads and exclusive writes across
 * factories (each standing for a process), writer preference, downgrading, the refused upgrade,
 * leases of read shares, losses and Redis failures; one property per test. Subclasses name the
 * deployment; the same suite runs against each.
 */
@IntegrationTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class ReadWriteLockContractTest {
  static final Duration SHORT_LEASE = Duration.ofMillis(600);

  private Deployment deployment;
  private final List<RedisLockFactory> factories = new CopyOnWriteArrayList<>();
  private final List<LockLostEvent> lostEvents = new CopyOnWriteArrayList<>();
  private ExecutorService threads;
  private String name;

  /** The threads the tests start as lock owners besides their own: platform threads here. */
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
    name = "rw:" + info.getTestMethod().orElseThrow().getName() + ":" + System.nanoTime();
    threads = newThreads();
    lostEvents.clear();
  }

  @AfterEach
  void checkNothingLeaks() throws InterruptedException {
    threads.shutdownNow();
    assertThat(threads.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    for (RedisLockFactory factory : factories) {
      assertThat(factory.activity().renewingHoldCount()).as("renewals still running").isZero();
      assertThat(factory.activity().namesInUseCount()).as("local state left").isZero();
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

  /** The read-write lock of this test's name, from a new factory: another process, as it were. */
  RedisReadWriteLock rw() {
    return factory().getReadWriteLock(name);
  }

  /** The sorted set of read shares beside the lock key. */
  String shares() {
    return "{" + name + "}:lock-rs";
  }

  /** The sorted set of waiting writers' intents beside the lock key. */
  String intents() {
    return "{" + name + "}:lock-wi";
  }

  /** Runs {@code command} on a raw connection to the server that holds {@code key}. */
  void raw(String key, Consumer<Jedis> command) {
    try (Jedis jedis = deployment.raw(key)) {
      command.accept(jedis);
    }
  }

  boolean exists(String key) {
    try (Jedis jedis = deployment.raw(key)) {
      return jedis.exists(key);
    }
  }

  long zcard(String key) {
    try (Jedis jedis = deployment.raw(key)) {
      return jedis.zcard(key);
    }
  }

  long pttl(String key) {
    try (Jedis jedis = deployment.raw(key)) {
      return jedis.pttl(key);
    }
  }

  String get(String key) {
    try (Jedis jedis = deployment.raw(key)) {
      return jedis.get(key);
    }
  }

  long redisScriptCalls() {
    long total = 0;
    for (Jedis jedis : deployment.rawAll()) {
      try (jedis) {
        for (String line : jedis.info("commandstats").lines().toList()) {
          if (line.startsWith("cmdstat_eval") || line.startsWith("cmdstat_set:")) {
            String calls = line.substring(line.indexOf("calls=") + 6);
            total += Long.parseLong(calls.substring(0, calls.indexOf(',')));
          }
        }
      }
    }
    return total;
  }

  /** A thread of this test that holds {@code lock} until {@link Held#release()}. */
  Held holdInOtherThread(Lock lock) throws Exception {
    Held held = new Held(lock);
    threads.execute(held);
    assertThat(held.acquired.await(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS))
        .as("acquired in another thread")
        .isTrue();
    return held;
  }

  static final class Held implements Runnable {
    final Lock lock;
    final CountDownLatch acquired = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);
    final CountDownLatch done = new CountDownLatch(1);

    Held(Lock lock) {
      this.lock = lock;
    }

    @Override
    public void run() {
      lock.lock();
      try {
        acquired.countDown();
        release.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } finally {
        lock.unlock();
        done.countDown();
      }
    }

    void release() throws InterruptedException {
      release.countDown();
      assertThat(done.await(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS)).isTrue();
    }
  }

  /** Starts {@code task} on a thread of this test; see {@link Waiter#awaitWaiting()}. */
  <T> Waiter<T> startWaiter(Callable<T> task) {
    Waiter<T> waiter = new Waiter<>();
    waiter.future =
        threads.submit(
            () -> {
              waiter.thread = Thread.currentThread();
              return task.call();
            });
    return waiter;
  }

  /** A task on its own thread that is expected to block in a lock method. */
  static final class Waiter<T> {
    volatile Thread thread;
    Future<T> future;

    /** Waits until the task's thread is parked, and checks that the task has not finished. */
    void awaitWaiting() {
      await()
          .atMost(Timing.awaitAtMost())
          .until(
              () ->
                  future.isDone()
                      || thread != null
                          && (thread.getState() == Thread.State.WAITING
                              || thread.getState() == Thread.State.TIMED_WAITING));
      assertThat(future).isNotDone();
    }

    T get() throws Exception {
      return future.get(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS);
    }
  }

  /** A task that takes {@code lock}, notes {@code label} in {@code order}, and releases it. */
  static Callable<Boolean> takeAndNote(Lock lock, String label, List<String> order) {
    return () -> {
      lock.lock();
      try {
        order.add(label);
      } finally {
        lock.unlock();
      }
      return true;
    };
  }

  // ---- the lock is free ----

  @Nested
  class WhenFree {
    @Test
    void readLockTakesOneShareWithTheLease() {
      RedisReadWriteLock rw = rw();
      rw.readLock().lock();
      try {
        assertThat(rw.getReadHoldCount()).isEqualTo(1);
        assertThat(rw.getReadLockCount()).isEqualTo(1);
        assertThat(rw.isWriteLocked()).isFalse();
        assertThat(zcard(shares())).isEqualTo(1);
        assertThat(pttl(shares())).isPositive();
        assertThat(exists(name)).as("the write lock's key").isFalse();
      } finally {
        rw.readLock().unlock();
      }
      assertThat(exists(shares())).isFalse();
      assertThat(rw.getReadHoldCount()).isZero();
    }

    @Test
    void writeLockSetsTheLockKeyToATokenWithTheLease() {
      RedisReadWriteLock rw = rw();
      rw.writeLock().lock();
      try {
        assertThat(rw.isWriteLockedByCurrentThread()).isTrue();
        assertThat(rw.writeLock().isHeldByCurrentThread()).isTrue();
        assertThat(rw.getWriteHoldCount()).isEqualTo(1);
        assertThat(rw.isWriteLocked()).isTrue();
        assertThat(get(name)).startsWith("rl1:");
        assertThat(pttl(name)).isBetween(1L, 30_000L);
      } finally {
        rw.writeLock().unlock();
      }
      assertThat(exists(name)).isFalse();
      assertThat(rw.isWriteLocked()).isFalse();
    }

    @Test
    void everyFormOfAcquisitionTakesAFreeLock() throws InterruptedException {
      RedisReadWriteLock rw = rw();
      for (Lock lock : List.<Lock>of(rw.readLock(), rw.writeLock())) {
        assertThat(lock.tryLock()).isTrue();
        lock.unlock();
        assertThat(lock.tryLock(1, TimeUnit.SECONDS)).isTrue();
        lock.unlock();
        assertThat(lock.tryLock(0, TimeUnit.SECONDS)).isTrue();
        lock.unlock();
        lock.lockInterruptibly();
        lock.unlock();
      }
      assertThat(rw.getReadHoldCount()).isZero();
      assertThat(rw.getWriteHoldCount()).isZero();
    }

    @Test
    void unlockWithoutHoldingThrowsIllegalMonitorState() {
      RedisReadWriteLock rw = rw();
      assertThatThrownBy(rw.readLock()::unlock).isInstanceOf(IllegalMonitorStateException.class);
      assertThatThrownBy(rw.writeLock()::unlock).isInstanceOf(IllegalMonitorStateException.class);
    }

    @Test
    void fencingTokenWithoutTheWriteLockThrowsIllegalMonitorState() {
      RedisReadWriteLock rw = rw();
      rw.readLock().lock();
      try {
        assertThatThrownBy(rw.writeLock()::getFencingToken)
            .isInstanceOf(IllegalMonitorStateException.class);
      } finally {
        rw.readLock().unlock();
      }
    }

    @Test
    void theReadLockHasNoConditions() {
      assertThatThrownBy(rw().readLock()::newCondition)
          .isInstanceOf(UnsupportedOperationException.class);
    }
  }

  // ---- held by the current thread ----

  @Nested
  class WhenHeldByCurrentThread {
    @Test
    void theReadLockIsReentrantOnOneShare() {
      RedisReadWriteLock rw = rw();
      rw.readLock().lock();
      rw.readLock().lock();
      assertThat(rw.getReadHoldCount()).isEqualTo(2);
      assertThat(rw.getReadLockCount()).as("one share per thread").isEqualTo(1);
      rw.readLock().unlock();
      assertThat(zcard(shares())).isEqualTo(1);
      rw.readLock().unlock();
      assertThat(exists(shares())).isFalse();
    }

    @Test
    void reentrantReadsAndInnerReleasesMakeNoRedisCall() {
      RedisReadWriteLock rw = rw();
      rw.readLock().lock();
      try {
        long before = redisScriptCalls();
        for (int i = 0; i < 10; i++) {
          rw.readLock().lock();
          assertThat(rw.readLock().tryLock()).isTrue();
          rw.readLock().unlock();
          rw.readLock().unlock();
        }
        assertThat(redisScriptCalls()).isEqualTo(before);
      } finally {
        rw.readLock().unlock();
      }
    }

    @Test
    void theWriteLockIsReentrant() {
      RedisReadWriteLock rw = rw();
      rw.writeLock().lock();
      rw.writeLock().lock();
      assertThat(rw.getWriteHoldCount()).isEqualTo(2);
      rw.writeLock().unlock();
      assertThat(exists(name)).as("key after the inner unlock").isTrue();
      rw.writeLock().unlock();
      assertThat(exists(name)).isFalse();
    }

    @Test
    void aWriterDowngradesWhileAnotherWriterWaitsAndNoWriterGetsInBetween() throws Exception {
      RedisReadWriteLock rw = rw();
      rw.writeLock().lock();
      List<String> order = new CopyOnWriteArrayList<>();
      Waiter<Boolean> writer = startWaiter(takeAndNote(rw().writeLock(), "writer", order));
      writer.awaitWaiting();
      await().atMost(Timing.awaitAtMost()).until(() -> exists(intents()));

      rw.readLock().lock(); // a downgrade: taken although a writer waits
      rw.writeLock().unlock();
      assertThat(rw.getReadHoldCount()).isEqualTo(1);
      assertThat(rw.isWriteLockedByCurrentThread()).isFalse();
      writer.awaitWaiting(); // behind this thread's share
      order.add("downgraded reader done");
      rw.readLock().unlock();

      assertThat(writer.get()).isTrue();
      assertThat(order).containsExactly("downgraded reader done", "writer");
    }

    @Test
    void anUpgradeIsRefusedAtOnceAndLeavesNothingBehind() {
      RedisReadWriteLock rw = rw();
      rw.readLock().lock();
      try {
        Lock write = rw.writeLock();
        assertThatThrownBy(write::lock)
            .isInstanceOf(IllegalMonitorStateException.class)
            .hasMessageContaining("deadlock");
        assertThatThrownBy(write::tryLock).isInstanceOf(IllegalMonitorStateException.class);
        assertThatThrownBy(() -> write.tryLock(1, TimeUnit.SECONDS))
            .isInstanceOf(IllegalMonitorStateException.class);
        assertThatThrownBy(write::lockInterruptibly)
            .isInstanceOf(IllegalMonitorStateException.class);
        assertThat(rw.getReadHoldCount()).isEqualTo(1);
        assertThat(rw.getWriteHoldCount()).isZero();
        assertThat(exists(name)).isFalse();
        assertThat(exists(intents())).isFalse();
      } finally {
        rw.readLock().unlock();
      }
    }

    @Test
    void aWriterThatAlsoReadsMayTakeTheWriteLockAgain() {
      RedisReadWriteLock rw = rw();
      rw.writeLock().lock();
      rw.readLock().lock();
      rw.writeLock().lock();
      assertThat(rw.getWriteHoldCount()).isEqualTo(2);
      assertThat(rw.getReadHoldCount()).isEqualTo(1);
      rw.writeLock().unlock();
      rw.writeLock().unlock();
      rw.readLock().unlock();
      assertThat(exists(name)).isFalse();
      assertThat(exists(shares())).isFalse();
    }
  }

  // ---- held elsewhere ----

  @Nested
  class WhenHeldElsewhere {
    @Test
    void readersOfEveryProcessShareTheReadLock() throws Exception {
      RedisReadWriteLock first = rw();
      RedisReadWriteLock second = rw();
      Held one = holdInOtherThread(first.readLock());
      Held other = holdInOtherThread(second.readLock());
      Held third = holdInOtherThread(first.readLock()); // another thread of the first's JVM
      assertThat(rw().getReadLockCount()).isEqualTo(3);
      one.release();
      other.release();
      third.release();
      assertThat(rw().getReadLockCount()).isZero();
    }

    @Test
    void aWriterExcludesEveryReaderAndWriter() throws Exception {
      Held writer = holdInOtherThread(rw().writeLock());
      RedisReadWriteLock other = rw();
      assertThat(other.readLock().tryLock()).isFalse();
      assertThat(other.readLock().tryLock(100, TimeUnit.MILLISECONDS)).isFalse();
      assertThat(other.writeLock().tryLock()).isFalse();
      assertThat(other.isWriteLocked()).isTrue();
      writer.release();
      assertThat(other.readLock().tryLock()).isTrue();
      other.readLock().unlock();
    }

    @Test
    void aReaderExcludesWritersAndATimedOutWriterLeavesNoIntent() throws Exception {
      Held reader = holdInOtherThread(rw().readLock());
      RedisReadWriteLock other = rw();
      assertThat(other.writeLock().tryLock()).isFalse();
      assertThat(other.writeLock().tryLock(100, TimeUnit.MILLISECONDS)).isFalse();
      await().atMost(Timing.awaitAtMost()).until(() -> !exists(intents()));
      reader.release();
      assertThat(other.writeLock().tryLock()).isTrue();
      other.writeLock().unlock();
    }

    @Test
    void aWriteUnlockWakesTheWaitingReadersTogether() throws Exception {
      int readers = 3;
      Held writer = holdInOtherThread(rw().writeLock());
      CyclicBarrier allIn = new CyclicBarrier(readers);
      List<Waiter<Integer>> waiting = new ArrayList<>();
      for (int i = 0; i < readers; i++) {
        Lock read = rw().readLock();
        waiting.add(
            startWaiter(
                () -> {
                  read.lock();
                  try {
                    // Every reader holds the read lock at once, or none passes the barrier.
                    return allIn.await(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS);
                  } finally {
                    read.unlock();
                  }
                }));
      }
      for (Waiter<Integer> waiter : waiting) {
        waiter.awaitWaiting();
      }
      writer.release();
      for (Waiter<Integer> waiter : waiting) {
        assertThat(waiter.get()).isBetween(0, readers - 1);
      }
    }

    @Test
    void aReadUnlockWakesTheWriterOnlyWhenTheLastShareIsGone() throws Exception {
      Held first = holdInOtherThread(rw().readLock());
      Held second = holdInOtherThread(rw().readLock());
      Waiter<Boolean> writer =
          startWaiter(takeAndNote(rw().writeLock(), "writer", new CopyOnWriteArrayList<>()));
      writer.awaitWaiting();
      first.release();
      assertThat(rw().getReadLockCount()).isEqualTo(1);
      writer.awaitWaiting();
      assertThat(rw().isWriteLocked()).isFalse();
      second.release();
      assertThat(writer.get()).isTrue();
    }

    @Test
    void readersThatArriveAfterAWaitingWriterWaitBehindIt() throws Exception {
      Held reader = holdInOtherThread(rw().readLock());
      List<String> order = new CopyOnWriteArrayList<>();
      Waiter<Boolean> writer = startWaiter(takeAndNote(rw().writeLock(), "writer", order));
      writer.awaitWaiting();
      await().atMost(Timing.awaitAtMost()).until(() -> exists(intents()));
      assertThat(pttl(intents())).isPositive();
      Waiter<Boolean> late = startWaiter(takeAndNote(rw().readLock(), "late reader", order));
      late.awaitWaiting();
      assertThat(rw().readLock().tryLock(100, TimeUnit.MILLISECONDS))
          .as("a timed tryLock honours the waiting writer")
          .isFalse();

      reader.release();
      assertThat(writer.get()).isTrue();
      assertThat(late.get()).isTrue();
      assertThat(order).containsExactly("writer", "late reader");
    }

    @Test
    void anUntimedReadTryLockBargesPastAWaitingWriter() throws Exception {
      Held reader = holdInOtherThread(rw().readLock());
      Waiter<Boolean> writer =
          startWaiter(takeAndNote(rw().writeLock(), "writer", new CopyOnWriteArrayList<>()));
      writer.awaitWaiting();
      await().atMost(Timing.awaitAtMost()).until(() -> exists(intents()));
      Lock barging = rw().readLock();
      assertThat(barging.tryLock()).isTrue();
      barging.unlock();
      reader.release();
      assertThat(writer.get()).isTrue();
    }

    @Test
    void aWriterThatGivesUpWithdrawsItsIntentAndWakesTheReadersBehindIt() throws Exception {
      Held reader = holdInOtherThread(rw().readLock());
      Lock write = rw().writeLock();
      Waiter<Boolean> writer =
          startWaiter(
              () -> write.tryLock(Timing.scaled(Duration.ofMillis(800)).toMillis(), MILLIS));
      await().atMost(Timing.awaitAtMost()).until(() -> exists(intents()));
      Waiter<Boolean> late =
          startWaiter(takeAndNote(rw().readLock(), "late reader", new CopyOnWriteArrayList<>()));
      assertThat(writer.get()).isFalse();
      assertThat(late.get()).isTrue();
      assertThat(exists(intents())).isFalse();
      reader.release();
    }

    @Test
    void eachShareExpiresOnItsOwn() throws Exception {
      // A reader whose process died: its share, with half a second of lease left, is never renewed.
      raw(
          shares(),
          j -> {
            List<String> time = j.time();
            long now = Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
            j.zadd(shares(), now + Timing.scaled(Duration.ofMillis(500)).toMillis(), "dead");
          });
      raw(shares(), j -> j.pexpire(shares(), 60_000));
      Held live = holdInOtherThread(rw().readLock());
      Waiter<Boolean> writer =
          startWaiter(takeAndNote(rw().writeLock(), "writer", new CopyOnWriteArrayList<>()));
      writer.awaitWaiting();
      await().atMost(Timing.awaitAtMost()).until(() -> rw().getReadLockCount() == 1);
      writer.awaitWaiting(); // the live reader's share is renewed
      live.release();
      assertThat(writer.get()).isTrue();
    }

    @Test
    void writeFencingTokensIncreaseAcrossHoldersAndThePlainLockOfTheName() {
      List<Long> tokens = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        RedisReadWriteLock rw = rw();
        rw.writeLock().lock();
        tokens.add(rw.writeLock().getFencingToken());
        rw.writeLock().unlock();
        RedisDistributedLock plain = factory().getLock(name);
        plain.lock();
        tokens.add(plain.getFencingToken());
        plain.unlock();
      }
      assertThat(tokens).isSorted().doesNotHaveDuplicates();
    }

    @Test
    void thePlainLockOfTheNameExcludesReadersAndWriters() throws Exception {
      Held plain = holdInOtherThread(factory().getLock(name));
      RedisReadWriteLock rw = rw();
      assertThat(rw.readLock().tryLock()).isFalse();
      assertThat(rw.writeLock().tryLock()).isFalse();
      plain.release();
    }
  }

  private static final TimeUnit MILLIS = TimeUnit.MILLISECONDS;

  // ---- interrupts ----

  @Nested
  class WhenInterrupted {
    @Test
    void aReaderInterruptedWhileWaitingThrowsAndLeavesNoShare() throws Exception {
      Held writer = holdInOtherThread(rw().writeLock());
      Lock read = rw().readLock();
      Waiter<Throwable> waiter =
          startWaiter(
              () -> {
                try {
                  read.lockInterruptibly();
                  return null;
                } catch (InterruptedException e) {
                  return e;
                }
              });
      waiter.awaitWaiting();
      waiter.thread.interrupt();
      assertThat(waiter.get()).isInstanceOf(InterruptedException.class);
      writer.release();
      assertThat(exists(shares())).isFalse();
    }

    @Test
    void aWriterInterruptedWhileWaitingThrowsAndWithdrawsItsIntent() throws Exception {
      Held reader = holdInOtherThread(rw().readLock());
      Lock write = rw().writeLock();
      Waiter<Throwable> waiter =
          startWaiter(
              () -> {
                try {
                  write.lockInterruptibly();
                  return null;
                } catch (InterruptedException e) {
                  return e;
                }
              });
      waiter.awaitWaiting();
      await().atMost(Timing.awaitAtMost()).until(() -> exists(intents()));
      waiter.thread.interrupt();
      assertThat(waiter.get()).isInstanceOf(InterruptedException.class);
      await().atMost(Timing.awaitAtMost()).until(() -> !exists(intents()));
      reader.release();
    }

    @Test
    void readLockKeepsWaitingThroughAnInterruptAndRestoresTheFlag() throws Exception {
      Held writer = holdInOtherThread(rw().writeLock());
      Lock read = rw().readLock();
      Waiter<Boolean> waiter =
          startWaiter(
              () -> {
                read.lock();
                read.unlock();
                return Thread.interrupted();
              });
      waiter.awaitWaiting();
      waiter.thread.interrupt();
      waiter.awaitWaiting();
      writer.release();
      assertThat(waiter.get()).isTrue();
    }
  }

  // ---- the hold was lost ----

  @Nested
  class WhenLost {
    @Test
    void aDeletedShareIsReportedLostAndUnlockThrowsLockLost() {
      RedisLockFactory factory = factory(b -> b.leaseTime(SHORT_LEASE));
      RedisReadWriteLock rw = factory.getReadWriteLock(name);
      rw.readLock().lock();
      raw(shares(), j -> j.del(shares()));
      await()
          .atMost(Timing.awaitAtMost())
          .until(() -> lostEvents.stream().anyMatch(e -> e.lockName().equals(name)));
      await()
          .alias("the lost share is forgotten at once, as a revoked write hold is")
          .atMost(Timing.awaitAtMost())
          .until(() -> factory.activity().namesInUseCount() == 0);
      assertThat(rw.getReadHoldCount()).isZero();
      assertThatThrownBy(rw.readLock()::unlock).isInstanceOf(LockLostException.class);
      assertThatThrownBy(rw.readLock()::unlock)
          .as("told once")
          .isNotInstanceOf(LockLostException.class)
          .isInstanceOf(IllegalMonitorStateException.class);
      assertThat(rw.readLock().tryLock()).isTrue();
      rw.readLock().unlock();
    }

    @Test
    void aDeletedWriteKeyIsReportedLostAndUnlockThrowsLockLost() {
      RedisReadWriteLock rw = factory(b -> b.leaseTime(SHORT_LEASE)).getReadWriteLock(name);
      rw.writeLock().lock();
      raw(name, j -> j.del(name));
      await()
          .atMost(Timing.awaitAtMost())
          .until(() -> lostEvents.stream().anyMatch(e -> e.lockName().equals(name)));
      assertThat(rw.isWriteLockedByCurrentThread()).isFalse();
      assertThatThrownBy(rw.writeLock()::unlock).isInstanceOf(LockLostException.class);
    }

    @Test
    void closingTheFactoryLosesReadHoldsWithoutReleasingThem() {
      RedisLockFactory factory = factory();
      RedisReadWriteLock rw = factory.getReadWriteLock(name);
      rw.readLock().lock();
      factory.close();
      assertThat(lostEvents).extracting(LockLostEvent::lockName).containsExactly(name);
      assertThat(zcard(shares())).as("the share expires").isEqualTo(1);
      assertThatThrownBy(rw.readLock()::unlock).isInstanceOf(LockLostException.class);
      raw(shares(), j -> j.del(shares()));
    }
  }

  // ---- Redis is down ----

  @Nested
  class WhenRedisIsDown {
    @Test
    void readAndWriteTryLockThrowRedisLockException() {
      RedisReadWriteLock rw = rw();
      deployment.stop();
      try {
        assertThatThrownBy(rw.readLock()::tryLock).isInstanceOf(RedisLockException.class);
        assertThatThrownBy(rw.writeLock()::tryLock).isInstanceOf(RedisLockException.class);
        assertThatThrownBy(rw::getReadLockCount).isInstanceOf(RedisLockException.class);
      } finally {
        deployment.restart();
      }
    }

    @Test
    void readLockRetriesUntilRedisIsBack() throws Exception {
      RedisReadWriteLock rw = rw();
      deployment.stop();
      Waiter<Integer> reader =
          startWaiter(
              () -> {
                rw.readLock().lock();
                try {
                  return rw.getReadLockCount();
                } finally {
                  rw.readLock().unlock();
                }
              });
      try {
        reader.awaitWaiting();
      } finally {
        deployment.restart();
      }
      assertThat(reader.get()).isEqualTo(1);
    }
  }

  // ---- on the wire ----

  @Nested
  class OnTheWire {
    @Test
    void aForeignHolderOfTheKeyExcludesReaders() {
      raw(name, j -> j.set(name, "foreign", SetParams.setParams().nx().px(60_000)));
      RedisReadWriteLock rw = rw();
      assertThat(rw.readLock().tryLock()).isFalse();
      assertThat(rw.isWriteLocked()).isTrue();
      raw(name, j -> j.del(name));
    }

    @Test
    void aKeyOfTheWrongTypeIsAClearError() {
      raw(name, j -> j.hset(name, Map.of("f", "v")));
      raw(name, j -> j.pexpire(name, 60_000));
      RedisReadWriteLock rw = rw();
      assertThatThrownBy(rw.readLock()::tryLock)
          .isInstanceOf(RedisLockException.class)
          .hasMessageContaining("WRONGTYPE");
      assertThatThrownBy(rw.writeLock()::tryLock)
          .isInstanceOf(RedisLockException.class)
          .hasMessageContaining("WRONGTYPE");
      raw(name, j -> j.del(name));
    }

    @Test
    void namesWithHashTagsKeepEveryKeyInTheirSlot() {
      String tagged = "{rw-tag}:" + name;
      RedisReadWriteLock rw = factory().getReadWriteLock(tagged);
      rw.readLock().lock();
      assertThat(exists(tagged + ":lock-rs")).isTrue();
      rw.readLock().unlock();
      rw.writeLock().lock();
      assertThat(exists(tagged)).isTrue();
      rw.writeLock().unlock();
    }

    @Test
    void reservedNamesAreRefused() {
      RedisLockFactory factory = factory();
      assertThatThrownBy(() -> factory.getReadWriteLock("{a}:lock-rs"))
          .isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> factory.getReadWriteLock(""))
          .isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> factory.getReadWriteLock(null))
          .isInstanceOf(NullPointerException.class);
    }
  }

  // ---- conditions of the write lock ----

  /**
   * The rules a condition of the write lock adds to those of {@link ConditionContractTest} (which
   * runs on write locks too): who may await and signal, and what an await and a signal's release do
   * to readers.
   */
  @Nested
  class WriteLockConditions {
    /** Condition 1's awaiters, beside the lock key. */
    private String queued() {
      return "{" + name + "}:lock-condadbq";
    }

    private String signalled() {
      return "{" + name + "}:lock-condadbs";
    }

    /** The clients subscribed to the lock's wake-up channel (plain or sharded Pub/Sub). */
    private long lockChannelListeners() {
      String channel = "{" + name + "}:lock-wake";
      try (Jedis jedis = deployment.raw(name)) {
        return jedis.pubsubNumSub(channel).getOrDefault(channel, 0L)
            + jedis.pubsubShardNumSub(channel).getOrDefault(channel, 0L);
      }
    }

    /** A thread that takes the write lock of {@code rw}, awaits its first condition, unlocks. */
    private Future<String> awaiter(RedisReadWriteLock rw) {
      Condition condition = rw.writeLock().newCondition();
      Future<String> awaited =
          threads.submit(
              () -> {
                rw.writeLock().lock();
                try {
                  condition.await();
                  return rw.getWriteHoldCount() + " write hold(s)";
                } finally {
                  rw.writeLock().unlock();
                }
              });
      await().atMost(Timing.awaitAtMost()).until(() -> zcard(queued()) == 1);
      return awaited;
    }

    private <T> T result(Future<T> future) throws Exception {
      return future.get(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS);
    }

    @Test
    void aThreadHoldingOnlyTheReadLockCanNeitherAwaitNorSignal() {
      RedisReadWriteLock rw = rw();
      Condition condition = rw.writeLock().newCondition();
      rw.readLock().lock();
      try {
        assertThatThrownBy(condition::await).isInstanceOf(IllegalMonitorStateException.class);
        assertThatThrownBy(condition::awaitUninterruptibly)
            .isInstanceOf(IllegalMonitorStateException.class);
        assertThatThrownBy(() -> condition.awaitNanos(1))
            .isInstanceOf(IllegalMonitorStateException.class);
        assertThatThrownBy(() -> condition.await(1, TimeUnit.MILLISECONDS))
            .isInstanceOf(IllegalMonitorStateException.class);
        assertThatThrownBy(() -> condition.awaitUntil(new Date()))
            .isInstanceOf(IllegalMonitorStateException.class);
        assertThatThrownBy(condition::signal).isInstanceOf(IllegalMonitorStateException.class);
        assertThatThrownBy(condition::signalAll).isInstanceOf(IllegalMonitorStateException.class);
        assertThat(rw.getReadHoldCount()).isOne();
        assertThat(zcard(queued())).isZero();
      } finally {
        rw.readLock().unlock();
      }
    }

    /**
     * A writer that also reads may not await: its read share would keep every other writer out
     * (nobody could signal it) and itself from the write lock afterwards. Refused at once, with
     * nothing released; signalling is allowed.
     */
    @Test
    void aWriterThatAlsoReadsCannotAwaitAndKeepsBothHolds() {
      RedisReadWriteLock rw = rw();
      Condition condition = rw.writeLock().newCondition();
      rw.writeLock().lock();
      rw.readLock().lock();
      try {
        String token = get(name);
        assertThatThrownBy(condition::await)
            .isInstanceOf(IllegalMonitorStateException.class)
            .hasMessageContaining("read lock");
        assertThatThrownBy(() -> condition.awaitNanos(0))
            .isInstanceOf(IllegalMonitorStateException.class);
        assertThatThrownBy(condition::awaitUninterruptibly)
            .isInstanceOf(IllegalMonitorStateException.class);
        assertThat(rw.isWriteLockedByCurrentThread()).isTrue();
        assertThat(rw.getReadHoldCount()).isOne();
        assertThat(get(name)).as("the write hold, kept").isEqualTo(token);
        assertThat(zcard(queued())).isZero();
        condition.signal();
        condition.signalAll();
      } finally {
        rw.readLock().unlock();
        rw.writeLock().unlock();
      }
    }

    @Test
    void whileAWriterAwaitsReadersAndWritersOfOtherProcessesGoIn() throws Exception {
      Future<String> awaited = awaiter(rw());
      RedisReadWriteLock other = rw();
      assertThat(other.readLock().tryLock()).as("a reader goes in").isTrue();
      assertThat(other.getReadLockCount()).isOne();
      other.readLock().unlock();
      assertThat(other.writeLock().tryLock()).as("a writer goes in").isTrue();
      try {
        other.writeLock().newCondition().signal();
      } finally {
        other.writeLock().unlock();
      }
      assertThat(result(awaited)).isEqualTo("1 write hold(s)");
    }

    /**
     * The signaller took the read lock before it released the write lock (a downgrade): the release
     * that carries its signal must not hand the write lock to the awaiter, a writer, while the
     * signaller reads.
     */
    @Test
    void aSignallersReleaseDoesNotHandTheWriteLockPastItsOwnReadHold() throws Exception {
      Future<String> awaited = awaiter(rw());
      RedisReadWriteLock signaller = rw();
      signaller.writeLock().lock();
      signaller.writeLock().newCondition().signal(); // goes with the release
      signaller.readLock().lock();
      signaller.writeLock().unlock();
      try {
        assertThat(get(name)).as("the write lock, not handed to the awaiter").isNull();
        assertThat(zcard(signalled())).as("the awaiter, signalled").isOne();
        assertThat(awaited.isDone()).as("the awaiter waits for the reader").isFalse();
      } finally {
        signaller.readLock().unlock();
      }
      assertThat(result(awaited)).isEqualTo("1 write hold(s)");
    }

    /** A reader of another process waits: the write lock is released for it, not handed over. */
    @Test
    void aSignalWhileAReaderOfAnotherProcessWaitsReleasesTheWriteLockForIt() throws Exception {
      RedisLockFactory awaiting = factory(b -> b.recordStats());
      Future<String> awaited = awaiter(awaiting.getReadWriteLock(name));
      RedisReadWriteLock signaller = rw();
      RedisReadWriteLock reader = rw();
      Future<Integer> read;
      signaller.writeLock().lock();
      try {
        read =
            threads.submit(
                () -> {
                  reader.readLock().lock();
                  try {
                    return reader.getReadHoldCount();
                  } finally {
                    reader.readLock().unlock();
                  }
                });
        await().atMost(Timing.awaitAtMost()).until(() -> lockChannelListeners() == 1);
        signaller.writeLock().newCondition().signal();
      } finally {
        signaller.writeLock().unlock();
      }
      assertThat(result(read)).isOne();
      assertThat(result(awaited)).isEqualTo("1 write hold(s)");
      assertThat(awaiting.stats().handoffCount()).as("took the lock from Redis").isZero();
    }
  }
}
