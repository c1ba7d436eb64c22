package io.github.redislock.faults;

import redis.clients.jedis.RedisProtocol;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.providers.ConnectionProvider;

/**
 * A client on a connection provider of the caller's that is not a {@code RedisClient} (as a
 * Sentinel client is not): Redlock calls such masters through their API, on threads.
 */
final class ProviderClient extends UnifiedJedis {
  ProviderClient(ConnectionProvider connections) {
    super(connections, RedisProtocol.RESP3);
  }
}
