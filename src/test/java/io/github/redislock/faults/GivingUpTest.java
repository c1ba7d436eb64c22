package io.github.redislock.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import io.github.redislock.RedisDistributedLock;
import io.github.redislock.RedisLockFactory;
import io.github.redislock.RedisReadWriteLock;
import io.github.redislock.internal.backend.LockKeys;
import io.github.redislock.testing.IntegrationTest;
import io.github.redislock.testing.LeakCheck;
import io.github.redislock.testing.RedisInvariants;
import io.github.redislock.testing.RedisServerExtension;
import io.github.redislock.testing.TcpProxy;
import io.github.redislock.testing.Timing;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.Jedis;

/**
 * A waiter that gave up (timed out, was interrupted, or whose factory closed) leaves nothing behind
 * in Redis once its call has returned, however late its last attempt reaches Redis: no place in a
 * fair queue, no writer's intent, no lock handed to it. As with {@code ReentrantLock}, whose
 * cancelled waiter never gets the lock, an {@code unlock()} after the waiter returned frees the
 * lock. The waiters' factories reach Redis through a proxy that slows or holds their traffic.
 */
@IntegrationTest
class GivingUpTest {
  @RegisterExtension static final RedisServerExtension redis = new RedisServerExtension();
  private final List<RedisLockFactory> factories = new ArrayList<>();
  private final List<TcpProxy> proxies = new ArrayList<>();
  private ExecutorService threads;
  private String name;

  @BeforeEach
  void setUp(TestInfo info) {
    name = "giving-up:" + info.getTestMethod().orElseThrow().getName();
    threads = Executors.newCachedThreadPool();
  }

  @AfterEach
  void tearDown() throws InterruptedException {
    for (TcpProxy proxy : proxies) {
      proxy.setDelay(Duration.ZERO);
      proxy.unstall();
    }
    RedisInvariants.closeAfterTest(redis.server(), threads, factories, name);
  }

  /** A factory standing for another process, reaching Redis directly. */
  private RedisLockFactory factory() {
    return factory(redis.server().uri());
  }

  private RedisLockFactory factory(String uri) {
    RedisLockFactory factory = RedisLockFactory.builder().standalone(uri).build();
    factories.add(factory);
    return factory;
  }

  /** A factory reaching Redis through {@code proxy}. */
  private RedisLockFactory factory(TcpProxy proxy) {
    return factory(proxy.uri());
  }

  private TcpProxy proxy() {
    // Closed after the leak check, which must see the subscriptions made through it.
    TcpProxy proxy = LeakCheck.closeAfterCheck(TcpProxy.start(redis.server().port()));
    proxies.add(proxy);
    return proxy;
  }

  /** The places in the fair queue of the name. */
  private long queued() {
    try (Jedis jedis = redis.server().jedis()) {
      return jedis.zcard(LockKeys.of(name).fairQueue());
    }
  }

  /** The writers' intents of the name whose lease has not run out. */
  private long liveIntents() {
    try (Jedis jedis = redis.server().jedis()) {
      List<String> time = jedis.time();
      long now = Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
      return jedis.zcount(LockKeys.of(name).writerIntents(), "(" + now, "+inf");
    }
  }

  /** When the one writer's intent of the name ends, in server time (ms). */
  private double intentEnd() {
    try (Jedis jedis = redis.server().jedis()) {
      return jedis.zrangeWithScores(LockKeys.of(name).writerIntents(), 0, 0).get(0).getScore();
    }
  }

  /** The scripts the server ran so far. */
  private long scriptCalls() {
    try (Jedis jedis = redis.server().jedis()) {
      return jedis
          .info("commandstats")
          .lines()
          .filter(line -> line.startsWith("cmdstat_evalsha:") || line.startsWith("cmdstat_eval:"))
          .mapToLong(line -> Long.parseLong(line.replaceAll("^[^:]*:calls=(\\d+),.*", "$1")))
          .sum();
    }
  }

  private static <T> T get(Future<T> future) throws Exception {
    return future.get(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS);
  }

