package io.github.redislock.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.redislock.RedisDistributedLock;
import io.github.redislock.RedisLockFactory;
import io.github.redislock.testing.IntegrationTest;
import io.github.redislock.testing.RedisInvariants;
import io.github.redislock.testing.RedisServerExtension;
import io.github.redislock.testing.Timing;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClient;

/**
 * What an {@code unlock()} does when its release meets a fault: here, a thread whose interrupt flag
 * is set while the client's pool has no connection to give at once.
 */
@IntegrationTest
class ReleaseFaultsTest {
  private static final Duration TIMEOUT = Duration.ofMillis(500);

  @RegisterExtension static final RedisServerExtension redis = new RedisServerExtension();
  private final List<RedisLockFactory> factories = new ArrayList<>();
  private ExecutorService threads;
  private String name;

  @BeforeEach
  void setUp(TestInfo info) {
    String method = info.getTestMethod().orElseThrow().getName();
    String display = info.getDisplayName();
    name = "release-faults:" + method + (display.endsWith(")") ? "" : ":" + display);
    threads = Executors.newCachedThreadPool();
  }

  @AfterEach
  void tearDown() throws InterruptedException {
    RedisInvariants.assertCleanAfterTest(redis.server(), threads, factories, name);
  }

  private RedisLockFactory factory(RedisClient client) {
    RedisLockFactory factory = RedisLockFactory.builder().client(client).build();
    factories.add(factory);
    return factory;
  }

  @Test
  void unlockByAnInterruptedThreadWaitsForAPooledConnectionAndKeepsTheInterrupt() throws Exception {
    ConnectionPoolConfig pool = new ConnectionPoolConfig();
    pool.setMaxTotal(1);
    pool.setMaxWait(Timing.awaitAtMost());
    pool.setJmxEnabled(false);
    try (RedisClient client =
        RedisClient.builder()
            .hostAndPort("127.0.0.1", redis.server().port())
            .clientConfig(
                DefaultJedisClientConfig.builder()
                    .socketTimeoutMillis((int) TIMEOUT.toMillis())
                    .build())
            .poolConfig(pool)
            .build()) {
      RedisDistributedLock lock = factory(client).getLock(name);
      CountDownLatch locked = new CountDownLatch(1);
      CountDownLatch unlock = new CountDownLatch(1);
      AtomicReference<Thread> owner = new AtomicReference<>();
      Future<Boolean> unlocked =
          threads.submit(
              () -> {
                owner.set(Thread.currentThread());
                lock.lock();
                locked.countDown();
                unlock.await();
                Thread.currentThread().interrupt();
                lock.unlock();
                return Thread.currentThread().isInterrupted();
              });
      assertThat(locked.await(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS)).isTrue();

      Connection only = client.getPool().getResource(); // the pool is exhausted
      try {
        unlock.countDown();
        await("the unlocking thread waits for the pool, or has given up")
            .atMost(Timing.awaitAtMost())
            .until(() -> unlocked.isDone() || owner.get().getState() == Thread.State.TIMED_WAITING);
      } finally {
        only.close();
      }

      assertThat(outcome(unlocked)).as("unlock() returned, interrupted still").isEqualTo(true);
      try (Jedis jedis = redis.server().jedis()) {
        assertThat(jedis.exists(name)).isFalse();
      }
    }
  }

  private static Object outcome(Future<Boolean> future) throws InterruptedException {
    try {
      return future.get(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      return e.getCause();
    } catch (TimeoutException e) {
      throw new AssertionError("the unlocking thread did not return", e);
    }
  }
}
