package io.github.redislock.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.redislock.RedisDistributedLock;
import io.github.redislock.RedisLockException;
import io.github.redislock.RedisLockFactory;
import io.github.redislock.testing.IntegrationTest;
import io.github.redislock.testing.RedisInvariants;
import io.github.redislock.testing.RedisServerExtension;
import io.github.redislock.testing.TcpProxy;
import io.github.redislock.testing.Timing;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.Jedis;

/**
 * Faults injected into a real {@code redis-server}: paused (SIGSTOP), script cache flushed, a reply
 * lost on the way back.
 */
@IntegrationTest
class RedisFaultsTest {
  @RegisterExtension static final RedisServerExtension redis = new RedisServerExtension();
  private final List<RedisLockFactory> factories = new ArrayList<>();
  private ExecutorService threads;
  private String name;

  @BeforeEach
  void setUp(TestInfo info) {
    name = "faults:" + info.getTestMethod().orElseThrow().getName();
    threads = Executors.newCachedThreadPool();
  }

  @AfterEach
  void tearDown() throws InterruptedException {
    RedisInvariants.closeAfterTest(redis.server(), threads, factories);
  }

  private RedisLockFactory factory() {
    RedisLockFactory factory =
        RedisLockFactory.builder()
            .standalone(redis.server().uri())
            .commandTimeout(Duration.ofMillis(500))
            .build();
    factories.add(factory);
    return factory;
  }

  private static Object outcome(Future<Boolean> attempt) throws InterruptedException {
    try {
      return attempt.get();
    } catch (ExecutionException e) {
      return e.getCause();
    }
  }

  @Test
  void aReleaseWhoseReplyIsLostIsRetriedAndCountsAsReleased() throws Exception {
    try (TcpProxy proxy = TcpProxy.start(redis.server().port())) {
      RedisLockFactory factory =
          RedisLockFactory.builder()
              .standalone(proxy.uri())
              .commandTimeout(Timing.scaled(Duration.ofSeconds(10))) // the test cuts it short
              .build();
      factories.add(factory);
      RedisDistributedLock lock = factory.getLock(name);
      CountDownLatch locked = new CountDownLatch(1);
      CountDownLatch release = new CountDownLatch(1);
      Future<Boolean> owner =
          threads.submit(
              () -> {
                lock.lock();
                lock.unlock(); // the server caches the release script: the stalled call runs, not
                // NOSCRIPT
                lock.lock();
                locked.countDown();
                release.await();
                lock.unlock(); // its reply is lost: the retry finds the key gone, within the lease
                return lock.isHeldByCurrentThread();
              });
      assertThat(locked.await(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS)).isTrue();
      proxy.stallReplies();
      release.countDown();
      try (Jedis jedis = redis.server().jedis()) {
        await().atMost(Timing.awaitAtMost()).until(() -> !jedis.exists(name));
      }
      proxy.cutAll(); // the release's reply is lost with its connection
      proxy.unstall();
      assertThat(owner.get(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS))
          .as("held after unlock")
          .isFalse();
      assertThat(lock.tryLock()).isTrue();
      lock.unlock();
    }
  }

  @Test
  void timedTryLockEndsByItsDeadlineWhenRedisIsPausedWhileItWaits() throws Exception {
    RedisDistributedLock held = factory().getLock(name);
    CompletableFuture<Void> release = new CompletableFuture<>();
    Future<?> holder =
        threads.submit(
            () -> {
              held.lock();
              try {
                release.join();
              } finally {
                held.unlock();
              }
              return null;
            });
    await().atMost(Timing.awaitAtMost()).until(held::isLocked);

    RedisDistributedLock lock = factory().getLock(name);
    Duration wait = Duration.ofSeconds(1);
    Thread[] waiter = new Thread[1];
    Future<Boolean> attempt =
        threads.submit(
            () -> {
              waiter[0] = Thread.currentThread();
              return lock.tryLock(wait.toMillis(), TimeUnit.MILLISECONDS);
            });
    await()
        .atMost(Timing.awaitAtMost())
        .until(() -> waiter[0] != null && waiter[0].getState() == Thread.State.TIMED_WAITING);
    redis.server().pause();
    // The deadline plus a second of slack for a loaded machine; a stalled Redis call alone would
    // take the client's two socket timeouts plus a reconnect.
    await().atMost(Timing.scaled(wait.plusSeconds(1))).until(attempt::isDone);
    assertThat(outcome(attempt))
        .satisfiesAnyOf(
            result -> assertThat(result).isEqualTo(false),
            result -> assertThat(result).isInstanceOf(RedisLockException.class));

    redis.server().resume();
    release.complete(null);
    holder.get(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS);
    assertThat(lock.tryLock(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS)).isTrue();
    lock.unlock();
  }

