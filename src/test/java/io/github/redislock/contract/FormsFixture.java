package io.github.redislock.contract;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.redislock.LockHandle;
import io.github.redislock.LockLostEvent;
import io.github.redislock.RedisLock;
import io.github.redislock.RedisLockFactory;
import io.github.redislock.testing.IntegrationTest;
import io.github.redislock.testing.Timing;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.TestInstance;
import redis.clients.jedis.Jedis;

/**
 * What {@link HandleContractTest} and {@link LeaseContractTest} share: a deployment for the class,
 * factories that stand for processes (each has its own connections and subscriptions, and reports
 * losses to {@link #lostEvents}), threads of the test, and where a {@link HoldKind} keeps its holds
 * and waiters in Redis. After each test every factory is checked for renewals, local state and
 * subscriptions left behind, then closed; the {@link io.github.redislock.testing.LeakCheck} of
 * {@link IntegrationTest} then checks threads, keys and subscriptions.
 */
@IntegrationTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class FormsFixture {

  /**
   * A window in which something must not happen: a pending acquisition completing while the lock is
   * busy, or an acquisition that gave up taking the lock after a release. A wake-up by the
   * release's publish takes a few milliseconds.
   */
  static final Duration QUIET = Timing.scaled(Duration.ofMillis(200));

  private Deployment deployment;
  private final List<RedisLockFactory> factories = new CopyOnWriteArrayList<>();

  /** What the factories of the test reported to their {@code onLockLost} listener. */
  final List<LockLostEvent> lostEvents = new CopyOnWriteArrayList<>();

  /** The test's own threads, besides the one that runs it. */
  ExecutorService threads;

  private String name;

  /** Starts the deployment this subclass tests. */
  protected abstract Deployment startDeployment();

  /** The kind of lock this subclass tests. */
  protected abstract HoldKind kind();

  /**
   * Whether this subclass runs every case of its suite, or only those that the deployment can
   * change (the suite's description says which): a test that only the full run needs is annotated
   * {@code @EnabledIf("everyCase")}.
   */
  protected boolean everyCase() {
    return true;
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
    name =
        "forms:"
            + kind().name().toLowerCase(java.util.Locale.ROOT)
            + ":"
            + info.getTestMethod().orElseThrow().getName()
            + ":"
            + System.nanoTime();
    threads = Executors.newCachedThreadPool();
    lostEvents.clear();
  }

  @AfterEach
  void checkNothingLeaks() throws InterruptedException {
    threads.shutdownNow();
    List<AssertionError> leaks = new ArrayList<>();
    if (!threads.awaitTermination(10, TimeUnit.SECONDS)) {
      leaks.add(new AssertionError("the test's threads did not end"));
    }
    for (RedisLockFactory factory : factories) {
      try {
        assertThat(factory.activity().renewingHoldCount()).as("renewals still running").isZero();
        await("local state and wake-up channels given up")
            .atMost(Timing.CLEAN_UP)
            .untilAsserted(
                () -> {
                  assertThat(factory.activity().namesInUseCount()).as("names in use").isZero();
                  assertThat(factory.activity().subscribedChannelCount())
                      .as("wake-up channels still subscribed")
                      .isZero();
                });
      } catch (AssertionError | RuntimeException e) {
        leaks.add(
            new AssertionError(
                "factory " + factories.indexOf(factory) + " left something behind", e));
      } finally {
        factory.close(); // always: a failed test must not leak the factory's threads too
      }
    }
    factories.clear();
    if (!leaks.isEmpty()) {
      AssertionError first = leaks.get(0);
      leaks.stream().skip(1).forEach(first::addSuppressed);
      throw first;
    }
    // LeakCheck (@IntegrationTest) then checks threads, keys and subscriptions, and flushes.
  }

  /**
   * Awaitility as these tests use it: the first poll at once, then every 10 ms (the default waits
   * 100 ms first, which a case that awaits many times, such as a loop of races, pays each time).
   */
  static ConditionFactory await() {
    return Awaitility.await().pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(10));
  }

  /** {@link #await()} with an alias for its failure message. */
  static ConditionFactory await(String alias) {
    return await().alias(alias);
  }

  // ---- factories and locks ----

  /** A new factory with the deployment's settings: another process, as it were. */
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

  /** The lock under test, of this test's name, from a new factory. */
  RedisLock lock() {
    return kind().of(factory(), name);
  }

  /** The lock under test, of this test's name, from {@code factory}. */
  RedisLock lockOf(RedisLockFactory factory) {
    return kind().of(factory, name);
  }

  /** A lock whose holds exclude the lock under test (see {@link HoldKind#blockerOf}). */
  RedisLock blockerOf(RedisLockFactory factory) {
    return kind().blockerOf(factory, name);
  }

  /** Whether anybody holds the lock, as a factory of its own asks Redis. */
  boolean isLocked(RedisLockFactory probe) {
    return kind().isLocked(probe, name);
  }

  String name() {
    return name;
  }

  Deployment deployment() {
    return deployment;
  }

  // ---- where holds and waiters are in Redis ----

  /** The sorted set of read shares: token to the server time its lease ends. */
  String sharesKey() {
    return "{" + name + "}:lock-rs";
  }

  /** The sorted set of waiting writers' intents. */
  String intentsKey() {
    return "{" + name + "}:lock-wi";
  }

  /** The sorted set of a fair lock's queue: waiter id to place. */
  String queueKey() {
    return "{" + name + "}:lock-fq";
  }

  /** The key in which a hold of the kind under test lives. */
  String holdKey() {
    return kind() == HoldKind.READ ? sharesKey() : name;
  }

  static long serverMillis(Jedis jedis) {
    List<String> time = jedis.time();
    return Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
  }

  /** How many holds of the kind under test a server keeps: live read shares, or the key. */
  long holdsOn(Jedis jedis) {
    if (kind() == HoldKind.READ) {
      return jedis.zcount(sharesKey(), "(" + serverMillis(jedis), "+inf");
    }
    return jedis.exists(name) ? 1 : 0;
  }

  /** Whether any server that keeps a copy of the lock (every Redlock master) has a hold of it. */
  boolean heldOnAnyCopy() {
    boolean held = false;
    for (Jedis jedis : deployment.rawCopies(holdKey())) {
      try (jedis) {
        held |= holdsOn(jedis) > 0;
      }
    }
    return held;
  }

  /** Whether every server that keeps a copy of the lock has a hold of it. */
  boolean heldOnEveryCopy() {
    boolean held = true;
    for (Jedis jedis : deployment.rawCopies(holdKey())) {
      try (jedis) {
        held &= holdsOn(jedis) > 0;
      }
    }
    return held;
  }

  /**
   * The longest time, in ms, that a hold of the kind under test has left on any server: the lock
   * key's PTTL, or what the read share that ends last has left.
   */
  long leaseLeftMillis() {
    long left = -2;
    for (Jedis jedis : deployment.rawCopies(holdKey())) {
      try (jedis) {
        if (kind() == HoldKind.READ) {
          List<redis.clients.jedis.resps.Tuple> last = jedis.zrangeWithScores(sharesKey(), -1, -1);
          if (!last.isEmpty()) {
            left = Math.max(left, (long) last.get(0).getScore() - serverMillis(jedis));
          }
        } else {
          left = Math.max(left, jedis.pttl(name));
        }
      }
    }
    return left;
  }

  /** Deletes the hold from Redis behind the library's back (the read shares: all of them). */
  void deleteHold() {
    for (Jedis jedis : deployment.rawCopies(holdKey())) {
      try (jedis) {
        jedis.del(holdKey());
      }
    }
  }

  /**
   * What waiting acquisitions of the kind under test leave in Redis: places in the fair queue, or
   * writers' intents; nothing for the plain and the read lock, whose waiters wait in their JVM.
   */
  long waitEntries() {
    String key =
        switch (kind()) {
          case FAIR -> queueKey();
          case WRITE -> intentsKey();
          case PLAIN, READ -> null;
        };
    if (key == null) {
      return 0;
    }
    try (Jedis jedis = deployment.raw(key)) {
      return jedis.zcard(key);
    }
  }

  /** Waits until the acquisitions waiting in Redis leave {@code entries} (see waitEntries). */
  void awaitWaitEntries(long entries) {
    await("places in the fair queue or writers' intents")
        .atMost(Timing.awaitAtMost())
        .until(this::waitEntries, n -> n == entries);
  }

  /**
   * Waits until a waiting acquisition, {@code pending}, leaves {@code entries} in Redis (see
   * waitEntries); fails at once if it ends first.
   */
  void awaitWaitEntries(long entries, Future<?> pending) {
    await("places in the fair queue or writers' intents of a waiting acquisition")
        .atMost(Timing.awaitAtMost())
        .failFast("the acquisition ended instead of waiting", pending::isDone)
        .until(this::waitEntries, n -> n == entries);
  }

  /** The number of entries one waiting acquisition of the kind under test leaves in Redis. */
  long entriesOfOneWaiter() {
    return kind() == HoldKind.FAIR || kind() == HoldKind.WRITE ? 1 : 0;
  }

  /**
   * The number of commands the servers executed, leaving out those the counting connections send
   * themselves (INFO, CLIENT) and the deployment's background commands.
   */
  long redisCalls() {
    long total = 0;
    for (Jedis jedis : deployment.rawAll()) {
      try (jedis) {
        for (String line : jedis.info("commandstats").lines().toList()) {
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

  /**
   * Checks that {@code check} keeps holding for {@code period}, polled with Awaitility (not a
   * sleep): the first poll that finds it false fails the test.
   */
  static void holdsFor(Duration period, String what, Callable<Boolean> check) {
    await(what)
        .during(period)
        .atMost(period.plus(Timing.CLEAN_UP))
        .failFast(what + ": no longer so", () -> !check.call())
        .until(check);
  }

  // ---- threads ----

  /**
   * Runs {@code task} on another thread of the test and returns what it returns, or throws what it
   * throws.
   */
  <T> T onOtherThread(Callable<T> task) throws Exception {
    Thread caller = Thread.currentThread();
    Future<T> result =
        threads.submit(
            () -> {
              assertThat(Thread.currentThread()).isNotSameAs(caller);
              return task.call();
            });
    try {
      return result.get(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof Exception cause) {
        throw cause;
      }
      throw e;
    }
  }

  /** Runs {@code action} on another thread of the test; see {@link #onOtherThread(Callable)}. */
  void onOtherThread(Runnable action) throws Exception {
    var unused =
        onOtherThread(
            () -> {
              action.run();
              return null;
            });
  }

  /** Releases {@code handle} if it is there, quietly: for what a failed test got by mistake. */
  static void releaseQuietly(java.util.Optional<LockHandle> handle) {
    handle.ifPresent(
        h -> {
          try {
            h.close();
          } catch (RuntimeException e) {
            // the test fails on its own assertion; this only keeps the clean-up tidy
          }
        });
  }

  /**
   * A thread of the test that holds {@code lock} (by {@code lock()}) until {@link
   * Holder#release()}.
   */
  Holder holdInOtherThread(RedisLock lock) throws Exception {
    Holder holder = new Holder(lock);
    threads.execute(holder);
    assertThat(holder.acquired.await(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS))
        .as("acquired in another thread")
        .isTrue();
    return holder;
  }

  static final class Holder implements Runnable {
    final RedisLock lock;
    final CountDownLatch acquired = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);
    final java.util.concurrent.CompletableFuture<Void> done =
        new java.util.concurrent.CompletableFuture<>();

    Holder(RedisLock lock) {
      this.lock = lock;
    }

    @Override
    public void run() {
      try {
        lock.lock();
      } catch (RuntimeException e) {
        done.completeExceptionally(e);
        return;
      }
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
                      || (thread != null
                          && (thread.getState() == Thread.State.WAITING
                              || thread.getState() == Thread.State.TIMED_WAITING)));
      assertThat(future).isNotDone();
    }

    T get() throws InterruptedException, ExecutionException, TimeoutException {
      return future.get(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS);
    }
  }

  /**
   * The overlap detector: holders call {@link #enter} when they get the lock and {@link #exit}
   * before they release it. An exclusive holder must find nobody inside; a shared one, no exclusive
   * holder.
   */
  static final class Overlaps {
    private final AtomicInteger exclusive = new AtomicInteger();
    private final AtomicInteger shared = new AtomicInteger();
    private final AtomicInteger entries = new AtomicInteger();
    private final List<String> overlaps = new CopyOnWriteArrayList<>();

    void enter(boolean isShared, String who) {
      entries.incrementAndGet();
      if (isShared) {
        shared.incrementAndGet();
        if (exclusive.get() != 0) {
          overlaps.add(who + " entered beside an exclusive holder");
        }
      } else {
        int inside = exclusive.incrementAndGet();
        if (inside != 1 || shared.get() != 0) {
          overlaps.add(
              who + " entered beside " + (inside - 1) + " exclusive, " + shared + " shared");
        }
      }
      for (int i = 0; i < 1000; i++) {
        Thread.onSpinWait(); // a wider window for an overlap, not a synchronisation
      }
    }

    void exit(boolean isShared) {
      (isShared ? shared : exclusive).decrementAndGet();
    }

    int entries() {
      return entries.get();
    }

    List<String> overlaps() {
      return overlaps;
    }
  }
}
