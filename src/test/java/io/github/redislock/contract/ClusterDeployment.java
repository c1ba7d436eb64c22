package io.github.redislock.contract;

import io.github.redislock.RedisLockFactory;
import io.github.redislock.testing.RedisCluster;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClusterClient;

/**
 * A real 3-master Redis Cluster, reached by {@code cluster(uri)} or through a caller's {@link
 * RedisClusterClient} with Jedis's default retry settings. Its faults act on every master at once:
 * Redis is down only when no slot is served, and a restart brings back the same cluster, empty.
 */
public final class ClusterDeployment implements Deployment {
  private final RedisCluster cluster = RedisCluster.start();
  private final RedisClusterClient callersClient;

  /** A cluster reached by {@code cluster(uri)}. */
  public ClusterDeployment() {
    this(false);
  }

  /**
   * A cluster reached by {@code cluster(uri)}, or by {@code client(...)} with a client of the
   * caller's that Jedis's defaults configure (it retries, sleeping between attempts).
   */
  public ClusterDeployment(boolean throughCallersClient) {
    callersClient =
        throughCallersClient
            ? RedisClusterClient.builder()
                .nodes(new HashSet<>(cluster.seeds()))
                .clientConfig(DefaultJedisClientConfig.builder().socketTimeoutMillis(500).build())
                .build()
            : null;
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
