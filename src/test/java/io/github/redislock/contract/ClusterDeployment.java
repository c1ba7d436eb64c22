package io.github.redislock.contract;

import io.github.redislock.RedisLockFactory;
import io.github.redislock.testing.RedisCluster;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.UnifiedJedis;

/**
 * A real 3-master Redis Cluster, reached by {@code cluster(uri)} or through a caller's {@link
 * RedisClusterClient} with Jedis's default retry settings. Its faults act on every master at once:
 * Redis is down only when no slot is served, and a restart brings back the same cluster, empty.
 */
public final class ClusterDeployment implements Deployment {
  private final RedisCluster cluster = RedisCluster.start();
  private final UnifiedJedis callersClient;

  /** A cluster reached by {@code cluster(uri)}. */
  public ClusterDeployment() {
    this(false);
  }

  /**
   * A cluster reached by {@code cluster(uri)}, or by {@code client(...)} with a client of the
   * caller's that Jedis's defaults configure (it retries, sleeping between attempts).
   */
  public ClusterDeployment(boolean throughCallersClient) {
    callersClient = throughCallersClient ? CallersClient.create(cluster.seeds()) : null;
  }

  /**
   * A caller's cluster client: a {@link RedisClusterClient} where Jedis has one (7.4 and later),
   * else (on Jedis 7.0, in the {@code -Pjedis7} run) a {@code JedisCluster}. Each in a method of
   * its own: a class the Jedis on the class path lacks is never named by the code that runs.
   */
  private static final class CallersClient {
    static UnifiedJedis create(List<HostAndPort> seeds) {
      JedisClientConfig config =
          DefaultJedisClientConfig.builder().socketTimeoutMillis(500).build();
      return hasRedisClusterClient() ? Modern.create(seeds, config) : legacy(seeds, config);
    }

    private static boolean hasRedisClusterClient() {
      try {
        Class.forName(
            "redis.clients.jedis.RedisClusterClient", false, Jedis.class.getClassLoader());
        return true;
      } catch (ClassNotFoundException e) {
        return false;
      }
    }

    /** Loaded only where Jedis has a {@link RedisClusterClient}. */
    private static final class Modern {
      static UnifiedJedis create(List<HostAndPort> seeds, JedisClientConfig config) {
        return RedisClusterClient.builder()
            .nodes(new HashSet<>(seeds))
            .clientConfig(config)
            .build();
      }
    }

    @SuppressWarnings("deprecation") // JedisCluster: the cluster client of Jedis 7.0
    private static UnifiedJedis legacy(List<HostAndPort> seeds, JedisClientConfig config) {
      return new redis.clients.jedis.JedisCluster(new HashSet<>(seeds), config);
    }
  }

  public RedisCluster cluster() {
    return cluster;
  }

  @Override
  public RedisLockFactory.Builder builder() {
    RedisLockFactory.Builder builder = RedisLockFactory.builder();
    return (callersClient != null ? builder.client(callersClient) : builder.cluster(cluster.uri()))
        .commandTimeout(Duration.ofMillis(500));
  }

  @Override
  public Jedis raw(String key) {
    return cluster.jedisFor(key);
  }

  @Override
  public List<Jedis> rawAll() {
    return cluster.jedisAll();
  }

  @Override
  public void stop() {
    cluster.killAll();
  }

  @Override
  public void restart() {
    cluster.restartAll();
  }

  @Override
  public void pause() {
    cluster.pauseAll();
  }

  @Override
  public void resume() {
    cluster.resumeAll();
  }

  @Override
  public void close() {
    if (callersClient != null) {
      callersClient.close();
    }
    cluster.close();
  }
}
