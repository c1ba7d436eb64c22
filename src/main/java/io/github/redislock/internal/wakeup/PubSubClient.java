package io.github.redislock.internal.wakeup;

import io.github.redislock.internal.jedis.Lender;
import io.github.redislock.internal.jedis.Lenders;
import redis.clients.jedis.Connection;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisPubSub;
import redis.clients.jedis.UnifiedJedis;

/**
 * How one Redis source carries wake-ups, and where its subscriptions get their connections.
 *
 * <p>On a Redis Cluster, wake-ups use sharded Pub/Sub ({@code SSUBSCRIBE} and {@code SPUBLISH},
 * Redis 7 and later): a channel lives on the master of its slot, so a release's message goes to the
 * subscribers of that master only, and the number of receivers it reports covers every subscriber
 * in the cluster. The channels are then subscribed per master, one connection each. A server
 * without sharded Pub/Sub refuses {@code SSUBSCRIBE}; the source then uses plain Pub/Sub, as every
 * other deployment does (and the release script falls back to {@code PUBLISH} on such a server).
 *
 * <p>A subscription borrows its connection from the client's pool where the client lends one (see
 * {@link Lender}: the clients this library creates, and on Jedis 8 a caller's {@code RedisClient},
 * {@code RedisSentinelClient} or {@code RedisClusterClient}), so that it can drop a connection that
 * went silent (see {@link Subscription}). Any other {@code UnifiedJedis} subscribes through its own
 * {@code subscribe}, without that check.
 */
final class PubSubClient {
  /** The route of every channel under plain Pub/Sub: one subscription carries them all. */
  static final Object PLAIN = "plain";

  /** The route of a sharded channel whose master could not be found: found again later. */
  static final Object UNKNOWN = "unknown master";

  private final UnifiedJedis client;
  private final Lender lender;
  private volatile boolean sharded;

  PubSubClient(UnifiedJedis client) {
    this.client = client;
    this.lender = Lenders.of(client);
    this.sharded = lender.shape() == Lender.Shape.CLUSTER;
  }

  /** Whether wake-ups travel by sharded Pub/Sub. */
  boolean sharded() {
    return sharded;
  }

  /**
   * The server refused {@code SSUBSCRIBE}: plain Pub/Sub from now on.
   *
   * @return whether this changed the source to plain Pub/Sub (false if another subscription did)
   */
  synchronized boolean shardedUnsupported() {
    boolean was = sharded;
    sharded = false;
    return was;
  }

  /**
   * The subscription {@code channel} belongs to: under sharded Pub/Sub the master of its slot (one
   * of its pooled connections is borrowed for a moment, so this may wait for the network; call it
   * without holding a lock), else {@link #PLAIN}.
   */
  Object route(String channel) {
    if (!sharded) {
      return PLAIN;
    }
    try (Connection connection = connection(channel)) {
      HostAndPort node = lender.nodeOf(connection, channel, null);
      return node != null ? node : UNKNOWN;
    } catch (RuntimeException e) {
      return UNKNOWN;
    }
  }

  /**
   * A connection to subscribe to {@code channel} on (under sharded Pub/Sub, to its slot's master),
   * or {@code null} when the client lends none; the caller closes it.
   */
  Connection connection(String channel) {
    return lender.shape() == Lender.Shape.OTHER ? null : lender.borrow(channel);
  }

  /** Subscribes through the client itself, for a client that lends no connection. */
  void subscribe(JedisPubSub listener, String... channels) {
    client.subscribe(listener, channels);
  }
}
