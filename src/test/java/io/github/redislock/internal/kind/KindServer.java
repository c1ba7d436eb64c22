package io.github.redislock.internal.kind;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.redislock.internal.backend.LockKeys;
import io.github.redislock.internal.backend.SingleNodeBackend;
import io.github.redislock.internal.util.Tokens;
import io.github.redislock.testing.RedisServer;
import io.github.redislock.testing.TcpProxy;
import io.github.redislock.testing.Timing;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClient;

/**
 * The Redis server of a kind's step-by-step tests ({@link FairKindTest}, {@link WriteKindTest}): a
 * real {@code redis-server}, a client and a single-node backend on it, and what those tests read of
 * the server (its blocked clients, the scripts it ran, its clock) or do to it.
 */
final class KindServer implements AutoCloseable {
  final RedisServer server;
  final RedisClient client;
  final SingleNodeBackend backend;

  private KindServer(long leaseMillis) {
    server = RedisServer.start();
    client = RedisClient.create(server.host(), server.port());
    backend = new SingleNodeBackend(client, null, leaseMillis);
  }

  /** Starts a server, with a backend whose holds last {@code leaseMillis}. */
  static KindServer start(long leaseMillis) {
    return new KindServer(leaseMillis);
  }

  /**
   * An acquisition by a wait, which then leaves, and a release: the first acquisition's checks are
   * behind us, and the server has the scripts (a missing one costs a round trip more, whose reply a
   * test may hold).
   */
  void warmUp(LockKind kind, LockKeys keys) {
    Attempts wait = kind.forWait(false);
    String token = Tokens.next();
    assertThat(wait.tryAcquire(keys, token, false).acquired()).isTrue();
    wait.leave(keys);
    kind.releaseToken(keys, token);
  }

  /**
   * Makes {@code slowClient}'s pool keep two connections, one for an attempt and one for the leave:
   * while replies are stalled, no connection can be opened (its handshake gets no answer).
   */
  void openTwoConnections(ExecutorService threads, RedisClient slowClient) throws Exception {
    Future<?> blocked = threads.submit(() -> slowClient.blpop(1.0, "two-connections"));
    await("a blocked client")
        .atMost(Timing.awaitAtMost())
        .pollInterval(Duration.ofMillis(5))
        .until(() -> blockedClients() == 1);
    slowClient.ping(); // on a second connection: the first one is blocked
    blocked.get(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS);
  }

  long blockedClients() {
    try (Jedis jedis = server.jedis()) {
      return jedis
          .info("clients")
          .lines()
          .filter(line -> line.startsWith("blocked_clients:"))
          .mapToLong(line -> Long.parseLong(line.substring("blocked_clients:".length()).trim()))
          .sum();
    }
  }

  /** The value of the lock key of {@code keys}. */
  String lockKey(LockKeys keys) {
    try (Jedis jedis = server.jedis()) {
      return jedis.get(keys.lock());
    }
  }

  /** The scripts the server ran so far. */
  long scriptCalls() {
    try (Jedis jedis = server.jedis()) {
      return jedis
          .info("commandstats")
          .lines()
          .filter(line -> line.startsWith("cmdstat_evalsha:") || line.startsWith("cmdstat_eval:"))
          .mapToLong(line -> Long.parseLong(line.replaceAll("^[^:]*:calls=(\\d+),.*", "$1")))
          .sum();
    }
  }

  /** The server's clock, in milliseconds. */
  static long serverMillis(Jedis jedis) {
    List<String> time = jedis.time();
    return Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
  }

  /**
   * A client of the server through {@code proxy}, whose commands time out after {@code timeout}.
   */
  static RedisClient client(TcpProxy proxy, Duration timeout) {
    int millis = Math.toIntExact(timeout.toMillis());
    return RedisClient.builder()
        .hostAndPort("127.0.0.1", proxy.port())
        .clientConfig(DefaultJedisClientConfig.builder().socketTimeoutMillis(millis).build())
        .build();
  }

  @Override
  public void close() {
    backend.close();
    client.close();
    server.close();
  }
}
