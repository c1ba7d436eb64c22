package io.github.redislock.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.github.redislock.LockLostException;
import io.github.redislock.RedisLockException;
import io.github.redislock.RedisLockFactory;
import io.github.redislock.testing.IntegrationTest;
import io.github.redislock.testing.Timing;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Condition;
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

/**
 * The {@code Condition} contract of {@code RedisDistributedLock.newCondition()} and {@code
 * RedisReadWriteLock.WriteLock.newCondition()}, in the manner of {@link LockContractTest}: every
 * method in each case, one property per test, with factories standing for processes. Subclasses
 * name the deployment, and whether the lock is a plain or a fair one, or a read-write lock's write
 * lock; the same suite runs against each.
 */
@IntegrationTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class ConditionContractTest {
  static final Duration SHORT_LEASE = Timing.scaled(Duration.ofMillis(900));

  private Deployment deployment;
  private final List<RedisLockFactory> factories = new CopyOnWriteArrayList<>();
  private ExecutorService threads;
  private String name;

  /** The threads the tests start as lock owners besides their own: platform threads here. */
  protected ExecutorService newThreads() {
    return Executors.newCachedThreadPool();
  }

  /** Starts the deployment this subclass tests. */
  protected abstract Deployment startDeployment();

  /** The locks whose conditions the suite checks. */
  protected enum Form {
    /** {@code getLock}. */
    PLAIN,
    /** {@code getFairLock}. */
    FAIR,
    /** {@code getReadWriteLock(name).writeLock()}. */
    WRITE
  }

  /** Which locks the suite runs on: plain ones unless a subclass says otherwise. */
  protected Form form() {
    return Form.PLAIN;
  }

  boolean fair() {
    return form() == Form.FAIR;
  }

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
    name = "cond:" + info.getTestMethod().orElseThrow().getName() + ":" + System.nanoTime();
    threads = newThreads();
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
    RedisLockFactory.Builder builder = deployment.builder();
    settings.accept(builder);
    RedisLockFactory factory = builder.build();
    factories.add(factory);
    return factory;
  }

  ConditionLock lock(RedisLockFactory factory) {
    return switch (form()) {
      case PLAIN -> ConditionLock.of(factory.getLock(name));
      case FAIR -> ConditionLock.of(factory.getFairLock(name));
      case WRITE -> ConditionLock.of(factory.getReadWriteLock(name).writeLock());
    };
  }

  ConditionLock lock() {
    return lock(factory());
  }

  /** The Redis key of condition {@code condition} with role {@code role} (see ConditionKeys). */
  String conditionKey(String condition, boolean numbered, char role) {
    StringBuilder key = new StringBuilder("{" + name + "}:lock-cond").append(numbered ? 'a' : 'b');
    for (byte b : condition.getBytes(StandardCharsets.UTF_8)) {
      key.append((char) ('a' + ((b >> 4) & 0xf))).append((char) ('a' + (b & 0xf)));
    }
    return key.append(role).toString();
  }

  /** The awaiters queued for the first numbered condition of the lock. */
  long queued() {
    return queued(conditionKey("1", true, 'q'));
  }

  long queued(String queueKey) {
    try (Jedis jedis = deployment.raw(name)) {
      return jedis.zcard(queueKey);
    }
  }

  void awaitQueued(long count) {
    await().atMost(Timing.awaitAtMost()).until(() -> queued() == count);
  }

  /** Locks, runs {@code action} on {@code condition}, unlocks. */
  static void underLock(ConditionLock lock, Runnable action) {
    lock.lock();
    try {
      action.run();
    } finally {
      lock.unlock();
    }
  }

  long spuriousWakeUps() {
    return factories.stream().mapToLong(f -> f.activity().spuriousWakeUpCount()).sum();
  }

  /** One await call of a condition. */
  interface AwaitCall {
    Object await(Condition condition) throws InterruptedException;
  }

  /**
   * A thread of the test that locks (twice: a hold count of 2), awaits, and records what it saw on
   * return, then unlocks.
   */
  final class Awaiter {
    final ConditionLock lock;
    final CompletableFuture<Object> outcome = new CompletableFuture<>();
    volatile Thread thread;
    volatile long tokenBefore;
    volatile long tokenAfter;
    volatile boolean heldAfter;
    volatile int holdCountAfter;
    volatile boolean interruptedAfter;
    volatile String keyAfter;

    Awaiter(ConditionLock lock, Condition condition, AwaitCall call) {
      this.lock = lock;
      threads.execute(
          () -> {
            thread = Thread.currentThread();
            lock.lock();
            lock.lock();
            try {
              tokenBefore = lock.getFencingToken();
              Object result;
              try {
                result = call.await(condition);
              } finally {
                interruptedAfter = Thread.interrupted();
                heldAfter = lock.isHeldByCurrentThread();
                holdCountAfter = lock.getHoldCount();
                keyAfter = rawGet();
                if (heldAfter) {
                  tokenAfter = lock.getFencingToken();
                }
              }
              outcome.complete(result);
            } catch (Throwable e) {
              outcome.completeExceptionally(e);
            } finally {
              while (lock.isHeldByCurrentThread()) {
                lock.unlock();
              }
            }
          });
    }

    Object result() throws Exception {
      return outcome.get(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS);
    }

    Throwable failure() throws Exception {
      try {
        result();
        throw new AssertionError("the await returned normally");
      } catch (ExecutionException e) {
        return e.getCause();
      }
    }

    boolean isWaiting() {
      return !outcome.isDone();
    }
  }

  Awaiter awaiter(ConditionLock lock, Condition condition, AwaitCall call) {
    return new Awaiter(lock, condition, call);
  }

  /** An awaiter of the first condition of a lock of its own factory, with {@code await()}. */
  Awaiter awaiter() {
    ConditionLock lock = lock();
    return awaiter(lock, lock.newCondition(), c -> awaitAndReturn(c));
  }

  /**
   * An awaiter of the first condition of a lock of {@code factory}, with {@code await()}, queued in
   * Redis when this returns.
   */
  Awaiter awaiter(RedisLockFactory factory) {
    ConditionLock lock = lock(factory);
    Awaiter awaiter = awaiter(lock, lock.newCondition(), c -> awaitAndReturn(c));
    awaitQueued(1);
    return awaiter;
  }

  static Object awaitAndReturn(Condition condition) throws InterruptedException {
    condition.await();
    return "signalled";
  }

  String rawGet() {
    try (Jedis jedis = deployment.raw(name)) {
      return jedis.get(name);
    }
  }

  /**
   * Signals the awaiter of the condition and hands it the lock, as a release with a signal does,
   * but publishes nothing.
   *
   * @return the awaiter's id, which the lock key holds now
   */
  String handInRedisOnly() {
    String id;
    try (Jedis jedis = deployment.raw(name)) {
      id = jedis.zrange(conditionKey("1", true, 'q'), 0, 0).get(0);
    }
    signalInRedisOnly();
    try (Jedis jedis = deployment.raw(name)) {
      jedis.psetex(name, 60_000, id);
    }
    return id;
  }

  /** Publishes {@code message} on the first condition's channel, plain and sharded. */
  void publishOnCondition(String message) {
    String channel = conditionKey("1", true, 'w');
    try (Jedis jedis = deployment.raw(name)) {
      jedis.publish(channel, message);
      jedis.sendCommand(redis.clients.jedis.Protocol.Command.SPUBLISH, channel, message);
    }
  }

  /** The clients subscribed to the lock's wake-up channel (plain or sharded Pub/Sub). */
  long lockChannelListeners() {
    String channel = "{" + name + "}:lock-wake";
    try (Jedis jedis = deployment.raw(name)) {
      return jedis.pubsubNumSub(channel).getOrDefault(channel, 0L)
          + jedis.pubsubShardNumSub(channel).getOrDefault(channel, 0L);
    }
  }

  /** Signals the awaiter of the condition as a signal would, in Redis, but publishes nothing. */
  void signalInRedisOnly() {
    String queue = conditionKey("1", true, 'q');
    String leases = conditionKey("1", true, 't');
    String signalled = conditionKey("1", true, 's');
    try (Jedis jedis = deployment.raw(name)) {
      List<String> waiting = jedis.zrange(queue, 0, 0);
      assertThat(waiting).hasSize(1);
      jedis.zrem(queue, waiting.get(0));
      jedis.zrem(leases, waiting.get(0));
      jedis.zadd(signalled, 9e15, waiting.get(0)); // never runs out during the test
      jedis.pexpire(signalled, 60_000);
    }
  }

  // ---- without the lock ----

  @Nested
  class WithoutTheLock {
    @Test
    void everyAwaitThrowsIllegalMonitorStateAndLeavesNothing() {
      Condition condition = lock().newCondition();
      assertThatThrownBy(condition::await).isInstanceOf(IllegalMonitorStateException.class);
      assertThatThrownBy(condition::awaitUninterruptibly)
          .isInstanceOf(IllegalMonitorStateException.class);
      assertThatThrownBy(() -> condition.awaitNanos(1_000_000))
          .isInstanceOf(IllegalMonitorStateException.class);
      assertThatThrownBy(() -> condition.await(1, TimeUnit.MILLISECONDS))
          .isInstanceOf(IllegalMonitorStateException.class);
      assertThatThrownBy(() -> condition.awaitUntil(new Date()))
          .isInstanceOf(IllegalMonitorStateException.class);
      assertThat(queued()).isZero();
    }

    @Test
    void signalAndSignalAllThrowIllegalMonitorState() {
      Condition condition = lock().newCondition();
      assertThatThrownBy(condition::signal)
          .isInstanceOf(IllegalMonitorStateException.class)
          .isNotInstanceOf(LockLostException.class)
          .hasMessageContaining(name);
      assertThatThrownBy(condition::signalAll).isInstanceOf(IllegalMonitorStateException.class);
    }

    @Test
    void signalWhileAnotherFactoryHoldsTheLockThrowsIllegalMonitorState() {
      ConditionLock holder = lock();
      holder.lock();
      try {
        assertThatThrownBy(lock().newCondition()::signal)
            .isInstanceOf(IllegalMonitorStateException.class);
      } finally {
        holder.unlock();
      }
    }

    @Test
    void aSignalByAThreadWhoseHoldWasLostThrowsLockLostAndSignalsNobody() throws Exception {
      Awaiter awaiter = awaiter();
      awaitQueued(1);
      ConditionLock lock = lock(factory(b -> b.leaseTime(SHORT_LEASE)));
      Condition condition = lock.newCondition();
      lock.lock();
      try (Jedis jedis = deployment.raw(name)) {
        jedis.set(name, "someone-else"); // the hold is lost: the key holds another token
        // No awaiter waits in the signaller's factory: the signal goes with the release, whose
        // check of the hold fails.
        condition.signal();
        assertThatThrownBy(lock::unlock).isInstanceOf(LockLostException.class);
        assertThat(jedis.get(name)).isEqualTo("someone-else");
        jedis.del(name);
      }
      assertThat(lock.isHeldByCurrentThread()).as("the hold, found lost, is given up").isFalse();
      assertThat(queued()).isOne();
      assertThat(awaiter.isWaiting()).isTrue();
      ConditionLock other = lock();
      underLock(other, other.newCondition()::signalAll);
      assertThat(awaiter.result()).isEqualTo("signalled");
    }
  }

  // ---- await and signal ----

  @Nested
  class Signalling {
    @Test
    void aSignalFromAnotherFactoryWakesTheAwaiter() throws Exception {
      Awaiter awaiter = awaiter();
      awaitQueued(1);
      ConditionLock signaller = lock();
      underLock(signaller, signaller.newCondition()::signal);
      assertThat(awaiter.result()).isEqualTo("signalled");
      assertThat(awaiter.heldAfter).isTrue();
      assertThat(queued()).isZero();
      assertThat(spuriousWakeUps()).isZero();
    }

    @Test
    void aSignalInTheSameFactoryWakesTheAwaiter() throws Exception {
      ConditionLock lock = lock();
      Condition condition = lock.newCondition();
      Awaiter awaiter = awaiter(lock, condition, c -> awaitAndReturn(c));
      awaitQueued(1);
      underLock(lock, condition::signal);
      assertThat(awaiter.result()).isEqualTo("signalled");
    }

    @Test
    void signalWakesTheLongestWaitingAwaiterOfAnyFactory() throws Exception {
      List<Integer> woken = new CopyOnWriteArrayList<>();
      List<Awaiter> awaiters = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        int me = i;
        ConditionLock lock = lock(); // a factory each: a process each
        awaiters.add(
            awaiter(
                lock,
                lock.newCondition(),
                c -> {
                  c.await();
                  woken.add(me);
                  return me;
                }));
        awaitQueued(i + 1);
      }
      ConditionLock signaller = lock();
      Condition condition = signaller.newCondition();
      for (int i = 0; i < 4; i++) {
        int expected = i + 1;
        underLock(signaller, condition::signal);
        await().atMost(Timing.awaitAtMost()).until(() -> woken.size() == expected);
      }
      assertThat(woken).containsExactly(0, 1, 2, 3);
      for (Awaiter awaiter : awaiters) {
        awaiter.result();
      }
      assertThat(spuriousWakeUps()).isZero();
    }

    @Test
    void oneSignalWakesExactlyOneAwaiterAndTheOthersKeepWaiting() throws Exception {
      Awaiter first = awaiter();
      awaitQueued(1);
      Awaiter second = awaiter();
      Awaiter third = awaiter();
      awaitQueued(3);
      ConditionLock signaller = lock();
      Condition condition = signaller.newCondition();
      underLock(signaller, condition::signal);
      assertThat(first.result()).isEqualTo("signalled");
      assertThat(queued()).isEqualTo(2);
      assertThat(second.isWaiting()).isTrue();
      assertThat(third.isWaiting()).isTrue();
      assertThat(spuriousWakeUps()).isZero();
      underLock(signaller, condition::signalAll);
      assertThat(second.result()).isEqualTo("signalled");
      assertThat(third.result()).isEqualTo("signalled");
    }

    @Test
    void signalAllWakesEveryAwaiterOfEveryFactory() throws Exception {
      ConditionLock shared = lock();
      Condition sharedCondition = shared.newCondition();
      List<Awaiter> awaiters = new ArrayList<>();
      awaiters.add(awaiter(shared, sharedCondition, c -> awaitAndReturn(c)));
      awaiters.add(awaiter(shared, sharedCondition, c -> awaitAndReturn(c)));
      awaiters.add(awaiter());
      awaiters.add(awaiter());
      awaitQueued(4);
      ConditionLock signaller = lock();
      underLock(signaller, signaller.newCondition()::signalAll);
      for (Awaiter awaiter : awaiters) {
        assertThat(awaiter.result()).isEqualTo("signalled");
      }
      assertThat(queued()).isZero();
      assertThat(spuriousWakeUps()).isZero();
    }

    @Test
    void aSignalWithNobodyWaitingIsNotRemembered() throws Exception {
      ConditionLock lock = lock();
      Condition condition = lock.newCondition();
      underLock(lock, condition::signal);
      underLock(lock, condition::signalAll);
      lock.lock();
      try {
        assertThat(
                condition.await(
                    Timing.scaled(Duration.ofMillis(200)).toMillis(), TimeUnit.MILLISECONDS))
            .isFalse();
      } finally {
        lock.unlock();
      }
    }

    @Test
    void aSignalAfterAnotherAwaiterTimedOutGoesToTheNextAwaiter() throws Exception {
      ConditionLock timedLock = lock();
      Awaiter timed =
          awaiter(
              timedLock,
              timedLock.newCondition(),
              c ->
                  c.await(Timing.scaled(Duration.ofMillis(300)).toMillis(), TimeUnit.MILLISECONDS));
      awaitQueued(1);
      Awaiter patient = awaiter();
      assertThat(timed.result()).isEqualTo(false);
      awaitQueued(1);
      ConditionLock signaller = lock();
      underLock(signaller, signaller.newCondition()::signal);
      assertThat(patient.result()).isEqualTo("signalled");
    }

    @Test
    void anAwaiterWaitsLongerThanItsLeaseAndIsStillSignalled() throws Exception {
      ConditionLock lock = lock(factory(b -> b.leaseTime(SHORT_LEASE)));
      Awaiter awaiter = awaiter(lock, lock.newCondition(), c -> awaitAndReturn(c));
      awaitQueued(1);
      long start = System.nanoTime();
      await()
          .atMost(Timing.awaitAtMost())
          .until(() -> System.nanoTime() - start > 3 * SHORT_LEASE.toNanos());
      assertThat(queued()).as("its entry, renewed").isOne();
      ConditionLock signaller = lock();
      underLock(signaller, signaller.newCondition()::signal);
      assertThat(awaiter.result()).isEqualTo("signalled");
      assertThat(spuriousWakeUps()).isZero();
    }
  }

  // ---- the lock across an await ----

  @Nested
  class TheLock {
    @Test
    void awaitReleasesTheLockForOtherProcesses() throws Exception {
      Awaiter awaiter = awaiter();
      awaitQueued(1);
      assertThat(rawGet()).isNull();
      ConditionLock other = lock();
      assertThat(other.tryLock()).isTrue();
      other.newCondition().signal();
      other.unlock();
      awaiter.result();
    }

    @Test
    void aProcessWaitingForTheLockHoldsItInRedisWhenTheHolderAwaits() throws Exception {
      ConditionLock holder = lock();
      Condition condition = holder.newCondition();
      CountDownLatch held = new CountDownLatch(1);
      CountDownLatch goAwait = new CountDownLatch(1);
      CompletableFuture<Boolean> awaited =
          CompletableFuture.supplyAsync(
              () -> {
                holder.lock();
                try {
                  held.countDown();
                  goAwait.await();
                  return condition.await(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                  throw new IllegalStateException(e);
                } finally {
                  holder.unlock();
                }
              },
              threads);
      assertThat(held.await(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS)).isTrue();
      ConditionLock waiter = lock();
      ConditionLock third = lock();
      AtomicReference<Thread> waiterThread = new AtomicReference<>();
      CompletableFuture<String> whileWaiterHeld =
          CompletableFuture.supplyAsync(
              () -> {
                waiterThread.set(Thread.currentThread());
                waiter.lock();
                try {
                  String key = rawGet();
                  boolean thirdTook = CompletableFuture.supplyAsync(third::tryLock, threads).join();
                  waiter.newCondition().signal();
                  return key + " third took it: " + thirdTook;
                } finally {
                  waiter.unlock();
                }
              },
              threads);
      await()
          .atMost(Timing.awaitAtMost())
          .until(
              () ->
                  waiterThread.get() != null
                      && waiterThread.get().getState() != Thread.State.RUNNABLE
                      && rawGet() != null);
      goAwait.countDown();
      String seen = whileWaiterHeld.get(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS);
      assertThat(seen).doesNotStartWith("null").endsWith("third took it: false");
      assertThat(awaited.get(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS)).isTrue();
    }

    @Test
    void awaitRestoresTheHoldCountWithANewHoldAndAGreaterFencingToken() throws Exception {
      Awaiter awaiter = awaiter();
      awaitQueued(1);
      ConditionLock signaller = lock();
      underLock(signaller, signaller.newCondition()::signal);
      awaiter.result();
      assertThat(awaiter.heldAfter).isTrue();
      assertThat(awaiter.holdCountAfter).isEqualTo(2);
      assertThat(awaiter.keyAfter).startsWith("rl1:");
      assertThat(awaiter.tokenAfter).isGreaterThan(awaiter.tokenBefore);
      await().atMost(Timing.awaitAtMost()).until(() -> rawGet() == null);
    }

    @Test
    void aSignalForAnotherProcessGoesWithTheReleaseThatEndsTheHold() throws Exception {
      Awaiter awaiter = awaiter(); // a factory of its own: another process
      awaitQueued(1);
      ConditionLock signaller = lock();
      signaller.lock();
      signaller.lock();
      try {
        signaller.newCondition().signal();
        signaller.unlock();
        assertThat(queued(conditionKey("1", true, 's'))).as("signalled so far").isZero();
        assertThat(queued()).as("still queued while the signaller holds the lock").isOne();
        assertThat(awaiter.isWaiting()).isTrue();
      } finally {
        signaller.unlock();
      }
      assertThat(awaiter.result()).isEqualTo("signalled");
      assertThat(awaiter.heldAfter).isTrue();
    }

    @Test
    void aSignalForAnotherProcessHandsItTheLockWhenNobodyElseWaitsForIt() throws Exception {
      RedisLockFactory awaiting = factory(b -> b.recordStats());
      Awaiter awaiter = awaiter(awaiting);
      ConditionLock signaller = lock();
      underLock(signaller, signaller.newCondition()::signal);
      assertThat(awaiter.result()).isEqualTo("signalled");
      assertThat(awaiter.heldAfter).isTrue();
      assertThat(awaiter.holdCountAfter).isEqualTo(2);
      assertThat(awaiter.tokenAfter).isGreaterThan(awaiter.tokenBefore);
      // Taken without a round trip: the release that signalled it set the key to the awaiter's
      // token. A fair lock's release hands it to the first waiter of its queue instead.
      assertThat(awaiting.stats().handoffCount()).isEqualTo(fair() ? 0 : 1);
      await().atMost(Timing.awaitAtMost()).until(() -> rawGet() == null);
      assertThat(spuriousWakeUps()).isZero();
    }

    @Test
    void whileAnotherProcessWaitsForTheLockASignalReleasesItInsteadOfHandingItOver()
        throws Exception {
      RedisLockFactory awaiting = factory(b -> b.recordStats());
      Awaiter awaiter = awaiter(awaiting);
      ConditionLock signaller = lock();
      ConditionLock waiter = lock(factory());
      CompletableFuture<Void> waited;
      signaller.lock();
      try {
        waited = CompletableFuture.runAsync(() -> underLock(waiter, () -> {}), threads);
        await().atMost(Timing.awaitAtMost()).until(() -> lockChannelListeners() == 1);
        signaller.newCondition().signal();
      } finally {
        signaller.unlock();
      }
      assertThat(awaiter.result()).isEqualTo("signalled");
      waited.get(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS);
      assertThat(awaiting.stats().handoffCount()).as("took the lock from Redis").isZero();
    }

    @Test
    void anAwaiterThatLearnsFromARenewalThatItWasHandedTheLockTakesThatHold() throws Exception {
      Awaiter awaiter = awaiter(factory(b -> b.leaseTime(SHORT_LEASE)));
      String id = handInRedisOnly(); // no message: its next renewal tells it
      assertThat(awaiter.result()).isEqualTo("signalled");
      assertThat(awaiter.keyAfter).as("the handed key, not one taken anew").isEqualTo(id);
      assertThat(awaiter.holdCountAfter).isEqualTo(2);
    }

    /**
     * The awaiter's factory has another thread queued for the lock: it owns the lock in the JVM and
     * waits for a release in Redis, so the awaiter cannot take the handed hold past it. It gives
     * the hold back (a release, which wakes that thread) and takes the lock as any thread does.
     */
    @Test
    void aHandedOverAwaiterGivesTheLockBackToAThreadOfItsFactoryWaitingInRedis() throws Exception {
      RedisLockFactory awaiting = factory();
      Awaiter awaiter = awaiter(awaiting);
      String id = handInRedisOnly();
      ConditionLock other = lock(awaiting);
      CompletableFuture<String> otherSaw =
          CompletableFuture.supplyAsync(
              () -> {
                other.lock();
                try {
                  return rawGet();
                } finally {
                  other.unlock();
                }
              },
              threads);
      await().atMost(Timing.awaitAtMost()).until(() -> lockChannelListeners() == 1);
      publishOnCondition("held:" + id);
      assertThat(awaiter.result()).isEqualTo("signalled");
      assertThat(otherSaw.get(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS))
          .isNotNull()
          .isNotEqualTo(id);
      assertThat(awaiter.keyAfter).isNotNull().isNotEqualTo(id);
    }

    @Test
    void aSignalForAnAwaiterOfTheSameFactoryIsRecordedAtOnce() throws Exception {
      RedisLockFactory shared = factory();
      Awaiter awaiter = awaiter(shared);
      ConditionLock signaller = lock(shared);
      signaller.lock();
      signaller.lock();
      try {
        signaller.newCondition().signal();
        assertThat(queued(conditionKey("1", true, 's'))).as("signalled in Redis").isOne();
        signaller.unlock();
        assertThat(awaiter.isWaiting()).as("the signaller holds the lock still").isTrue();
      } finally {
        signaller.unlock();
      }
      assertThat(awaiter.result()).isEqualTo("signalled");
      assertThat(awaiter.heldAfter).isTrue();
    }

    @Test
    void signalsGivenBeforeAnAwaitOfTheSignallerAreNotLost() throws Exception {
      Awaiter awaiter = awaiter();
      awaitQueued(1);
      ConditionLock signaller = lock();
      Condition first = signaller.newCondition();
      Condition second = signaller.newCondition();
      signaller.lock();
      try {
        first.signal();
        // The signaller awaits another condition: its release must carry the signal first.
        assertThat(second.await(1, TimeUnit.MILLISECONDS)).isFalse();
        assertThat(queued()).as("the awaiter, signalled, left the queue").isZero();
      } finally {
        signaller.unlock(); // the awaiter needs the lock to return: the signaller took it again
      }
      assertThat(awaiter.result()).isEqualTo("signalled");
    }

    @Test
    void signalsOfTwoConditionsGoWithOneRelease() throws Exception {
      RedisLockFactory other = factory();
      ConditionLock awaitingFirst = lock(other);
      Awaiter onFirst =
          awaiter(awaitingFirst, awaitingFirst.newCondition(), c -> awaitAndReturn(c));
      awaitQueued(1);
      ConditionLock awaitingSecond = lock(other);
      awaitingSecond.newCondition(); // the second condition is the second one made
      Awaiter onSecond =
          awaiter(awaitingSecond, awaitingSecond.newCondition(), c -> awaitAndReturn(c));
      await().atMost(Timing.awaitAtMost()).until(() -> queued(conditionKey("2", true, 'q')) == 1);
      ConditionLock signaller = lock();
      Condition first = signaller.newCondition();
      Condition second = signaller.newCondition();
      signaller.lock();
      try {
        second.signal();
        first.signalAll();
        second.signal(); // nobody else waits there: nothing more happens
      } finally {
        signaller.unlock();
      }
      assertThat(onFirst.result()).isEqualTo("signalled");
      assertThat(onSecond.result()).isEqualTo("signalled");
    }
  }

  // ---- timeouts ----

  @Nested
  class Timeouts {
    private Awaiter timedAwaiter(AwaitCall call) {
      ConditionLock lock = lock();
      return awaiter(lock, lock.newCondition(), call);
    }

    @Test
    void awaitNanosReturnsAtMostZeroWhenTheTimeElapsesAndHoldsTheLockAgain() throws Exception {
      Awaiter awaiter =
          timedAwaiter(c -> c.awaitNanos(Timing.scaled(Duration.ofMillis(200)).toNanos()));
      assertThat((Long) awaiter.result()).isLessThanOrEqualTo(0L);
      assertThat(awaiter.heldAfter).isTrue();
      assertThat(awaiter.holdCountAfter).isEqualTo(2);
      assertThat(queued()).isZero();
    }

    @Test
    void timedAwaitReturnsFalseWhenTheTimeElapses() throws Exception {
      Awaiter awaiter =
          timedAwaiter(
              c ->
                  c.await(Timing.scaled(Duration.ofMillis(200)).toMillis(), TimeUnit.MILLISECONDS));
      assertThat(awaiter.result()).isEqualTo(false);
      assertThat(awaiter.heldAfter).isTrue();
    }

    @Test
    void awaitUntilAPastDeadlineReleasesAndReacquiresTheLock() throws Exception {
      Awaiter awaiter = timedAwaiter(c -> c.awaitUntil(new Date(System.currentTimeMillis() - 1)));
      assertThat(awaiter.result()).isEqualTo(false);
      assertThat(awaiter.heldAfter).isTrue();
      assertThat(awaiter.tokenAfter).as("a new hold").isGreaterThan(awaiter.tokenBefore);
    }

    @Test
    void extremeDeadlinesNeitherOverflowNorWaitForever() throws Exception {
      Awaiter past = timedAwaiter(c -> c.awaitUntil(new Date(Long.MIN_VALUE)));
      assertThat(past.result()).isEqualTo(false);
      Awaiter nanos = timedAwaiter(c -> c.awaitNanos(Long.MIN_VALUE));
      assertThat((Long) nanos.result()).isLessThanOrEqualTo(0L);
      Awaiter future = timedAwaiter(c -> c.awaitUntil(new Date(Long.MAX_VALUE)));
      awaitQueued(1);
      ConditionLock signaller = lock();
      underLock(signaller, signaller.newCondition()::signal);
      assertThat(future.result()).isEqualTo(true);
    }

    @Test
    void timedAwaitsReturnTrueOrTimeLeftWhenSignalled() throws Exception {
      long day = TimeUnit.DAYS.toNanos(1);
      Awaiter nanos = timedAwaiter(c -> c.awaitNanos(day));
      awaitQueued(1);
      Awaiter time = timedAwaiter(c -> c.await(1, TimeUnit.DAYS));
      Awaiter until =
          timedAwaiter(c -> c.awaitUntil(new Date(System.currentTimeMillis() + 86_400_000)));
      awaitQueued(3);
      ConditionLock signaller = lock();
      underLock(signaller, signaller.newCondition()::signalAll);
      assertThat((Long) nanos.result()).isPositive().isLessThan(day);
      assertThat(time.result()).isEqualTo(true);
      assertThat(until.result()).isEqualTo(true);
    }

    @Test
    void aSignalThatReachedRedisBeforeTheTimeoutIsNotLost() throws Exception {
      // A long lease: the awaiter renews (and would learn of the signal) only after the timeout.
      ConditionLock lock = lock(factory(b -> b.leaseTime(Duration.ofMinutes(2))));
      Awaiter awaiter =
          awaiter(
              lock,
              lock.newCondition(),
              c -> c.await(Timing.scaled(Duration.ofSeconds(3)).toMillis(), TimeUnit.MILLISECONDS));
      awaitQueued(1);
      signalInRedisOnly(); // recorded, and its message not heard: the timeout finds it
      assertThat(awaiter.result()).isEqualTo(true);
      assertThat(awaiter.heldAfter).isTrue();
    }
  }

  // ---- interrupts ----

  @Nested
  class Interrupts {
    @Test
    void anAwaitWithTheInterruptStatusSetThrowsAtOnceAndKeepsTheLock() {
      ConditionLock lock = lock();
      Condition condition = lock.newCondition();
      lock.lock();
      String key = rawGet();
      try {
        Thread.currentThread().interrupt();
        assertThatThrownBy(condition::await).isInstanceOf(InterruptedException.class);
        assertThat(Thread.currentThread().isInterrupted()).isFalse();
        assertThat(rawGet()).as("the same hold").isEqualTo(key);
        assertThat(queued()).isZero();
      } finally {
        lock.unlock();
      }
    }

    @Test
    void anInterruptBeforeASignalThrowsAfterReacquiringTheLock() throws Exception {
      Awaiter awaiter = awaiter();
      awaitQueued(1);
      awaiter.thread.interrupt();
      assertThat(awaiter.failure()).isInstanceOf(InterruptedException.class);
      assertThat(awaiter.heldAfter).isTrue();
      assertThat(awaiter.holdCountAfter).isEqualTo(2);
      assertThat(awaiter.interruptedAfter).isFalse();
      assertThat(queued()).as("it left the queue").isZero();
    }

    @Test
    void anInterruptAfterASignalSetsTheInterruptStatusAndReturnsNormally() throws Exception {
      // Signalled in Redis, its message not heard: the interrupt finds the signal was first.
      ConditionLock lock = lock(factory(b -> b.leaseTime(Duration.ofMinutes(2))));
      Awaiter awaiter = awaiter(lock, lock.newCondition(), c -> awaitAndReturn(c));
      awaitQueued(1);
      signalInRedisOnly();
      awaiter.thread.interrupt();
      assertThat(awaiter.result()).isEqualTo("signalled");
      assertThat(awaiter.interruptedAfter).isTrue();
      assertThat(awaiter.heldAfter).isTrue();
    }

    @Test
    void anInterruptWhileReacquiringAfterASignalSetsTheInterruptStatus() throws Exception {
      // One factory: a signal for an awaiter of the signaller's own factory is recorded at once,
      // so the awaiter is signalled while the signaller still holds the lock.
      RedisLockFactory shared = factory();
      Awaiter awaiter = awaiter(shared);
      ConditionLock signaller = lock(shared);
      signaller.lock();
      try {
        signaller.newCondition().signal();
        await().atMost(Timing.awaitAtMost()).until(() -> queued(conditionKey("1", true, 's')) == 1);
        awaiter.thread.interrupt();
      } finally {
        signaller.unlock();
      }
      assertThat(awaiter.result()).isEqualTo("signalled");
      assertThat(awaiter.interruptedAfter).isTrue();
    }

    @Test
    void awaitUninterruptiblyKeepsWaitingThroughAnInterrupt() throws Exception {
      ConditionLock lock = lock();
      Awaiter awaiter =
          awaiter(
              lock,
              lock.newCondition(),
              c -> {
                c.awaitUninterruptibly();
                return "signalled";
              });
      awaitQueued(1);
      awaiter.thread.interrupt();
      await()
          .atMost(Timing.awaitAtMost())
          .until(() -> awaiter.thread.getState() != Thread.State.RUNNABLE);
      assertThat(awaiter.isWaiting()).isTrue();
      assertThat(queued()).isOne();
      ConditionLock signaller = lock();
      underLock(signaller, signaller.newCondition()::signal);
      assertThat(awaiter.result()).isEqualTo("signalled");
      assertThat(awaiter.interruptedAfter).isTrue();
    }

    @Test
    void timedAwaitInterruptedBeforeASignalThrows() throws Exception {
      ConditionLock lock = lock();
      Awaiter awaiter = awaiter(lock, lock.newCondition(), c -> c.await(1, TimeUnit.DAYS));
      awaitQueued(1);
      awaiter.thread.interrupt();
      assertThat(awaiter.failure()).isInstanceOf(InterruptedException.class);
      assertThat(awaiter.heldAfter).isTrue();
    }
  }

  // ---- awaiters that died ----

  @Nested
  class DeadAwaiters {
    /**
     * The entry of an awaiter whose process died, with a lease of {@code lease}: written into Redis
     * as an await writes it, first in the queue, and left there until its lease runs out.
     */
    private void deadAwaiter(Duration lease) {
      String queue = conditionKey("1", true, 'q');
      String leases = conditionKey("1", true, 't');
      String meta = "{" + name + "}:lock-meta";
      String field = "condadb"; // the sequence field of condition "1" (byte 0x31)
      try (Jedis jedis = deployment.raw(name)) {
        long now = Long.parseLong(jedis.time().get(0)) * 1000;
        long sequence = jedis.hincrBy(meta, field, 1);
        jedis.zadd(queue, sequence, "rl1:dead");
        jedis.zadd(leases, now + lease.toMillis(), "rl1:dead");
        for (String key : List.of(queue, leases, meta)) {
          jedis.pexpire(key, 120_000);
        }
      }
      awaitQueued(1);
    }

    @Test
    void aClosingFactoryTakesItsAwaitersOutOfTheQueue() throws Exception {
      RedisLockFactory closing = factory(b -> b.leaseTime(Duration.ofMinutes(1)));
      ConditionLock lock = lock(closing);
      Awaiter awaiter = awaiter(lock, lock.newCondition(), c -> awaitAndReturn(c));
      awaitQueued(1);
      closing.close();
      assertThat(awaiter.failure()).isInstanceOf(IllegalStateException.class);
      awaitQueued(0); // long before its one-minute lease runs out
      ConditionLock signaller = lock();
      underLock(signaller, signaller.newCondition()::signal);
      assertThat(rawGet()).as("nobody was handed the lock").isNull();
    }

    /**
     * The awaiter of a closing factory was signalled (in Redis; it had not heard yet): the signal
     * is not its any more, and passes on to the next awaiter at once.
     */
    @Test
    void aSignalForAnAwaiterOfAClosingFactoryPassesOnAtOnce() throws Exception {
      RedisLockFactory closing = factory(b -> b.leaseTime(Duration.ofMinutes(1)));
      ConditionLock lock = lock(closing);
      Awaiter awaiter = awaiter(lock, lock.newCondition(), c -> awaitAndReturn(c));
      awaitQueued(1);
      ConditionLock nextLock = lock();
      Awaiter next = awaiter(nextLock, nextLock.newCondition(), c -> awaitAndReturn(c));
      awaitQueued(2);
      signalInRedisOnly(); // to the first awaiter, with a signal lease that never runs out
      closing.close();
      assertThat(awaiter.failure()).isInstanceOf(IllegalStateException.class);
      assertThat(next.result()).isEqualTo("signalled");
      assertThat(spuriousWakeUps()).isZero();
    }

    /**
     * The awaiter of a closing factory was signalled and handed the lock (in Redis; it had not
     * heard yet): the lock is released and the signal passes on, so the next awaiter returns
     * holding the lock long before the closed awaiter's entry would have run out.
     */
    @Test
    void aLockHandedToAnAwaiterOfAClosingFactoryIsReleasedAndItsSignalPassesOn() throws Exception {
      RedisLockFactory closing = factory(b -> b.leaseTime(Duration.ofMinutes(1)));
      ConditionLock lock = lock(closing);
      Awaiter awaiter = awaiter(lock, lock.newCondition(), c -> awaitAndReturn(c));
      awaitQueued(1);
      ConditionLock nextLock = lock();
      Awaiter next = awaiter(nextLock, nextLock.newCondition(), c -> awaitAndReturn(c));
      awaitQueued(2);
      String id = handInRedisOnly(); // the key holds the first awaiter's id for a minute
      closing.close();
      assertThat(awaiter.failure()).isInstanceOf(IllegalStateException.class);
      assertThat(next.result()).isEqualTo("signalled");
      assertThat(next.heldAfter).isTrue();
      assertThat(next.keyAfter).isNotEqualTo(id);
    }

    /**
     * An entry whose lease entry is gone (evicted, or deleted by hand) would never run out: it is
     * no awaiter, and a signal skips it, as the fair queue skips a place without a lease.
     */
    @Test
    void anEntryWithoutALeaseIsNoAwaiterAndASignalSkipsIt() throws Exception {
      String queue = conditionKey("1", true, 'q');
      try (Jedis jedis = deployment.raw(name)) {
        String meta = "{" + name + "}:lock-meta";
        jedis.zadd(queue, jedis.hincrBy(meta, "condadb", 1), "rl1:leaseless");
        jedis.pexpire(queue, 120_000);
        jedis.pexpire(meta, 120_000);
      }
      ConditionLock lock = lock();
      Awaiter living = awaiter(lock, lock.newCondition(), c -> awaitAndReturn(c));
      String leases = conditionKey("1", true, 't');
      await().atMost(Timing.awaitAtMost()).until(() -> queued(leases) == 1); // the living one
      // A long lease: a signal taken by the leaseless entry would pass on only when it ran out.
      ConditionLock signaller = lock(factory(b -> b.leaseTime(Duration.ofMinutes(10))));
      underLock(signaller, signaller.newCondition()::signal);
      assertThat(living.result()).isEqualTo("signalled");
      assertThat(spuriousWakeUps()).isZero();
      try (Jedis jedis = deployment.raw(name)) {
        assertThat(jedis.zrange(queue, 0, -1)).as("the leaseless entry is gone").isEmpty();
        assertThat(jedis.zrange(conditionKey("1", true, 's'), 0, -1))
            .doesNotContain("rl1:leaseless");
      }
    }

    @Test
    void anAwaiterWhoseProcessDiedIsSkipped() throws Exception {
      deadAwaiter(Timing.scaled(Duration.ofSeconds(2)));
      ConditionLock lock = lock(factory(b -> b.leaseTime(SHORT_LEASE)));
      Awaiter living = awaiter(lock, lock.newCondition(), c -> awaitAndReturn(c));
      awaitQueued(2);
      awaitQueued(1); // the living awaiter's renewals sweep the dead entry out
      ConditionLock signaller = lock();
      underLock(signaller, signaller.newCondition()::signal);
      assertThat(living.result()).isEqualTo("signalled");
    }

    /**
     * The release hands the lock to the dead awaiter, first in the queue, as to a live one: the
     * lock is free again when the dead awaiter's entry would have run out, and its signal passes on
     * once the signalled entry does.
     */
    @Test
    void aSignalThatWentToADeadAwaiterPassesOnToTheNext() throws Exception {
      deadAwaiter(Timing.scaled(Duration.ofSeconds(3))); // its entry is there at the signal
      ConditionLock lock = lock(factory(b -> b.leaseTime(SHORT_LEASE)));
      Awaiter living = awaiter(lock, lock.newCondition(), c -> awaitAndReturn(c));
      awaitQueued(2);
      ConditionLock signaller = lock(factory(b -> b.leaseTime(SHORT_LEASE)));
      underLock(signaller, signaller.newCondition()::signal); // to the dead awaiter, first
      assertThat(living.result()).isEqualTo("signalled");
      assertThat(spuriousWakeUps()).as("woken by the signal, passed on").isZero();
    }
  }

  // ---- identity ----

  @Nested
  class Identity {
    @Test
    void theNthNewConditionOfALockObjectIsConditionNInEveryFactory() throws Exception {
      ConditionLock lock = lock();
      lock.newCondition();
      Condition second = lock.newCondition();
      Awaiter awaiter = awaiter(lock, second, c -> awaitAndReturn(c));
      await().atMost(Timing.awaitAtMost()).until(() -> queued(conditionKey("2", true, 'q')) == 1);
      ConditionLock other = lock();
      Condition otherFirst = other.newCondition();
      Condition otherSecond = other.newCondition();
      underLock(other, otherFirst::signalAll);
      assertThat(awaiter.isWaiting()).isTrue();
      underLock(other, otherSecond::signal);
      assertThat(awaiter.result()).isEqualTo("signalled");
    }

    @Test
    void namedConditionsMatchAcrossFactoriesAndNeverANumberedOne() throws Exception {
      ConditionLock lock = lock();
      Awaiter awaiter = awaiter(lock, lock.newCondition("1"), c -> awaitAndReturn(c));
      await().atMost(Timing.awaitAtMost()).until(() -> queued(conditionKey("1", false, 'q')) == 1);
      ConditionLock other = lock();
      underLock(other, other.newCondition()::signalAll); // numbered 1: another condition
      assertThat(awaiter.isWaiting()).isTrue();
      underLock(other, other.newCondition("1")::signal);
      assertThat(awaiter.result()).isEqualTo("signalled");
    }

    @Test
    void aConditionsKeysAreBesideTheLockKeyAndExpire() throws Exception {
      ConditionLock lock = lock();
      Awaiter awaiter = awaiter(lock, lock.newCondition("not ready ☕"), c -> awaitAndReturn(c));
      String queue = conditionKey("not ready ☕", false, 'q');
      await().atMost(Timing.awaitAtMost()).until(() -> queued(queue) == 1);
      try (Jedis jedis = deployment.raw(name)) {
        assertThat(jedis.pttl(queue)).isPositive();
        assertThat(jedis.pttl(conditionKey("not ready ☕", false, 't'))).isPositive();
      }
      ConditionLock other = lock();
      underLock(other, other.newCondition("not ready ☕")::signal);
      awaiter.result();
    }

    @Test
    void newConditionWithANullNameThrowsNullPointer() {
      assertThatThrownBy(() -> lock().newCondition(null)).isInstanceOf(NullPointerException.class);
    }
  }

  // ---- Redis is down ----

  @Nested
  class WhenRedisIsDown {
    @Test
    void anAwaitThatCannotReachRedisThrowsRedisLockExceptionAndHoldsNothing() {
      ConditionLock lock = lock();
      Condition condition = lock.newCondition();
      lock.lock();
      deployment.stop();
      try {
        assertThatThrownBy(condition::await).isInstanceOf(RedisLockException.class);
        assertThat(lock.isHeldByCurrentThread()).isFalse();
      } finally {
        deployment.restart();
      }
    }
  }
}
