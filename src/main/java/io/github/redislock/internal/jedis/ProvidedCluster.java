package io.github.redislock.internal.jedis;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionPool;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.JedisCluster;
import redis.clients.jedis.providers.ClusterConnectionProvider;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * A Cluster client this library creates on a Jedis without Jedis 8's clients ({@link
 * JedisApi#MODERN} false): a {@link JedisCluster} (deprecated in Jedis 8, there in 7.0.0 and 8
 * alike) on a {@link ClusterConnectionProvider} it keeps, so that it lends the provider's
 * connections, nodes and topology as Jedis 8's {@code RedisClusterClient} would.
 */
@SuppressWarnings("deprecation") // JedisCluster: the cluster client that Jedis 7.0.0 has
public final class ProvidedCluster extends JedisCluster {
  private final Lender lender;

  private ProvidedCluster(
      ClusterConnectionProvider provider, int maxAttempts, Duration maxTotalRetriesDuration) {
    super(provider, maxAttempts, maxTotalRetriesDuration);
    this.lender = new Cluster(provider);
  }

  /**
   * A client of the Cluster that {@code seeds} belong to; learns the topology now.
   *
   * @param seeds some of its nodes
   * @param config the nodes' connections' configuration
   * @param pool each node's pool's settings
   * @param maxAttempts attempts per command (redirections and reconnections included)
   * @param maxTotalRetriesDuration the longest a command's attempts may take together
   * @return the client; the caller closes it
   */
  public static JedisCluster create(
      Set<HostAndPort> seeds,
      JedisClientConfig config,
      GenericObjectPoolConfig<Connection> pool,
      int maxAttempts,
      Duration maxTotalRetriesDuration) {
    return new ProvidedCluster(
        new ClusterConnectionProvider(seeds, config, pool), maxAttempts, maxTotalRetriesDuration);
  }

  Lender lender() {
    return lender;
  }

  private static final class Cluster extends Lender {
    private final ClusterConnectionProvider provider;

    Cluster(ClusterConnectionProvider provider) {
      this.provider = provider;
    }

    @Override
    public Shape shape() {
      return Shape.CLUSTER;
    }

    @Override
    public boolean lends() {
      return true;
    }

    @Override
    public Connection borrow(String key) {
      return provider.getConnectionFromSlot(JedisClusterCRC16.getSlot(key));
    }

    @Override
    public Connection borrowFrom(HostAndPort node, String key) {
      ConnectionPool pool = provider.getNodes().get(node.toString());
      return pool != null ? pool.getResource() : borrow(key);
    }

    /**
     * The node a redirection named, when its pool lent the connection; else the slot's master in
     * the client's table when asked (a connection has no public name on Jedis 7).
     */
    @Override
    public HostAndPort nodeOf(Connection borrowed, String key, HostAndPort redirectedTo) {
      if (redirectedTo != null && provider.getNodes().containsKey(redirectedTo.toString())) {
        return redirectedTo;
      }
      return provider.getNode(JedisClusterCRC16.getSlot(key));
    }

    @Override
    public Map<String, ConnectionPool> clusterNodes() {
      return provider.getNodes();
    }

    @Override
    public void refreshTopology() {
      provider.renewSlotCache();
    }
  }
}
