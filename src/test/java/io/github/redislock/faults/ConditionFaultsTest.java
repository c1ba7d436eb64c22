package io.github.redislock.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.redislock.FactoryInspector;
import io.github.redislock.RedisDistributedLock;
import io.github.redislock.RedisLockFactory;
import io.github.redislock.testing.IntegrationTest;
import io.github.redislock.testing.RedisInvariants;
import io.github.redislock.testing.RedisServerExtension;
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
import java.util.concurrent.locks.Condition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.args.ClientType;
import redis.clients.jedis.params.ClientKillParams;

/**
 * Faults under threads awaiting a condition, on a real {@code redis-server}: a restart that forgets
 * every awaiter, and a subscription connection cut while a signal's message is on its way.
 */
@IntegrationTest
class ConditionFaultsTest {
  @RegisterExtension static final RedisServerExtension redis = new RedisServerExtension();
  private final List<RedisLockFactory> factories = new ArrayList<>();
  private ExecutorService threads;
  private String name;

  @BeforeEach
  void setUp(TestInfo info) {
    name = "faults:" + info.getTestMethod().orElseThrow().getName();
    threads = Executors.newCachedThreadPool();
  }

  @AfterEach
  void tearDown() throws InterruptedException {
    RedisInvariants.assertCleanAfterTest(redis.server(), threads, factories);
  }

  private RedisLockFactory factory() {
    return factory(Duration.ofSeconds(30));
  }

  private RedisLockFactory factory(Duration lease) {
    RedisLockFactory factory =
        RedisLockFactory.builder()
            .standalone(redis.server().uri())
            .commandTimeout(Duration.ofMillis(500))
            .leaseTime(lease)
            .build();
    factories.add(factory);
    return factory;
  }

  private long queued() {
    try (Jedis jedis = redis.server().jedis()) {
      return jedis.zcard("{" + name + "}:lock-condadbq"); // condition 1
    }
  }

  /** Awaits the lock's first condition until {@code ready}; counts the returns of await. */
  private Future<?> awaitUntil(
      RedisDistributedLock lock, AtomicBoolean ready, AtomicInteger wakes) {
    Condition condition = lock.newCondition();
    return threads.submit(
        () -> {
          lock.lock();
          try {
            while (!ready.get()) {
              condition.await();
              wakes.incrementAndGet();
            }
          } finally {
            lock.unlock();
          }
          return null;
        });
  }

  private void signalAll(RedisDistributedLock lock) {
    lock.lock();
    try {
      lock.newCondition().signalAll();
    } finally {
      lock.unlock();
    }
  }

  @Test
  void awaitersForgottenByARestartedRedisWakeAndAwaitAgain() throws Exception {
    AtomicBoolean ready = new AtomicBoolean();
    AtomicInteger wakes = new AtomicInteger();
    RedisLockFactory shared = factory();
    List<Future<?>> awaiters = new ArrayList<>();
    awaiters.add(awaitUntil(shared.getLock(name), ready, wakes));
    awaiters.add(awaitUntil(shared.getLock(name), ready, wakes));
    awaiters.add(awaitUntil(factory().getLock(name), ready, wakes));
    await().atMost(Timing.awaitAtMost()).until(() -> queued() == 3);

    redis.server().restart(); // empty: every entry, and any signal, is gone

    // Each learns that its entry is gone (when its subscription is back), returns, finds its
    // condition false, and awaits again on the new server.
    await().atMost(Timing.awaitAtMost()).until(() -> wakes.get() >= 3 && queued() == 3);
    long spurious = factories.stream().mapToLong(FactoryInspector::spuriousWakeUps).sum();
    assertThat(spurious).as("wake-ups without a signal, counted").isEqualTo(wakes.get());

    ready.set(true);
    signalAll(factory().getLock(name));
    for (Future<?> awaiter : awaiters) {
      awaiter.get(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS);
    }
    assertThat(queued()).isZero();
  }

  @Test
  void aSignalWhoseMessageIsLostWithTheSubscriptionStillWakesTheAwaiter() throws Exception {
    AtomicBoolean ready = new AtomicBoolean();
    AtomicInteger wakes = new AtomicInteger();
    // A lease so long that the awaiter's periodic renewal comes after the test's bound: it must
    // learn of the signal when its subscription is back.
    RedisLockFactory awaiting = factory(Duration.ofMinutes(10));
    Future<?> awaiter = awaitUntil(awaiting.getLock(name), ready, wakes);
    await().atMost(Timing.awaitAtMost()).until(() -> queued() == 1);

    ready.set(true);
    RedisDistributedLock signaller = factory().getLock(name);
    signaller.lock();
    try {
      try (Jedis jedis = redis.server().jedis()) {
        jedis.clientKill(ClientKillParams.clientKillParams().type(ClientType.PUBSUB));
      }
      signaller.newCondition().signal(); // its message finds no subscriber
    } finally {
      signaller.unlock();
    }

    awaiter.get(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS);
    assertThat(wakes.get()).isOne();
    assertThat(FactoryInspector.spuriousWakeUps(awaiting)).as("told by Redis: signalled").isZero();
  }
}
