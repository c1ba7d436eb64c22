package io.github.redislock.deployments;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.redislock.RedisDistributedLock;
import io.github.redislock.RedisLockFactory;
import io.github.redislock.test.RedisBinary;
import io.github.redislock.testing.IntegrationTest;
import io.github.redislock.testing.RedisCluster;
import io.github.redislock.testing.RedisServer;
import io.github.redislock.testing.Timing;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import redis.clients.jedis.Jedis;

/**
 * A Redis Cluster of servers older than 7 (the 6.2 bundled with embedded-redis) has no sharded
 * Pub/Sub: wake-ups fall back to plain Pub/Sub, on the subscribing and the publishing side, and
 * still wake waiters at once.
 */
@IntegrationTest
class ClusterWithoutShardedPubSubTest {

  private static RedisCluster cluster;
  private final List<RedisLockFactory> factories = new ArrayList<>();
  private ExecutorService holderThread;
  private ExecutorService waiterThread;
  private String name;

  @BeforeAll
  static void startCluster() {
    cluster = RedisCluster.startWith(RedisBinary.extractBundled(), 3);
  }

  @AfterAll
  static void stopCluster() {
    cluster.close();
  }

  @BeforeEach
  void setUp(TestInfo info) {
    name = "cluster62:" + info.getTestMethod().orElseThrow().getName();
    holderThread = Executors.newSingleThreadExecutor();
    waiterThread = Executors.newSingleThreadExecutor();
  }

  @AfterEach
  void tearDown() throws InterruptedException {
    holderThread.shutdownNow();
    waiterThread.shutdownNow();
    assertThat(holderThread.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    assertThat(waiterThread.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    factories.forEach(RedisLockFactory::close);
  }

  private RedisLockFactory factory() {
    RedisLockFactory factory =
        RedisLockFactory.builder()
            .cluster(cluster.uri())
            .commandTimeout(Duration.ofMillis(500))
            .build();
    factories.add(factory);
    return factory;
  }

  @Test
  void aReleaseWakesAWaiterOfAnotherFactoryByPlainPubSub() throws Exception {
    try (Jedis jedis = cluster.masters().get(0).jedis()) {
      assertThat(jedis.info("server")).contains("redis_version:6.");
    }
    RedisDistributedLock holder = factory().getLock(name);
    RedisLockFactory waiting = factory();
    RedisDistributedLock waiter = waiting.getLock(name);
    for (Jedis jedis : cluster.jedisAll()) {
      try (jedis) {
        jedis.configResetStat();
      }
    }
    for (int round = 0; round < 2; round++) {
      holderThread.submit(() -> holder.lock()).get();
      Future<?> waited =
          waiterThread.submit(
              () -> {
                waiter.lock();
                waiter.unlock();
              });
      await()
          .atMost(Timing.awaitAtMost())
          .until(() -> waiting.activity().subscribedChannelCount() == 1 && plainSubscribers() == 1);
      holderThread.submit(holder::unlock).get();
      assertThat(waited).as("the waiter, woken by the release").succeedsWithin(Timing.PROMPTLY);
    }
    long publishes = 0;
    for (RedisServer master : cluster.masters()) {
      publishes += commandCalls(master, "publish");
    }
    assertThat(publishes).as("releases published by plain PUBLISH").isPositive();
  }

  /** Subscribers of plain channels, summed over the masters. */
  private static long plainSubscribers() {
    long count = 0;
    for (Jedis jedis : cluster.jedisAll()) {
      try (jedis) {
        for (String channel : jedis.pubsubChannels("*")) {
          count += jedis.pubsubNumSub(channel).get(channel);
        }
      }
    }
    return count;
  }

  /** How often {@code command} ran on {@code node} (scripts' calls included). */
  private static long commandCalls(RedisServer node, String command) {
    try (Jedis jedis = node.jedis()) {
      for (String line : jedis.info("commandstats").lines().toList()) {
        if (line.startsWith("cmdstat_" + command + ":")) {
          String rest = line.substring(line.indexOf("calls=") + 6);
          return Long.parseLong(rest.substring(0, rest.indexOf(',')));
        }
      }
      return 0;
    }
  }
}
