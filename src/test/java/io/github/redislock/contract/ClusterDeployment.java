package io.github.redislock.contract;

import io.github.redislock.RedisLockFactory;
import io.github.redislock.testing.RedisCluster;
import java.time.Duration;
import java.util.List;
import redis.clients.jedis.Jedis;

/**
 * A real 3-master Redis Cluster, reached by {@code cluster(uri)}. Its faults act on every master
 * at once: Redis is down only when no slot is served, and a restart brings back the same cluster,
 * empty.
 */
public final class ClusterDeployment implements Deployment {
  private final RedisCluster cluster = RedisCluster.start();

  public RedisCluster cluster() {
    return cluster;
  }

  @Override
  public RedisLockFactory.Builder builder() {
    return RedisLockFactory.builder().cluster(cluster.uri()).commandTimeout(Duration.ofMillis(500));
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
    cluster.close();
  }
}
