package io.github.redislock.deployments;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.redislock.RedisDistributedLock;
import io.github.redislock.RedisLockFactory;
import io.github.redislock.testing.IntegrationTest;
import io.github.redislock.testing.RedisCluster;
import io.github.redislock.testing.Timing;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.RedisClusterClient;

/**
 * A caller's own {@link RedisClusterClient}, with Jedis's default retry settings, passed to {@code
 * client(UnifiedJedis)}: several factories share it, and none of them closes it.
 */
@IntegrationTest
class ClusterClientTest {
  private static RedisCluster cluster;
  private static RedisClusterClient client;
  private ExecutorService threads;

  @BeforeAll
  static void startCluster() {
    cluster = RedisCluster.start();
    client =
        RedisClusterClient.builder()
            .nodes(new HashSet<>(cluster.seeds()))
            .clientConfig(DefaultJedisClientConfig.builder().socketTimeoutMillis(500).build())
            .build();
  }

  @AfterAll
  static void stopCluster() {
    try {
      client.close();
    } finally {
      cluster.close();
    }
  }

  @BeforeEach
  void setUp() {
    threads = Executors.newCachedThreadPool();
  }

  @AfterEach
  void tearDown() throws InterruptedException {
    threads.shutdownNow();
    assertThat(threads.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
  }

  private static RedisLockFactory factory() {
    return RedisLockFactory.builder().client(client).commandTimeout(Duration.ofMillis(500)).build();
  }

  @Test
  void factoriesSharingACallersClientExcludeAndWakeEachOther() throws Exception {
    for (String name : List.of("shared:{orders}:1", "shared:a}b", "shared:plain")) {
      try (RedisLockFactory first = factory();
          RedisLockFactory second = factory()) {
        RedisDistributedLock held = first.getLock(name);
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch acquired = new CountDownLatch(1);
        Future<Long> holder =
            threads.submit(
                () -> {
                  held.lock();
                  try {
                    acquired.countDown();
                    release.await();
                    return held.getFencingToken();
                  } finally {
                    held.unlock();
                  }
                });
        assertThat(acquired.await(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS)).isTrue();
        RedisDistributedLock waiting = second.getLock(name);
        assertThat(waiting.tryLock()).isFalse();

        Future<Long> waiter =
            threads.submit(
                () -> {
                  waiting.lock();
                  try {
                    return waiting.getFencingToken();
                  } finally {
                    waiting.unlock();
                  }
                });
        await()
            .atMost(Timing.awaitAtMost())
            .until(() -> second.activity().subscribedChannelCount() == 1);
        release.countDown();
        long holderFence = holder.get(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS);
        long waiterFence = waiter.get(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS);
        assertThat(waiterFence).as(name).isGreaterThan(holderFence);
        await()
            .atMost(Timing.awaitAtMost())
            .until(() -> second.activity().subscribedChannelCount() == 0);
      }
    }
  }

  @Test
  void closingFactoriesLeavesTheCallersClientOpen() {
    for (int i = 0; i < 3; i++) {
      try (RedisLockFactory factory = factory()) {
        RedisDistributedLock lock = factory.getLock("closing:" + i);
        lock.lock();
        lock.unlock();
      }
    }
    client.set("closing:still-open", "yes");
    assertThat(client.get("closing:still-open")).isEqualTo("yes");
    client.del("closing:still-open");
  }
}
