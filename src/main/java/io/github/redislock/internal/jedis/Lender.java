package io.github.redislock.internal.jedis;

import java.util.Map;
import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionPool;
import redis.clients.jedis.HostAndPort;

/**
 * What a Jedis client lends this library beyond its commands: the kind of deployment it reaches,
 * connections of its pools for a key (the one server's, the current master's, or the master's of
 * the key's slot), the node such a connection goes to, a Cluster's nodes and its topology.
 *
 * <p>The clients this library creates lend all of it on every Jedis version; a caller's {@code
 * RedisClient}, {@code RedisSentinelClient} or {@code RedisClusterClient} lends it on Jedis 8
 * ({@link JedisApi#MODERN}). Any other client, and a caller's client on Jedis 7, is {@link
 * Shape#OTHER}: it is called through its own API only. {@link Lenders#of} tells which.
 */
public abstract class Lender {
  /** The deployments a client can reach, as far as this library tells them apart. */
  public enum Shape {
    STANDALONE,
    SENTINEL,
    CLUSTER,
    /** A client of another kind: called through its API only. */
    OTHER
  }

  /**
   * The deployment the client reaches, by its kind.
   *
   * @return its shape
   */
  public abstract Shape shape();

  /**
   * Whether {@link #borrow} gives connections: a client of a known kind built on a connection
   * provider of its own may lend none.
   *
   * @return whether it lends
   */
  public abstract boolean lends();

  /**
   * A connection of the client's pool for {@code key}'s node; the caller closes it (which gives it
   * back).
   *
   * @param key a key (on a Cluster it decides the node)
   * @return the connection
   * @throws redis.clients.jedis.exceptions.JedisException when none can be had
   */
  public abstract Connection borrow(String key);

  /**
   * A connection to the Cluster node {@code node}, when the client knows it, else one for {@code
   * key}; the caller closes it.
   *
   * @param node the node a redirection named
   * @param key the key
   * @return the connection
   */
  public Connection borrowFrom(HostAndPort node, String key) {
    return borrow(key);
  }

  /**
   * The node {@code borrowed}, a connection {@link #borrow} or {@link #borrowFrom} gave for {@code
   * key}, goes to.
   *
   * @param borrowed the connection
   * @param key the key it was borrowed for
   * @param redirectedTo the node it was asked of {@link #borrowFrom}, or null
   * @return its node, or null when unknown
   */
  public abstract HostAndPort nodeOf(Connection borrowed, String key, HostAndPort redirectedTo);

  /**
   * The master a Sentinel client uses now.
   *
   * @return the master, or null for another kind of client
   */
  public HostAndPort currentMaster() {
    return null;
  }

  /**
   * A Cluster client's node pools, by {@code host:port}.
   *
   * @return the pools; empty for another kind of client
   */
  public Map<String, ConnectionPool> clusterNodes() {
    return Map.of();
  }

  /** Has a Cluster client learn its topology again; nothing for another kind. */
  public void refreshTopology() {}
}
