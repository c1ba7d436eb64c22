package io.github.redislock.fair;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.redislock.RedisDistributedLock;
import io.github.redislock.RedisLockFactory;
import io.github.redislock.testing.IntegrationTest;
import io.github.redislock.testing.RedisInvariants;
import io.github.redislock.testing.RedisServerExtension;
import io.github.redislock.testing.Timing;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.Jedis;

/** Fair locks: waiters of several factories (standing for processes) acquire in arrival order. */
@IntegrationTest
class FairLockTest {
  @RegisterExtension static final RedisServerExtension redis = new RedisServerExtension();
  private final List<RedisLockFactory> factories = new ArrayList<>();
  private ExecutorService threads;
  private String name;

  @BeforeEach
  void setUp(TestInfo info) {
    name = "fair:" + info.getTestMethod().orElseThrow().getName();
    threads = Executors.newCachedThreadPool();
  }

  @AfterEach
  void tearDown() throws InterruptedException {
    RedisInvariants.assertCleanAfterTest(redis.server(), threads, factories);
  }

  private RedisLockFactory factory() {
    RedisLockFactory factory = RedisLockFactory.builder().standalone(redis.server().uri()).build();
    factories.add(factory);
    return factory;
  }

  private long queued() {
    try (Jedis jedis = redis.server().jedis()) {
      return jedis.zcard("{" + name + "}:lock-fq");
    }
  }

  @Test
  void waitersOfEveryProcessAcquireInTheOrderTheyReachedRedis() throws Exception {
    RedisDistributedLock holder = factory().getFairLock(name);
    holder.lock();
    List<Integer> order = new CopyOnWriteArrayList<>();
    List<Future<?>> waiters = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      int me = i;
      RedisDistributedLock lock = factory().getFairLock(name); // one factory each: a process each
      waiters.add(
          threads.submit(
              () -> {
                lock.lock();
                try {
                  order.add(me);
                } finally {
                  lock.unlock();
                }
                return null;
              }));
      long expected = i + 1L;
      await().atMost(Timing.awaitAtMost()).until(() -> queued() == expected);
    }
    holder.unlock();
    for (Future<?> waiter : waiters) {
      waiter.get(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS);
    }
    assertThat(order).containsExactly(0, 1, 2, 3, 4);
    assertThat(queued()).isZero();
  }

  @Test
  void tryLockBargesAndATimedWaiterThatGivesUpLeavesTheQueue() throws Exception {
    RedisDistributedLock holder = factory().getFairLock(name);
    holder.lock();
    RedisDistributedLock other = factory().getFairLock(name);
    Future<Boolean> timed =
        threads.submit(
            () ->
                other.tryLock(
                    Timing.scaled(java.time.Duration.ofMillis(300)).toMillis(),
                    TimeUnit.MILLISECONDS));
    await().atMost(Timing.awaitAtMost()).until(() -> queued() == 1);
    assertThat(timed.get()).isFalse();
    await().atMost(Timing.awaitAtMost()).until(() -> queued() == 0);
    holder.unlock();
    assertThat(other.tryLock()).isTrue();
    other.unlock();
  }
}
