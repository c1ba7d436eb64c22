package io.github.redislock.internal.kind;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import io.github.redislock.internal.backend.Acquisition;
import io.github.redislock.internal.backend.LockKeys;
import io.github.redislock.internal.backend.SingleNodeBackend;
import io.github.redislock.internal.util.Tokens;
import io.github.redislock.testing.IntegrationTest;
import io.github.redislock.testing.RedisServer;
import io.github.redislock.testing.TcpProxy;
import io.github.redislock.testing.Timing;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPubSub;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.params.SetParams;

/**
 * A fair waiter's place in the queue, driven step by step: the orders of events that threads and
 * the I/O executor can produce, made deterministic.
 */
@IntegrationTest
class FairKindTest {
  private static final long LEASE_MILLIS = 10_000;
  private static final long LONG_LEASE_MILLIS = 600_000;
  private static KindServer redis;
  private static RedisServer server;
  private static SingleNodeBackend backend;
  private final LockKeys keys = LockKeys.of("fair-kind-test");
  private final ExecutorService threads = Executors.newCachedThreadPool();

  @BeforeAll
  static void start() {
    redis = KindServer.start(LEASE_MILLIS);
    server = redis.server;
    backend = redis.backend;
  }

  @AfterAll
  static void stop() {
    redis.close();
  }

  @AfterEach
  void stopTheThreads() throws InterruptedException {
    threads.shutdownNow();
    assertThat(threads.awaitTermination(10, TimeUnit.SECONDS))
        .as("the test's threads end")
        .isTrue();
  }

  private long queued() {
    try (Jedis jedis = server.jedis()) {
      return jedis.zcard(keys.fairQueue());
    }
  }

  private void holdElsewhere() {
    try (Jedis jedis = server.jedis()) {
      jedis.set(keys.lock(), "someone-else", SetParams.setParams().px(LEASE_MILLIS));
    }
  }

  /** An I/O executor that runs each task at once, in the caller's thread. */
  private static FairKind kind() {
    return new FairKind(backend, Runnable::run, TimeUnit.MILLISECONDS.toNanos(LEASE_MILLIS));
  }

  @Test
  void anAttemptThatEndsAfterItsWaitLeftTheQueueTakesItsPlaceOutAgain() {
    // A timed attempt runs on the I/O executor; the caller gives up at its deadline and leaves the
    // queue, and the attempt, still on its way, reaches Redis after the leaving.
    holdElsewhere();
    Attempts place = kind().forWait(false);
    place.leave(keys);
    assertThat(place.tryAcquire(keys, Tokens.next(), false).acquired()).isFalse();
    assertThat(queued()).as("places left behind").isZero();
  }

  @Test
  void aWaitThatHasNotLeftKeepsItsPlace() {
    holdElsewhere();
    Attempts place = kind().forWait(false);
    assertThat(place.tryAcquire(keys, Tokens.next(), false).acquired()).isFalse();
    assertThat(queued()).isEqualTo(1);
    place.leave(keys);
    assertThat(queued()).isZero();
  }

  @Test
  void aWaiterLeavingBehindAFirstPlaceThatRanOutHandsTheFreeLockToTheNextWaiter() {
    holdElsewhere();
    FairKind kind = kind();
    Attempts leaving = kind.forWait(false);
    Attempts next = kind.forWait(false);
    assertThat(leaving.tryAcquire(keys, Tokens.next(), false).acquired()).isFalse();
    assertThat(next.tryAcquire(keys, Tokens.next(), false).acquired()).isFalse();
    try (Jedis jedis = server.jedis()) {
      // Before them, the place of a waiter whose process died: its lease ran out, and no script
      // has dropped it yet. Then the holder's lease runs out: the lock is free, and the leaving
      // waiter is the first live one.
      jedis.zadd(keys.fairQueue(), 0, "rl1:dead");
      jedis.zadd(keys.fairLeases(), (double) (KindServer.serverMillis(jedis) - 1000), "rl1:dead");
      jedis.del(keys.lock());
    }

    leaving.leave(keys);

    try (Jedis jedis = server.jedis()) {
      assertThat(jedis.get(keys.lock()))
          .as("the lock key once the first live waiter left a free lock")
          .isEqualTo(next.waiterId());
    }
    next.leave(keys);
  }

  @Test
  void aWaiterLeavingWithTheLockHandedToItAndNobodyBehindAnnouncesTheRelease() throws Exception {
    holdElsewhere();
    FairKind kind = kind();
    Attempts leaving = kind.forWait(false);
    assertThat(leaving.tryAcquire(keys, Tokens.next(), false).acquired()).isFalse();
    try (Messages messages = new Messages(keys.channel())) {
      kind.releaseToken(keys, "someone-else"); // hands the lock to the waiter

      leaving.leave(keys);

      messages.awaitAll("to:" + leaving.waiterId(), "released");
    }
    try (Jedis jedis = server.jedis()) {
      assertThat(jedis.exists(keys.lock())).as("the lock key").isFalse();
    }
  }