  @Test
  void aWriterThatGaveUpLeavesNoIntentWhenItsLastAttemptReachesRedisAfterward() throws Exception {
    RedisReadWriteLock reader = factory().getReadWriteLock(name);
    reader.readLock().lock();
    TcpProxy proxy = proxy();
    // A command timeout long enough that every attempt of the call runs on the factory's I/O
    // threads, and that the one held is still waiting for its reply when the proxy lets it go.
    RedisLockFactory writing =
        RedisLockFactory.builder()
            .standalone(proxy.uri())
            .commandTimeout(Timing.scaled(Duration.ofSeconds(5)))
            .build();
    factories.add(writing);
    RedisReadWriteLock writer = writing.getReadWriteLock(name);
    Duration patience = Timing.scaled(Duration.ofSeconds(3));
    Future<Boolean> attempts =
        threads.submit(
            () -> writer.writeLock().tryLock(patience.toMillis(), TimeUnit.MILLISECONDS));
    await("the writer's intent").atMost(Timing.awaitAtMost()).until(() -> liveIntents() == 1);
    double left = intentEnd();
    await("the writer's intent renewed by its next attempt")
        .atMost(Timing.awaitAtMost())
        .pollInterval(Duration.ofMillis(5))
        .until(() -> intentEnd() != left);

    // The connection of the writer's attempts is open now (its first one went to its
    // subscription): its next attempt is held in the network, the writer gives up at its deadline
    // without the attempt's reply, and the attempt reaches Redis only after the writer withdrew its
    // intent.
    proxy.holdOpenConnections();
    assertThat(get(attempts)).as("the writer's tryLock").isFalse();
    await("the intent withdrawn").atMost(Timing.awaitAtMost()).until(() -> liveIntents() == 0);
    long before = scriptCalls();
    proxy.unstall();
    await("the held attempt ran").atMost(Timing.awaitAtMost()).until(() -> scriptCalls() > before);

    assertThat(liveIntents()).as("intents after the late attempt").isZero();
    RedisReadWriteLock newReader = factory().getReadWriteLock(name);
    assertThat(newReader.readLock().tryLock(0, TimeUnit.SECONDS))
        .as("a new reader, with nobody writing or waiting to write")
        .isTrue();
    newReader.readLock().unlock();
    reader.readLock().unlock();
  }

  @Test
  void anUnlockRightAfterAFairWaiterGaveUpFreesTheLock() throws Exception {
    RedisDistributedLock holder = factory().getFairLock(name);
    holder.lock();
    TcpProxy proxy = proxy();
    RedisDistributedLock waiter = factory(proxy).getFairLock(name);
    Duration patience = Timing.scaled(Duration.ofMillis(500));
    Future<Boolean> waiting =
        threads.submit(() -> waiter.tryLock(patience.toMillis(), TimeUnit.MILLISECONDS));
    await("the waiter's place").atMost(Timing.awaitAtMost()).until(() -> queued() == 1);

    proxy.setDelay(Timing.scaled(Duration.ofMillis(200))); // the waiter's Redis is slow now
    assertThat(get(waiting)).as("the waiter's tryLock").isFalse();
    assertThat(queued()).as("places once the waiter returned").isZero();
    holder.unlock();

    RedisDistributedLock other = factory().getFairLock(name);
    assertThat(other.isLocked()).as("locked, after the unlock").isFalse();
    assertThat(other.tryLock()).as("another process's tryLock()").isTrue();
    other.unlock();
  }

