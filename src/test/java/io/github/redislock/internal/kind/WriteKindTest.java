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
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.DefaultJedisClientConfig;
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
  private static RedisServer server;
  private static RedisClient client;
  private static SingleNodeBackend backend;
  private final LockKeys keys = LockKeys.of("write-kind-test");
  private final ExecutorService threads = Executors.newCachedThreadPool();

  @BeforeAll
  static void start() {
    server = RedisServer.start();
    client = RedisClient.create(server.host(), server.port());
    backend = new SingleNodeBackend(client, null, LEASE_MILLIS);
  }

  @AfterAll
  static void stop() {
    backend.close();
    client.close();
    server.close();
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
      return jedis.zcount(keys.writerIntents(), "(" + serverMillis(jedis), "+inf");
    }
  }

  /** A read share of another process, for {@code LEASE_MILLIS}. */
  private void readElsewhere() {
    try (Jedis jedis = server.jedis()) {
      jedis.zadd(keys.readShares(), (double) (serverMillis(jedis) + LEASE_MILLIS), "someone-else");
      jedis.pexpire(keys.readShares(), LEASE_MILLIS);
    }
  }

  @Test
  void aLeaveWhileAnAttemptThatAcquiredIsOnItsWayFreesTheLockAtOnce() throws Exception {
    try (TcpProxy proxy = TcpProxy.start(server.port());
        RedisClient slowClient = client(proxy, Timing.awaitAtMost());
        SingleNodeBackend slow = new SingleNodeBackend(slowClient, null, LONG_LEASE_MILLIS)) {
      WriteKind kind = kind(slow, LONG_LEASE_MILLIS); // no key expires while the test waits
      warmUp(kind);
      openTwoConnections(slowClient);
      Attempts intent = kind.forWait(false);
      String token = Tokens.next();
      proxy.stallReplies();
      Future<Acquisition> attempt = threads.submit(() -> intent.tryAcquire(keys, token, false));
      await("the attempt acquired in Redis")
          .atMost(Timing.awaitAtMost())
          .until(() -> token.equals(lockKey()));

      // The wait gives up before the attempt's reply came (a timed attempt abandoned at the
      // deadline): nobody will use the hold, and nobody may see the lock held by it.
      Future<?> leaving = threads.submit(() -> intent.leave(keys));

      await("the lock freed by the leave, before the attempt's reply came")
          .atMost(Timing.awaitAtMost())
          .until(() -> lockKey() == null);
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
        RedisClient slowClient = client(proxy, timeout);
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

      long before = scriptCalls();
      proxy.unstall(); // the held command reaches Redis now
      await("the held attempt ran")
          .atMost(Timing.awaitAtMost())
          .until(() -> scriptCalls() > before);
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

  /**
   * An acquisition by a wait, which then leaves, and a release: the first acquisition's checks are
   * behind us, and the server has the scripts (a missing one costs a round trip more, whose reply a
   * test may hold).
   */
  private void warmUp(WriteKind kind) {
    Attempts wait = kind.forWait(false);
    String token = Tokens.next();
    assertThat(wait.tryAcquire(keys, token, false).acquired()).isTrue();
    wait.leave(keys);
    kind.releaseToken(keys, token);
  }

  /**
   * Makes the client's pool keep two connections, one for an attempt and one for the leave: while
   * replies are stalled, no connection can be opened (its handshake gets no answer).
   */
  private void openTwoConnections(RedisClient slowClient) throws Exception {
    Future<?> blocked = threads.submit(() -> slowClient.blpop(1.0, "two-connections"));
    await("a blocked client")
        .atMost(Timing.awaitAtMost())
        .pollInterval(Duration.ofMillis(5))
        .until(() -> blockedClients() == 1);
    slowClient.ping(); // on a second connection: the first one is blocked
    blocked.get(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS);
  }

  private static long blockedClients() {
    try (Jedis jedis = server.jedis()) {
      return jedis
          .info("clients")
          .lines()
          .filter(line -> line.startsWith("blocked_clients:"))
          .mapToLong(line -> Long.parseLong(line.substring("blocked_clients:".length()).trim()))
          .sum();
    }
  }

  private String lockKey() {
    try (Jedis jedis = server.jedis()) {
      return jedis.get(keys.lock());
    }
  }

  /** The scripts the server ran so far. */
  private static long scriptCalls() {
    try (Jedis jedis = server.jedis()) {
      return jedis
          .info("commandstats")
          .lines()
          .filter(line -> line.startsWith("cmdstat_evalsha:") || line.startsWith("cmdstat_eval:"))
          .mapToLong(line -> Long.parseLong(line.replaceAll("^[^:]*:calls=(\\d+),.*", "$1")))
          .sum();
    }
  }

  private static long serverMillis(Jedis jedis) {
    List<String> time = jedis.time();
    return Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
  }

  /**
   * A client of the server through {@code proxy}, whose commands time out after {@code timeout}.
   */
  private static RedisClient client(TcpProxy proxy, Duration timeout) {
    int millis = Math.toIntExact(timeout.toMillis());
    return RedisClient.builder()
        .hostAndPort("127.0.0.1", proxy.port())
        .clientConfig(DefaultJedisClientConfig.builder().socketTimeoutMillis(millis).build())
        .build();
  }
}
