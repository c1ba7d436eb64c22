package io.github.redislock.internal.client;

import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.RedisSentinelClient;
import redis.clients.jedis.UnifiedJedis;

/**
 * The clients {@link RedisClients} creates on Jedis 8: a {@link RedisClient}, {@link
 * RedisSentinelClient} or {@link RedisClusterClient}. Loaded only when {@code JedisApi.MODERN}: on
 * Jedis 7 these classes, or builder methods called here, are missing.
 */
final class ModernClients {
  private ModernClients() {}

  static UnifiedJedis standalone(
      HostAndPort node, JedisClientConfig config, ConnectionPoolConfig pool) {
    return RedisClient.builder().hostAndPort(node).clientConfig(config).poolConfig(pool).build();
  }

  static UnifiedJedis sentinel(
      String masterName,
      List<HostAndPort> sentinels,
      DefaultJedisClientConfig.Builder sentinelConfig,
      JedisClientConfig config,
      ConnectionPoolConfig pool) {
    return RedisSentinelClient.builder()
        .masterName(masterName)
        .sentinels(new LinkedHashSet<>(sentinels))
        // Jedis talks to Sentinels with RESP2 and warns on every connection unless told so.
        .sentinelClientConfig(sentinelConfig.autoNegotiateProtocol(false).build())
        .clientConfig(config)
        .poolConfig(pool)
        .build();
  }

  static UnifiedJedis cluster(
      List<HostAndPort> seeds,
      int maxAttempts,
      Duration maxTotalRetriesDuration,
      JedisClientConfig config,
      ConnectionPoolConfig pool) {
    return RedisClusterClient.builder()
        .nodes(new LinkedHashSet<>(seeds))
        .maxAttempts(maxAttempts)
        .maxTotalRetriesDuration(maxTotalRetriesDuration)
        .clientConfig(config)
        .poolConfig(pool)
        .build();
  }
}