  @Test
  void aLeaveWhileAnAttemptThatAcquiredIsOnItsWayFreesTheLockAtOnce() throws Exception {
    try (TcpProxy proxy = TcpProxy.start(server.port());
        RedisClient slowClient = KindServer.client(proxy, Timing.awaitAtMost());
        SingleNodeBackend slow = new SingleNodeBackend(slowClient, null, LONG_LEASE_MILLIS)) {
      FairKind kind = kind(slow, LONG_LEASE_MILLIS); // no key expires while the test waits
      redis.warmUp(kind, keys);
      redis.openTwoConnections(threads, slowClient);
      Attempts place = kind.forWait(false);
      String token = Tokens.next();
      proxy.stallReplies();
      Future<Acquisition> attempt = threads.submit(() -> place.tryAcquire(keys, token, false));
      await("the attempt acquired in Redis")
          .atMost(Timing.awaitAtMost())
          .until(() -> token.equals(redis.lockKey(keys)));

      // The wait gives up before the attempt's reply came (a timed attempt abandoned at the
      // deadline): nobody will use the hold, and nobody may see the lock held by it.
      Future<?> leaving = threads.submit(() -> place.leave(keys));

      await("the lock freed by the leave, before the attempt's reply came")
          .atMost(Timing.awaitAtMost())
          .until(() -> redis.lockKey(keys) == null);
      proxy.unstall();
      assertThat(attempt.get(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS).acquired())
          .isTrue();
      leaving.get(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS);
    }
    assertThat(queued()).as("places left behind").isZero();
  }

  @Test
  void anAttemptThatFailedAndReachesRedisAfterItsWaitLeftQueuesNothing() throws Exception {
    Duration timeout = Timing.scaled(Duration.ofMillis(300));
    try (TcpProxy proxy = TcpProxy.start(server.port());
        RedisClient slowClient = KindServer.client(proxy, timeout);
        SingleNodeBackend slow = new SingleNodeBackend(slowClient, null, LEASE_MILLIS)) {
      FairKind kind = kind(slow, LEASE_MILLIS);
      redis.warmUp(kind, keys);
      holdElsewhere();
      Attempts place = kind.forWait(false);
      assertThat(place.tryAcquire(keys, Tokens.next(), false).acquired()).isFalse();
      assertThat(queued()).isEqualTo(1);

      // The next attempt's command is held in the network; the client times out.
      proxy.holdOpenConnections();
      assertThat(catchThrowable(() -> place.tryAcquire(keys, Tokens.next(), false)))
          .as("the attempt whose command is held")
          .isNotNull();
      place.leave(keys);
      assertThat(queued()).as("places once the wait left").isZero();

      long before = redis.scriptCalls();
      proxy.unstall(); // the held command reaches Redis now
      await("the held attempt ran")
          .atMost(Timing.awaitAtMost())
          .until(() -> redis.scriptCalls() > before);
    }
    assertThat(queued()).as("places after the late attempt").isZero();
  }

  private static FairKind kind(SingleNodeBackend on, long leaseMillis) {
    return new FairKind(on, Runnable::run, TimeUnit.MILLISECONDS.toNanos(leaseMillis));
  }

  /** The messages published on one channel, from a subscription of their own. */
  private final class Messages implements AutoCloseable {
    private final List<String> received = new CopyOnWriteArrayList<>();
    private final JedisPubSub subscriber =
        new JedisPubSub() {
          @Override
          public void onMessage(String channel, String message) {
            received.add(message);
          }

          @Override
          public void onSubscribe(String channel, int subscribedChannels) {
            subscribed.countDown();
          }
        };
    private final CountDownLatch subscribed = new CountDownLatch(1);
    private final Future<?> reading;

    Messages(String channel) throws InterruptedException {
      reading =
          threads.submit(
              () -> {
                try (Jedis jedis = server.jedis()) {
                  jedis.subscribe(subscriber, channel);
                }
              });
      assertThat(subscribed.await(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS))
          .as("subscribed")
          .isTrue();
    }

    void awaitAll(String... messages) {
      await("messages " + List.of(messages))
          .atMost(Timing.awaitAtMost())
          .untilAsserted(() -> assertThat(received).containsExactly(messages));
    }

    @Override
    public void close() {
      subscriber.unsubscribe();
      try {
        reading.get(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      } catch (ExecutionException | TimeoutException e) {
        throw new IllegalStateException("the subscription did not end", e);
      }
    }
  }
}
