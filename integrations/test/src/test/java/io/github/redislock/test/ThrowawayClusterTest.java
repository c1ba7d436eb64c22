package io.github.redislock.test;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.redislock.RedisDistributedLock;
import io.github.redislock.RedisLockFactory;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/** A cluster a factory reaches by its URI, whose keys a test finds by slot; closing kills it. */
class ThrowawayClusterTest {

  @Test
  void aFactoryLocksOnTheMasterOfTheKeysSlot() {
    List<ThrowawayRedis> masters;
    try (ThrowawayCluster cluster = ThrowawayCluster.start()) {
      masters = cluster.masters();
      assertThat(masters).hasSize(3);
      List<String> names = IntStream.range(0, 12).mapToObj(i -> "job-" + i).toList();
      assertThat(names.stream().map(cluster::masterOf).distinct())
          .as("keys spread over the masters")
          .hasSize(3);
      try (RedisLockFactory factory = RedisLockFactory.builder().cluster(cluster.uri()).build()) {
        for (String name : names) {
          RedisDistributedLock lock = factory.getLock(name);
          lock.lock();
          try (Jedis master = cluster.jedisFor(name)) {
            assertThat(master.exists(name)).as(name).isTrue();
          } finally {
            lock.unlock();
          }
        }
      }
      cluster.flushAll();
    }
    assertThat(masters).noneMatch(ThrowawayRedis::isRunning);
  }
}
