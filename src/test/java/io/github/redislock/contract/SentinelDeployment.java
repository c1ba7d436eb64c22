package io.github.redislock.contract;

import io.github.redislock.RedisLockFactory;
import io.github.redislock.testing.RedisSentinelGroup;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import redis.clients.jedis.Jedis;

/**
 * A real master, replica and three Sentinels, reached by {@code sentinel(uri)}. Its faults act on
 * the master and its replica together, so that the Sentinels cannot fail over meanwhile (a failover
 * has its own test, {@code SentinelFailoverTest}): Redis is down while both are, and a restart
 * brings both back, empty, with the same master.
 */
public final class SentinelDeployment implements Deployment {
  private final RedisSentinelGroup group = RedisSentinelGroup.start();

  public RedisSentinelGroup group() {
    return group;
  }

  @Override
  public RedisLockFactory.Builder builder() {
    return RedisLockFactory.builder().sentinel(group.uri()).commandTimeout(Duration.ofMillis(500));
  }

  /** The master: the replica holds the same keys and refuses writes. */
  @Override
  public Jedis raw(String key) {
    return group.master().jedis();
  }

  @Override
  public List<Jedis> rawAll() {
    return List.of(group.master().jedis());
  }

  /** Sentinels ping, publish hellos and ask for INFO; the replica acknowledges its offset. */
  @Override
  public Set<String> backgroundCommands() {
    return Set.of("ping", "publish", "replconf");
  }

  @Override
  public void stop() {
    group.killDataNodes();
  }

  @Override
  public void restart() {
    group.restartDataNodes();
  }

  @Override
  public void pause() {
    group.pauseDataNodes();
  }

  @Override
  public void resume() {
    group.resumeDataNodes();
  }

  @Override
  public void close() {
    group.close();
  }
}
