package io.github.redislock.inspect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.redislock.LockInfo;
import io.github.redislock.RedisDistributedLock;
import io.github.redislock.RedisLockFactory;
import io.github.redislock.testing.IntegrationTest;
import io.github.redislock.testing.RedisCluster;
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
import org.junit.jupiter.api.Test;

/**
 * {@code inspect} and {@code forceUnlock} on a Redis Cluster: the waiters are the subscribers of
 * the lock's shard channel ({@code PUBSUB SHARDNUMSUB}), and the holder's description sits in the
 * lock's slot.
 */
@IntegrationTest
class ClusterInspectTest {
  private static RedisCluster cluster;
  private final List<RedisLockFactory> factories = new ArrayList<>();
  private final ExecutorService threads = Executors.newCachedThreadPool();

  @BeforeAll
  static void startCluster() {
    cluster = RedisCluster.start();
  }

  @AfterAll
  static void stopCluster() {
    cluster.close();
  }

  @AfterEach
  void tearDown() throws InterruptedException {
    threads.shutdownNow();
    assertThat(threads.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    factories.forEach(RedisLockFactory::close);
  }

  private RedisLockFactory factory() {
    RedisLockFactory factory =
        RedisLockFactory.builder()
            .cluster(cluster.uri())
            .commandTimeout(Duration.ofMillis(500))
            .describeHolders()
            .build();
    factories.add(factory);
    return factory;
  }

  @Test
  void inspectCountsShardSubscribersAndShowsTheHolderAndForceUnlockFreesTheLock() throws Exception {
    String name = "cluster-inspect:orders";
    RedisDistributedLock lock = factory().getLock(name);
    lock.lock();
    RedisDistributedLock other = factory().getLock(name);
    Future<Boolean> waiter =
        threads.submit(
            () -> {
              other.lock();
              other.unlock();
              return true;
            });
    RedisLockFactory operator = factory();
    await().atMost(Timing.awaitAtMost()).until(() -> operator.inspect(name).waiters() == 1);
    LockInfo info = operator.inspect(name);
    assertThat(info.isLocked()).isTrue();
    assertThat(info.holder())
        .hasValueSatisfying(who -> assertThat(who.pid()).isEqualTo(ProcessHandle.current().pid()));
    assertThat(operator.forceUnlock(name)).isTrue();
    assertThat(waiter.get(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS)).isTrue();
    try {
      lock.unlock();
    } catch (IllegalMonitorStateException expected) {
      // the hold was lost (LockLostException), or its loss already learned
    }
  }
}
