package io.github.redislock.shedlock;

import io.github.redislock.RedisLockFactory;
import io.github.redislock.test.ThrowawayCluster;
import io.github.redislock.test.ThrowawayRedis;
import io.github.redislock.test.ThrowawaySentinel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import redis.clients.jedis.Jedis;

/**
 * Redis servers of a test's own that factories are built on, and where a test counts the copies of
 * a key: one server, a Sentinel-managed master, a Cluster, or Redlock over three masters.
 */
interface Deployment extends AutoCloseable {

  /**
   * How long the factories wait for an answer of Redis (a tenth of it for each Redlock master):
   * longer than the library's default, since on a 2-core machine shared with other builds (a load
   * of 16 was seen) a server or the test JVM stalls for seconds, and ShedLock's fuzz test fails on
   * the first {@code LockException}. The tests are of what the provider does, not of how fast.
   */
  Duration PATIENCE = Duration.ofSeconds(10);

  /**
   * A builder of factories on this deployment.
   *
   * @return the builder, with the endpoint set
   */
  RedisLockFactory.Builder builder();

  /**
   * How many of the deployment's masters hold {@code key}.
   *
   * @param key a Redis key
   * @return 0 or 1; under Redlock up to the number of masters
   */
  int copiesOf(String key);

  /**
   * How many copies make a key held: 1, or under Redlock a majority of the masters.
   *
   * @return the quorum
   */
  default int quorum() {
    return 1;
  }

  @Override
  void close();

  /** One {@code redis-server}. */
  static Deployment standalone() {
    ThrowawayRedis redis = ThrowawayRedis.start();
    return new Deployment() {
      @Override
      public RedisLockFactory.Builder builder() {
        return RedisLockFactory.builder().standalone(redis.uri()).commandTimeout(PATIENCE);
      }

      @Override
      public int copiesOf(String key) {
        return copies(redis, key);
      }

      @Override
      public void close() {
        redis.close();
      }

      @Override
      public String toString() {
        return redis.toString();
      }
    };
  }

  /** A master, its replica and a Sentinel, reached through the Sentinel. */
  static Deployment sentinel() {
    ThrowawaySentinel redis = ThrowawaySentinel.start();
    return new Deployment() {
      @Override
      public RedisLockFactory.Builder builder() {
        return RedisLockFactory.builder().sentinel(redis.uri()).commandTimeout(PATIENCE);
      }

      @Override
      public int copiesOf(String key) {
        return copies(redis.master(), key);
      }

      @Override
      public void close() {
        redis.close();
      }

      @Override
      public String toString() {
        return redis.toString();
      }
    };
  }

  /** A Redis Cluster of three masters. */
  static Deployment cluster() {
    ThrowawayCluster cluster = ThrowawayCluster.start();
    return new Deployment() {
      @Override
      public RedisLockFactory.Builder builder() {
        return RedisLockFactory.builder().cluster(cluster.uri()).commandTimeout(PATIENCE);
      }

      @Override
      public int copiesOf(String key) {
        return copies(cluster.masterOf(key), key);
      }

      @Override
      public void close() {
        cluster.close();
      }

      @Override
      public String toString() {
        return cluster.toString();
      }
    };
  }

  /** Three independent masters, locked by the Redlock algorithm. */
  static Deployment redlock() {
    List<ThrowawayRedis> masters = new ArrayList<>();
    try {
      for (int i = 0; i < 3; i++) {
        masters.add(ThrowawayRedis.start());
      }
    } catch (RuntimeException e) {
      masters.forEach(ThrowawayRedis::close);
      throw e;
    }
    return new Deployment() {
      @Override
      public RedisLockFactory.Builder builder() {
        // The default node timeout (50 ms) is for masters that answer at once.
        return RedisLockFactory.builder()
            .redlock(masters.stream().map(ThrowawayRedis::uri).toArray(String[]::new))
            .redlockNodeTimeout(PATIENCE.dividedBy(10));
      }

      @Override
      public int copiesOf(String key) {
        return masters.stream().mapToInt(master -> copies(master, key)).sum();
      }

      @Override
      public int quorum() {
        return masters.size() / 2 + 1;
      }

      @Override
      public void close() {
        masters.forEach(ThrowawayRedis::close);
      }

      @Override
      public String toString() {
        return "Redlock" + masters;
      }
    };
  }

  private static int copies(ThrowawayRedis server, String key) {
    try (Jedis jedis = server.jedis()) {
      return jedis.exists(key) ? 1 : 0;
    }
  }
}
