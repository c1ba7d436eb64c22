package io.github.redislock.internal.jedis;

import java.util.Map;
import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionPool;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.RedisSentinelClient;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.util.JedisClusterCRC16;
import redis.clients.jedis.util.Pool;

/**
 * The lenders of Jedis 8's {@link RedisClient}, {@link RedisSentinelClient} and {@link
 * RedisClusterClient}. Loaded only when {@link JedisApi#MODERN}: on Jedis 7 these classes, or
 * methods called here, are missing.
 */
final class ModernLenders {
  private ModernLenders() {}

  /** The lender of {@code client}, or null when it is none of the three. */
  static Lender of(UnifiedJedis client) {
    if (client instanceof RedisClient standalone) {
      return new Standalone(standalone);
    }
    if (client instanceof RedisSentinelClient sentinel) {
      return new Sentinel(sentinel);
    }
    if (client instanceof RedisClusterClient cluster) {
      return new Cluster(cluster);
    }
    return null;
  }

  /** A connection's own node. */
  private abstract static class Modern extends Lender {
    @Override
    public HostAndPort nodeOf(Connection borrowed, String key, HostAndPort redirectedTo) {
      return borrowed.getHostAndPort();
    }

    /** Whether the client's provider is Jedis's own (a provider of the caller's is not). */
    @Override
    public boolean lends() {
      try {
        probe();
        return true;
      } catch (ClassCastException e) {
        return false;
      }
    }

    abstract void probe();
  }

  private static final class Standalone extends Modern {
    private final RedisClient client;

    Standalone(RedisClient client) {
      this.client = client;
    }

    @Override
    public Shape shape() {
      return Shape.STANDALONE;
    }

    @Override
    void probe() {
      client.getPool();
    }

    @Override
    public Connection borrow(String key) {
      return client.getPool().getResource();
    }
  }

  private static final class Sentinel extends Modern {
    private final RedisSentinelClient client;

    Sentinel(RedisSentinelClient client) {
      this.client = client;
    }

    @Override
    public Shape shape() {
      return Shape.SENTINEL;
    }

    @Override
    void probe() {
      client.getPrimaryNodesConnectionMap();
    }

    @Override
    public Connection borrow(String key) {
      Map<?, Pool<Connection>> pools = client.getPrimaryNodesConnectionMap();
      return pools.values().iterator().next().getResource();
    }

    @Override
    public HostAndPort currentMaster() {
      return client.getCurrentMaster();
    }
  }

  private static final class Cluster extends Modern {
    private final RedisClusterClient client;

    Cluster(RedisClusterClient client) {
      this.client = client;
    }

    @Override
    public Shape shape() {
      return Shape.CLUSTER;
    }

    @Override
    void probe() {
      client.getClusterNodes();
    }

    @Override
    public Connection borrow(String key) {
      return client.getConnectionFromSlot(JedisClusterCRC16.getSlot(key));
    }

    @Override
    public Connection borrowFrom(HostAndPort node, String key) {
      ConnectionPool pool = client.getClusterNodes().get(node.toString());
      return pool != null ? pool.getResource() : borrow(key);
    }

    @Override
    public Map<String, ConnectionPool> clusterNodes() {
      return client.getClusterNodes();
    }

    @Override
    public void refreshTopology() {
      client.refreshClusterTopology();
    }
  }
}
