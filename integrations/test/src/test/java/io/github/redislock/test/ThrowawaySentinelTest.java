package io.github.redislock.test;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.redislock.RedisDistributedLock;
import io.github.redislock.RedisLockFactory;
import java.util.List;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/** A Sentinel-managed master a factory reaches by its URI; closing kills every server. */
class ThrowawaySentinelTest {

  @Test
  void aFactoryLocksOnTheMasterTheSentinelNames() {
    List<ThrowawayRedis> servers;
    try (ThrowawaySentinel redis = ThrowawaySentinel.start()) {
      servers = List.of(redis.master(), redis.replica(), redis.sentinel());
      assertThat(redis.uri())
          .isEqualTo(
              "redis-sentinel://127.0.0.1:" + redis.sentinel().port() + "/" + redis.masterName());
      try (RedisLockFactory factory = RedisLockFactory.builder().sentinel(redis.uri()).build();
          Jedis master = redis.master().jedis()) {
        RedisDistributedLock lock = factory.getLock("job");
        lock.lock();
        try {
          assertThat(master.exists("job")).isTrue();
        } finally {
          lock.unlock();
        }
        assertThat(master.exists("job")).isFalse();
      }
      redis.flushAll();
    }
    assertThat(servers).noneMatch(ThrowawayRedis::isRunning);
  }
}
