package io.github.redislock.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.redislock.RedisDistributedLock;
import io.github.redislock.RedisLockException;
import io.github.redislock.RedisLockFactory;
import io.github.redislock.testing.IntegrationTest;
import io.github.redislock.testing.LeakCheck;
import io.github.redislock.testing.RedisServer;
import io.github.redislock.testing.Timing;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.providers.PooledConnectionProvider;

/**
 * Redlock over clients that are not a {@code RedisClient} calls each master on a helper thread. A
 * frozen master holds its calls until their socket timeout: the helper threads must stay within the
 * bound {@code RedisLockFactory}'s Javadoc states (8 calls in flight per master, plus one thread
 * per master that asks which server it is), however many callers keep asking.
 */
@IntegrationTest
class RedlockFanOutThreadsTest {
  private static final int MASTERS = 3;
  private static final int BOUND = MASTERS * (8 + 1);
  private static final int CALLERS = 8;
  private static final Duration RUN = Duration.ofSeconds(3);

  private final List<RedisServer> masters = new ArrayList<>();
  private final List<UnifiedJedis> clients = new ArrayList<>();
  private ExecutorService callers;
  private RedisLockFactory factory;

  @BeforeEach
  void start() {
    for (int i = 0; i < MASTERS; i++) {
      RedisServer master = RedisServer.start();
      masters.add(master);
      clients.add(
          LeakCheck.closeAfterCheck(
              new ProviderClient(
                  new PooledConnectionProvider(
                      new HostAndPort("127.0.0.1", master.port()),
                      DefaultJedisClientConfig.builder()
                          .connectionTimeoutMillis(1_000)
                          .socketTimeoutMillis(1_000)
                          .build()))));
    }
    callers = Executors.newFixedThreadPool(CALLERS);
    factory =
        RedisLockFactory.builder()
            .redlockClients(clients)
            .redlockNodeTimeout(Timing.scaled(Duration.ofMillis(100)))
            .build();
  }

  @AfterEach
  void stop() throws InterruptedException {
    masters.forEach(RedisServer::resume);
    callers.shutdownNow();
    assertThat(callers.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
    factory.close();
    masters.forEach(RedisServer::close); // LeakCheck inspects each as it stops
  }

  private static int helperThreads() {
    int count = 0;
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (t.isAlive() && t.getName().startsWith("redis-lock-redlock")) {
        count++;
      }
    }
    return count;
  }

  @Test
  void aFrozenMasterHoldsNoMoreHelperThreadsThanTheBoundWhateverTheCallers() throws Exception {
    RedisDistributedLock warmUp = factory.getLock("fan-out:warm-up");
    assertThat(warmUp.tryLock(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS)).isTrue();
    warmUp.unlock();
    masters.get(0).pause();

    AtomicBoolean running = new AtomicBoolean(true);
    AtomicInteger pairs = new AtomicInteger();
    List<Future<?>> work = new ArrayList<>();
    for (int c = 0; c < CALLERS; c++) {
      RedisDistributedLock lock = factory.getLock("fan-out:caller-" + c);
      work.add(
          callers.submit(
              () -> {
                while (running.get()) {
                  try {
                    if (lock.tryLock()) {
                      lock.unlock();
                      pairs.incrementAndGet();
                    }
                  } catch (RedisLockException e) {
                    // A majority of two of three can fail now and then on this loaded machine.
                  }
                }
              }));
    }
    AtomicInteger most = new AtomicInteger();
    try {
      await("at most " + BOUND + " helper threads for " + RUN)
          .during(RUN)
          .atMost(RUN.plus(Timing.awaitAtMost()))
          .pollInterval(Duration.ofMillis(20))
          .failFast(
              "more than " + BOUND + " helper threads",
              () -> most.accumulateAndGet(helperThreads(), Math::max) > BOUND)
          .until(() -> true);
    } finally {
      running.set(false);
    }
    for (Future<?> f : work) {
      f.get(30, TimeUnit.SECONDS);
    }
    assertThat(pairs.get()).as("pairs acquired on the two masters that answer").isPositive();
    assertThat(most.get()).as("helper threads with one master frozen").isLessThanOrEqualTo(BOUND);
  }
}
