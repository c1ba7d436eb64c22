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
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClient;

/**
 * A waiting writer's intent, driven step by step: the orders of events that a wait's attempts, its
 * giving up and the network can produce, made deterministic.
 */
@IntegrationTest
class WriteKindTest {
  private static final long LEASE_MILLIS = 10_000;
  private static final long LONG_LEASE_MILLIS = 600_000;
  private static KindServer redis;
  private static RedisServer server;
  private static SingleNodeBackend backend;
  private final LockKeys keys = LockKeys.of("write-kind-test");
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

  /** The intents whose lease has not run out. */
  private long liveIntents() {
    try (Jedis jedis = server.jedis()) {
      return jedis.zcount(keys.writerIntents(), "(" + KindServer.serverMillis(jedis), "+inf");
    }
  }

  /** A read share of another process, for {@code LEASE_MILLIS}. */
  private void readElsewhere() {
    try (Jedis jedis = server.jedis()) {
      jedis.zadd(
          keys.readShares(),
          (double) (KindServer.serverMillis(jedis) + LEASE_MILLIS),
          "someone-else");
      jedis.pexpire(keys.readShares(), LEASE_MILLIS);
    }
  }

  @Test
  void aLeaveWhileAnAttemptThatAcquiredIsOnItsWayFreesTheLockAtOnce() throws Exception {
    try (TcpProxy proxy = TcpProxy.start(server.port());
        RedisClient slowClient = KindServer.client(proxy, Timing.awaitAtMost());
        SingleNodeBackend slow = new SingleNodeBackend(slowClient, null, LONG_LEASE_MILLIS)) {
      WriteKind kind = kind(slow, LONG_LEASE_MILLIS); // no key expires while the test waits
      redis.warmUp(kind, keys);
      redis.openTwoConnections(threads, slowClient);
      Attempts intent = kind.forWait(false);
      String token = Tokens.next();
      proxy.stallReplies();
      Future<Acquisition> attempt = threads.submit(() -> intent.tryAcquire(keys, token, false));
      await("the attempt acquired in Redis")
          .atMost(Timing.awaitAtMost())
          .until(() -> token.equals(redis.lockKey(keys)));

      // The wait gives up before the attempt's reply came (a timed attempt abandoned at the
      // deadline): nobody will use the hold, and nobody may see the lock held by it.
      Future<?> leaving = threads.submit(() -> intent.leave(keys));

      await("the lock freed by the leave, before the attempt's reply came")
          .atMost(Timing.awaitAtMost())
          .until(() -> redis.lockKey(keys) == null);
      proxy.unstall();
      assertThat(attempt.get(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS).acquired())
          .isTrue();
      leaving.get(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS);
    }
    assertThat(liveIntents()).as("intents left behind").isZero();
  }

  @Test
  void anAttemptThatFailedAndReachesRedisAfterItsWaitLeftLeavesNoIntent() throws Exception {
    readElsewhere();
    Duration timeout = Timing.scaled(Duration.ofMillis(300));
    try (TcpProxy proxy = TcpProxy.start(server.port());
        RedisClient slowClient = KindServer.client(proxy, timeout);
        SingleNodeBackend slow = new SingleNodeBackend(slowClient, null, LEASE_MILLIS)) {
      WriteKind kind = kind(slow, LEASE_MILLIS);
      Attempts intent = kind.forWait(false);
      assertThat(intent.tryAcquire(keys, Tokens.next(), false).acquired()).isFalse();
      assertThat(liveIntents()).isEqualTo(1);

      // The next attempt's command is held in the network; the client times out.
      proxy.holdOpenConnections();
      assertThat(catchThrowable(() -> intent.tryAcquire(keys, Tokens.next(), false)))
          .as("the attempt whose command is held")
          .isNotNull();
      intent.leave(keys);
      await("the intent withdrawn").atMost(Timing.awaitAtMost()).until(() -> liveIntents() == 0);

      long before = redis.scriptCalls();
      proxy.unstall(); // the held command reaches Redis now
      await("the held attempt ran")
          .atMost(Timing.awaitAtMost())
          .until(() -> redis.scriptCalls() > before);
    }
    assertThat(liveIntents()).as("intents after the late attempt").isZero();
  }

  @Test
  void anAttemptThatStartsAfterItsWaitLeftLeavesNoIntent() {
    // A timed attempt runs on the I/O executor; the caller gives up at its deadline and withdraws
    // its intent, and the attempt, still on its way, reaches Redis after the withdrawal.
    readElsewhere();
    Attempts intent = kind(backend, LEASE_MILLIS).forWait(false);
    intent.leave(keys);
    assertThat(intent.tryAcquire(keys, Tokens.next(), false).acquired()).isFalse();
    assertThat(liveIntents()).as("intents left behind").isZero();
  }

  private static WriteKind kind(SingleNodeBackend on, long leaseMillis) {
    return new WriteKind(on, Runnable::run, TimeUnit.MILLISECONDS.toNanos(leaseMillis));
  }
}