  @Test
  void anInterruptedFairWaiterHoldsNoPlaceOnceItThrows() throws Exception {
    RedisDistributedLock holder = factory().getFairLock(name);
    holder.lock();
    TcpProxy proxy = proxy();
    RedisDistributedLock waiter = factory(proxy).getFairLock(name);
    AtomicReference<Thread> thread = new AtomicReference<>();
    Future<?> waiting =
        threads.submit(
            () -> {
              thread.set(Thread.currentThread());
              waiter.lockInterruptibly();
              waiter.unlock();
              return null;
            });
    await("the waiter's place").atMost(Timing.awaitAtMost()).until(() -> queued() == 1);

    proxy.setDelay(Timing.scaled(Duration.ofMillis(200)));
    thread.get().interrupt();
    assertThat(catchThrowable(() -> get(waiting))).hasCauseInstanceOf(InterruptedException.class);
    assertThat(queued()).as("places once the waiter threw").isZero();
    holder.unlock();

    RedisDistributedLock other = factory().getFairLock(name);
    assertThat(other.tryLock()).as("another process's tryLock()").isTrue();
    other.unlock();
  }

  @Test
  void aWriterThatGaveUpHoldsNoIntentOnceItReturns() throws Exception {
    RedisReadWriteLock reader = factory().getReadWriteLock(name);
    reader.readLock().lock();
    TcpProxy proxy = proxy();
    RedisReadWriteLock writer = factory(proxy).getReadWriteLock(name);
    Duration patience = Timing.scaled(Duration.ofMillis(500));
    Future<Boolean> writing =
        threads.submit(
            () -> writer.writeLock().tryLock(patience.toMillis(), TimeUnit.MILLISECONDS));
    await("the writer's intent").atMost(Timing.awaitAtMost()).until(() -> liveIntents() == 1);

    proxy.setDelay(Timing.scaled(Duration.ofMillis(200)));
    assertThat(get(writing)).as("the writer's tryLock").isFalse();

    assertThat(liveIntents()).as("intents once the writer returned").isZero();
    RedisReadWriteLock newReader = factory().getReadWriteLock(name);
    assertThat(newReader.readLock().tryLock(0, TimeUnit.SECONDS))
        .as("a new reader, with nobody writing or waiting to write")
        .isTrue();
    newReader.readLock().unlock();
    reader.readLock().unlock();
  }

  @Test
  void closingAFactoryWhileItsWriterIsInAnAttemptLeavesNoIntent() throws Exception {
    RedisReadWriteLock reader = factory().getReadWriteLock(name);
    reader.readLock().lock();
    TcpProxy proxy = proxy();
    RedisLockFactory closing =
        RedisLockFactory.builder()
            .standalone(proxy.uri())
            .commandTimeout(Timing.scaled(Duration.ofSeconds(5)))
            .build();
    factories.add(closing);
    RedisReadWriteLock writer = closing.getReadWriteLock(name);
    AtomicReference<Thread> thread = new AtomicReference<>();
    Future<?> writing =
        threads.submit(
            () -> {
              thread.set(Thread.currentThread());
              writer.writeLock().lock();
              writer.writeLock().unlock();
              return null;
            });
    await("the writer's intent").atMost(Timing.awaitAtMost()).until(() -> liveIntents() == 1);
    double left = intentEnd();
    await("the writer's intent renewed by its next attempt")
        .atMost(Timing.awaitAtMost())
        .pollInterval(Duration.ofMillis(5))
        .until(() -> intentEnd() != left);

    // The writer's thread is stuck in an attempt (its request or its reply held in the network):
    // it cannot withdraw its intent itself before the factory's clients close.
    proxy.holdOpenConnections();
    await("the writer's thread in a Redis call")
        .atMost(Timing.awaitAtMost())
        .until(() -> inRedisCall(thread.get()));
    closing.close();

    assertThat(liveIntents()).as("intents once close() returned").isZero();
    RedisReadWriteLock newReader = factory().getReadWriteLock(name);
    assertThat(newReader.readLock().tryLock(0, TimeUnit.SECONDS))
        .as("a reader of another process")
        .isTrue();
    newReader.readLock().unlock();
    proxy.unstall();
    assertThat(catchThrowable(() -> get(writing))).hasCauseInstanceOf(IllegalStateException.class);
    reader.readLock().unlock();
  }

  private static boolean inRedisCall(Thread thread) {
    return Arrays.stream(thread.getStackTrace())
        .anyMatch(frame -> frame.getClassName().startsWith("redis.clients.jedis."));
  }
}