  @Test
  void timedTryLockOnAPausedRedisThrowsByItsDeadlineAndLeavesNoKeyAfterResume() throws Exception {
    RedisDistributedLock lock = factory().getLock(name);
    redis.server().pause();
    Future<Boolean> attempt = threads.submit(() -> lock.tryLock(300, TimeUnit.MILLISECONDS));
    await().atMost(Timing.scaled(Duration.ofMillis(1300))).until(attempt::isDone);
    assertThat(outcome(attempt)).isInstanceOf(RedisLockException.class);
    redis.server().resume();
    // The abandoned SET reaches Redis after the resume; it is released as soon as it answers.
    try (Jedis jedis = redis.server().jedis()) {
      await().atMost(Timing.awaitAtMost()).until(() -> !jedis.exists(name));
    }
    assertThat(lock.tryLock()).isTrue();
    lock.unlock();
  }

  @Test
  void lockWaitsThroughAPauseAndAcquiresAfterResume() throws Exception {
    RedisDistributedLock lock = factory().getLock(name);
    redis.server().pause();
    Thread[] waiter = new Thread[1];
    Future<Long> locked =
        threads.submit(
            () -> {
              waiter[0] = Thread.currentThread();
              lock.lock();
              try {
                return lock.getFencingToken();
              } finally {
                lock.unlock();
              }
            });
    await().atMost(Timing.awaitAtMost()).until(() -> waiter[0] != null);
    assertThat(locked).isNotDone();
    redis.server().resume();
    assertThat(locked.get(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS)).isPositive();
  }

  @Test
  void scriptFlushDuringContendedLockingKeepsMutualExclusion() throws Exception {
    RedisLockFactory first = factory();
    RedisLockFactory second = factory();
    AtomicBoolean flushing = new AtomicBoolean(true);
    Future<Integer> flusher =
        threads.submit(
            () -> {
              int flushes = 0;
              try (Jedis jedis = redis.server().jedis()) {
                while (flushing.get()) {
                  jedis.scriptFlush();
                  flushes++;
                  Thread.onSpinWait();
                }
              }
              return flushes;
            });
    // Visible to every thread (volatile semantics), but incremented non-atomically: only mutual
    // exclusion keeps the count exact and the overlap detector at zero.
    AtomicInteger counter = new AtomicInteger();
    AtomicInteger inside = new AtomicInteger();
    int perThread = 150;
    List<Future<Integer>> workers = new ArrayList<>();
    for (int t = 0; t < 4; t++) {
      RedisDistributedLock lock = (t % 2 == 0 ? first : second).getLock(name);
      workers.add(
          threads.submit(
              () -> {
                int overlaps = 0;
                for (int i = 0; i < perThread; i++) {
                  lock.lock();
                  try {
                    if (inside.incrementAndGet() != 1) {
                      overlaps++;
                    }
                    counter.set(counter.get() + 1);
                    inside.decrementAndGet();
                  } finally {
                    lock.unlock();
                  }
                }
                return overlaps;
              }));
    }
    int overlaps = 0;
    for (Future<Integer> worker : workers) {
      overlaps += worker.get(2, TimeUnit.MINUTES);
    }
    flushing.set(false);
    assertThat(flusher.get(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS)).isPositive();
    assertThat(overlaps).isZero();
    assertThat(counter.get()).isEqualTo(4 * perThread);
  }
}
