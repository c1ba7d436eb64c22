package io.github.redislock.deployments;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.redislock.RedisLockFactory;
import io.github.redislock.testing.IntegrationTest;
import io.github.redislock.testing.RedisInvariants;
import io.github.redislock.testing.RedisSentinelGroup;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;

/**
 * A factory on a {@code redis-sentinel://} URI owns the Sentinel client it builds, and its close
 * leaves nothing of it: no listener thread, no subscription on a Sentinel. Jedis starts a listener
 * thread per Sentinel as the client is built, and a listener that had not started running when the
 * client was closed used to run on for good, subscribed to {@code +switch-master}: so a factory
 * closed right after it was built (a health check, a failed startup) leaked them.
 */
@IntegrationTest
class SentinelCloseTest {
  private static RedisSentinelGroup group;

  @BeforeAll
  static void start() {
    group = RedisSentinelGroup.start();
  }

  @AfterAll
  static void stop() {
    group.close();
  }

  @Test
  void factoriesClosedRightAfterTheyWereBuiltLeaveNoSentinelListener() {
    for (int i = 0; i < 20; i++) {
      RedisLockFactory.builder()
          .sentinel(group.uri())
          .commandTimeout(Duration.ofSeconds(1))
          .build()
          .close();
    }
    assertThat(Thread.getAllStackTraces().keySet())
        .as("Sentinel listener threads right after the closes")
        .noneMatch(t -> t.isAlive() && t.getName().contains("-SentinelListener-"));
    RedisInvariants.assertNoThreads("mymaster-SentinelListener-");
    for (HostAndPort sentinel : group.sentinelAddresses()) {
      try (Jedis j = new Jedis(sentinel)) {
        RedisInvariants.assertNoSubscribedClients(j);
      }
    }
  }
}
