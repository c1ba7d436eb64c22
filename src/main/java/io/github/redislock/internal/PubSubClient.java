package io.github.redislock.internal;

import redis.clients.jedis.Connection;
import redis.clients.jedis.JedisPubSub;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.RedisSentinelClient;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.util.JedisClusterCRC16;
import redis.clients.jedis.util.Pool;

/**
 * Where the wake-up subscriptions of one Redis source get their connections.
 *
 * <p>A subscription borrows its connection from the client's pool where the client lends one
 * ({@code RedisClient}, {@code RedisSentinelClient}, {@code RedisClusterClient}), so that it can
 * drop a connection that went silent (see {@link Subscription}). Any other {@code UnifiedJedis}
 * subscribes through its own {@code subscribe}, without that check.
 */
final class PubSubClient {
  /** The route of every channel: one subscription carries them all. */
  static final Object PLAIN = "plain";

  private final UnifiedJedis client;

  PubSubClient(UnifiedJedis client) {
    this.client = client;
  }

  /**
   * A connection to subscribe to {@code channel} on, or {@code null} when the client lends none;
   * the caller closes it.
   */
  Connection connection(String channel) {
    if (client instanceof RedisClusterClient cluster) {
      return cluster.getConnectionFromSlot(JedisClusterCRC16.getSlot(channel));
    }
    if (client instanceof RedisClient standalone) {
      return standalone.getPool().getResource();
    }
    if (client instanceof RedisSentinelClient sentinel) {
      for (Pool<Connection> master : sentinel.getPrimaryNodesConnectionMap().values()) {
        return master.getResource();
      }
    }
    return null;
  }

  /** Subscribes through the client itself, for a client that lends no connection. */
  void subscribe(JedisPubSub listener, String... channels) {
    client.subscribe(listener, channels);
  }
}
