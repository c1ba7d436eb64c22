package io.github.redislock.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.redislock.LockLostEvent;
import io.github.redislock.LockLostException;
import io.github.redislock.RedisDistributedLock;
import io.github.redislock.RedisLockException;
import io.github.redislock.RedisLockFactory;
import io.github.redislock.testing.IntegrationTest;
import io.github.redislock.testing.RedisInvariants;
import io.github.redislock.testing.RedisServerExtension;
import io.github.redislock.testing.TcpProxy;
import io.github.redislock.testing.Timing;
import java.time.Duration;
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

/**
 * The factory's own threads and shutdown under what should never happen but does: a stalled Redis
 * with many callers, a listener that throws an {@code Error}, a reply slower than the lease.
 */
@IntegrationTest
class FactoryRobustnessTest {
  @RegisterExtension static final RedisServerExtension redis = new RedisServerExtension();
  private final List<RedisLockFactory> factories = new ArrayList<>();
  private ExecutorService threads;
  private String name;

  @BeforeEach
  void setUp(TestInfo info) {
    name = "robust:" + info.getTestMethod().orElseThrow().getName();
    threads = Executors.newCachedThreadPool();
  }

  @AfterEach
  void tearDown() throws InterruptedException {
    redis.server().resume();
    RedisInvariants.closeAfterTest(redis.server(), threads, factories);
  }

  /** Threads for the node's timed attempts, clean-ups and renewals. */
  private static long nodeThreads() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(
            t ->
                t.getName().startsWith("redis-lock-io[")
                    || t.getName().startsWith("redis-lock-renewal["))
        .count();
  }

  @Test
  void aStalledRedisCannotMakeTheFactoryStartThreadsWithoutBound() throws Exception {
    RedisLockFactory factory =
        RedisLockFactory.builder()
            .standalone(redis.server().uri())
            .commandTimeout(Duration.ofSeconds(1))
            .build();
    factories.add(factory);
    factory.getLock(name).tryLock(); // the pool's connection is open
    factory.getLock(name).unlock();
    redis.server().pause();
    List<Future<Object>> callers = new ArrayList<>();
    for (int i = 0; i < 64; i++) {
      RedisDistributedLock lock = factory.getLock(name + ":" + i);
      // A budget under the slow-call bound: each attempt runs on the factory's I/O threads.
      callers.add(
          threads.submit(
              () -> {
                try {
                  return lock.tryLock(10, TimeUnit.MILLISECONDS);
                } catch (RedisLockException e) {
                  return e;
                }
              }));
    }
    for (Future<Object> caller : callers) {
      assertThat(caller.get(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS))
          .isInstanceOf(RedisLockException.class);
    }
    assertThat(nodeThreads())
        .isPositive()
        .isLessThanOrEqualTo(RedisLockFactory.MAX_THREADS_PER_NODE);
    redis.server().resume();
  }

  @Test
  void closeCompletesWhenTheListenerThrowsAnError() {
    List<LockLostEvent> told = new CopyOnWriteArrayList<>();
    RedisLockFactory factory =
        RedisLockFactory.builder()
            .standalone(redis.server().uri())
            .onLockLost(
                event -> {
                  told.add(event);
                  throw new AssertionError("a listener that fails");
                })
            .build();
    factories.add(factory);
    RedisDistributedLock first = factory.getLock(name + ":1");
    RedisDistributedLock second = factory.getLock(name + ":2");
    first.lock();
    second.lock();
    factory.close();
    assertThat(told).hasSize(2);
    assertThatThrownBy(first::unlock).isInstanceOf(LockLostException.class);
    assertThatThrownBy(second::unlock).isInstanceOf(LockLostException.class);
    RedisInvariants.assertNoThreads("redis-lock-");
    try (var jedis = redis.server().jedis()) {
      jedis.del(name + ":1", name + ":2");
    }
  }

  @Test
  void aGrantThatArrivesAfterTheLeaseIsNotAHold() {
    try (TcpProxy proxy = TcpProxy.start(redis.server().port())) {
      RedisLockFactory factory =
          RedisLockFactory.builder()
              .standalone(proxy.uri())
              .leaseTime(Duration.ofMillis(200))
              .commandTimeout(Timing.scaled(Duration.ofSeconds(5)))
              .build();
      factories.add(factory);
      RedisDistributedLock lock = factory.getLock(name);
      lock.tryLock(); // the connection is open
      lock.unlock();
      proxy.setDelay(Duration.ofMillis(150)); // each way: the reply comes after the lease
      assertThatThrownBy(lock::tryLock)
          .isInstanceOf(RedisLockException.class)
          .hasMessageContaining("after its lease ran out");
      assertThat(lock.isHeldByCurrentThread()).isFalse();
      proxy.setDelay(Duration.ZERO);
    }
  }
}
