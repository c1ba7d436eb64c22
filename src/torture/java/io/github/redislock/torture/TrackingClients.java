package io.github.redislock.torture;

import java.net.URI;
import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionFactory;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisProtocol;
import redis.clients.jedis.csc.CacheConfig;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.providers.PooledConnectionProvider;

/**
 * The Redlock masters' clients of the {@code redlock-caching} deployment: Jedis {@link
 * RedisClient}s that speak RESP3 and whose every connection tracks the keys it reads, as a client
 * with client-side caching has them. The server then pushes an {@code invalidate} frame on a
 * connection whenever a key it read changes (the release script's {@code GET} included), between
 * replies: a reader that takes it for a reply is one reply off from then on.
 *
 * <p>Jedis's own client-side cache ({@code RedisClient.builder().cacheConfig(...)}) is used when
 * the server has it (Redis 7.4 and later; Jedis refuses it on older servers); below that, each
 * connection is made by a {@link ConnectionFactory} that turns {@code CLIENT TRACKING ON} once it
 * is set up, which is what Jedis's cache does on its connections, without the cache.
 */
final class TrackingClients {
  private TrackingClients() {}

  /** How the deployment's clients track keys: set by the first client made in this JVM. */
  static volatile String mode = "?";

  /** A tracking client of the master at {@code uri}. */
  static RedisClient of(String uri, long commandTimeoutMillis) {
    URI u = URI.create(uri);
    HostAndPort address = new HostAndPort(u.getHost(), u.getPort());
    JedisClientConfig config =
        DefaultJedisClientConfig.builder()
            .protocol(RedisProtocol.RESP3)
            .clientName("redis-lock-tracking")
            .socketTimeoutMillis((int) commandTimeoutMillis)
            .connectionTimeoutMillis((int) commandTimeoutMillis)
            .build();
    RedisClient caching =
        RedisClient.builder()
            .hostAndPort(address)
            .clientConfig(config)
            .cacheConfig(CacheConfig.builder().maxSize(10_000).build())
            .build();
    try {
      caching.ping();
      mode = "jedis-cache";
      return caching;
    } catch (JedisException e) {
      caching.close(); // "Client side caching is only supported with 'Redis 7.4' or later"
    }
    mode = "client-tracking";
    ConnectionFactory tracking =
        new ConnectionFactory(address, config) {
          @Override
          protected void initialize(Connection connection) {
            super.initialize(connection);
            connection.sendCommand(Protocol.Command.CLIENT, "TRACKING", "ON");
            connection.getStatusCodeReply();
          }
        };
    return RedisClient.builder()
        .connectionProvider(new PooledConnectionProvider(tracking))
        .clientConfig(config)
        .build();
  }
}
