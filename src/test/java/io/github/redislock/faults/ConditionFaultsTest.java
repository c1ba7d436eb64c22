package io.github.redislock.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.github.redislock.RedisDistributedLock;
import io.github.redislock.RedisLockException;
import io.github.redislock.RedisLockFactory;
import io.github.redislock.testing.IntegrationTest;
import io.github.redislock.testing.LeakCheck;
import io.github.redislock.testing.RedisInvariants;
import io.github.redislock.testing.RedisServerExtension;
import io.github.redislock.testing.Timing;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Condition;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPubSub;
import redis.clients.jedis.RedisProtocol;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.args.ClientType;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.params.ClientKillParams;
import redis.clients.jedis.providers.PooledConnectionProvider;

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
    RedisInvariants.closeAfterTest(redis.server(), threads, factories);
  }

  private RedisLockFactory factory() {
    return factory(Duration.ofSeconds(30));
  }

  private RedisLockFactory factory(Duration lease) {
    return factory(b -> b.standalone(redis.server().uri()).leaseTime(lease));
  }

  private RedisLockFactory factory(UnaryOperator<RedisLockFactory.Builder> settings) {
    RedisLockFactory factory =
        settings.apply(RedisLockFactory.builder().commandTimeout(Duration.ofMillis(500))).build();
    factories.add(factory);
    return factory;
  }

  /**
   * A client of the test's server, closed after the test's leak check (a factory leaves it open;
   * the factories that use it subscribe through it).
   */
  private static <C extends UnifiedJedis> C client(C client) {
    return LeakCheck.closeAfterCheck(client);
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
    long spurious = factories.stream().mapToLong(f -> f.activity().spuriousWakeUpCount()).sum();
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
    assertThat(awaiting.activity().spuriousWakeUpCount()).as("told by Redis: signalled").isZero();
  }

  // ---- awaits that could not tell what Redis did ----

  /**
   * The await script ran (the awaiter was queued, the lock released), and its reply was lost, and
   * so was its retry's: the await throws. Its entry must not stay behind, first in the queue, to
   * take the next signal (and, with it, the lock) from the awaiters that do wait.
   */
  @Test
  void anAwaitWhoseRepliesWereLostLeavesNoEntryToTakeTheNextSignal() throws Exception {
    LosingClient losing = client(new LosingClient(redis.server().port()));
    RedisLockFactory failing = factory(b -> b.client(losing).leaseTime(Duration.ofMinutes(2)));
    RedisDistributedLock lock = failing.getLock(name);
    Condition condition = lock.newCondition();
    lock.lock();
    losing.loseReplies("await", 2);
    assertThatThrownBy(condition::await).isInstanceOf(RedisLockException.class);
    assertThat(lock.isHeldByCurrentThread()).isFalse();
    await("the failed await's entry leaves the queue")
        .atMost(Timing.awaitAtMost())
        .until(() -> queued() == 0);

    assertTheNextSignalWakesALivingAwaiter();
  }

  /**
   * A timed await whose time ran out could not leave the queue (the cancel failed): it returns, not
   * signalled, and its entry must not stay behind to take the next signal.
   */
  @Test
  void aTimedAwaitThatCouldNotLeaveTheQueueLeavesNoEntryToTakeTheNextSignal() throws Exception {
    LosingClient losing = client(new LosingClient(redis.server().port()));
    RedisLockFactory failing = factory(b -> b.client(losing).leaseTime(Duration.ofMinutes(2)));
    RedisDistributedLock lock = failing.getLock(name);
    Condition condition = lock.newCondition();
    losing.refuse("cancel", 1);
    lock.lock();
    try {
      assertThat(
              condition.await(
                  Timing.scaled(Duration.ofMillis(100)).toMillis(), TimeUnit.MILLISECONDS))
          .isFalse();
    } finally {
      lock.unlock();
    }
    await("the timed-out await's entry leaves the queue")
        .atMost(Timing.awaitAtMost())
        .until(() -> queued() == 0);
    assertTheNextSignalWakesALivingAwaiter();
  }

  // ---- the lock's listeners at a hand-over ----

  /**
   * The signaller's factory asked for the lock's channel (a thread of it waits for the fair lock of
   * the name), and the server has not confirmed it: the server counts the other process's waiter
   * only. Counting the signaller's subscription as its own would make that waiter look like the
   * signaller's, and hand the lock to the awaiter past it.
   */
  @Test
  void aSubscriptionTheServerHasNotConfirmedIsNotCountedAsTheSignallers() throws Exception {
    RedisLockFactory awaiting = factory(b -> b.standalone(redis.server().uri()).recordStats());
    RedisDistributedLock awaitingLock = awaiting.getLock(name);
    Condition awaitingCondition = awaitingLock.newCondition();
    CompletableFuture<Void> awaiter =
        CompletableFuture.runAsync(
            () -> {
              awaitingLock.lock();
              try {
                awaitingCondition.awaitUninterruptibly();
              } finally {
                awaitingLock.unlock();
              }
            },
            threads);
    await().atMost(Timing.awaitAtMost()).until(() -> queued() == 1);

    HeldSubscriptions held = client(new HeldSubscriptions(redis.server().port()));
    try {
      RedisLockFactory signalling = factory(b -> b.client(held));
      RedisDistributedLock signaller = signalling.getLock(name);
      signaller.lock();
      RedisDistributedLock waiter = factory().getLock(name);
      CompletableFuture<Void> waited =
          CompletableFuture.runAsync(
              () -> {
                waiter.lock();
                waiter.unlock();
              },
              threads);
      await().atMost(Timing.awaitAtMost()).until(() -> lockChannelListeners() == 1);
      RedisDistributedLock fair = signalling.getFairLock(name);
      AtomicReference<Boolean> fairTook = new AtomicReference<>();
      CompletableFuture<Void> fairWaited =
          CompletableFuture.runAsync(
              () -> {
                try {
                  if (fair.tryLock(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS)) {
                    fair.unlock();
                    fairTook.set(true);
                  }
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              },
              threads);
      await()
          .atMost(Timing.awaitAtMost())
          .until(() -> signalling.activity().subscribedChannelCount() == 1);
      assertThat(lockChannelListeners()).as("the server counts the waiter only").isOne();
      try {
        signaller.newCondition().signal();
      } finally {
        signaller.unlock();
      }
      awaiter.get(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS);
      assertThat(awaiting.stats().handoffCount())
          .as("the awaiter took the lock from Redis, not handed it past the waiter")
          .isZero();
      held.letThrough();
      waited.get(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS);
      fairWaited.get(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS);
    } finally {
      held.letThrough();
    }
  }

  /** An awaiter of another factory queues; the next signal wakes it. */
  private void assertTheNextSignalWakesALivingAwaiter() throws Exception {
    AtomicBoolean ready = new AtomicBoolean();
    AtomicInteger wakes = new AtomicInteger();
    Future<?> living = awaitUntil(factory().getLock(name), ready, wakes);
    await().atMost(Timing.awaitAtMost()).until(() -> leases() == 1); // its lease entry
    ready.set(true);
    signal(factory().getLock(name));
    living.get(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS);
    assertThat(wakes.get()).isOne();
  }

  private long leases() {
    try (Jedis jedis = redis.server().jedis()) {
      return jedis.zcard("{" + name + "}:lock-condadbt"); // condition 1's leases
    }
  }

  /** The clients subscribed to the lock's wake-up channel. */
  private long lockChannelListeners() {
    String channel = "{" + name + "}:lock-wake";
    try (Jedis jedis = redis.server().jedis()) {
      return jedis.pubsubNumSub(channel).getOrDefault(channel, 0L);
    }
  }

  private static void signal(RedisDistributedLock lock) {
    lock.lock();
    try {
      lock.newCondition().signal();
    } finally {
      lock.unlock();
    }
  }

  /** A client of one server, through a pool of its own. */
  private static PooledConnectionProvider connections(int port) {
    return new PooledConnectionProvider(
        new HostAndPort("127.0.0.1", port),
        DefaultJedisClientConfig.builder().socketTimeoutMillis(500).build());
  }

  /**
   * A client that loses the replies of chosen condition operations (the script runs, and the call
   * fails as a connection reset after sending would), or refuses them (the call fails before
   * anything is sent).
   */
  private static final class LosingClient extends UnifiedJedis {
    private final Map<String, AtomicInteger> lost = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> refused = new ConcurrentHashMap<>();

    LosingClient(int port) {
      super(connections(port), RedisProtocol.RESP3);
    }

    /**
     * The next {@code count} calls of condition operation {@code op} run, and their replies are
     * lost.
     */
    void loseReplies(String op, int count) {
      lost.put(op, new AtomicInteger(count));
    }

    /** The next {@code count} calls of condition operation {@code op} fail without running. */
    void refuse(String op, int count) {
      refused.put(op, new AtomicInteger(count));
    }

    @Override
    public Object evalsha(String sha1, List<String> keys, List<String> args) {
      String op = args.isEmpty() ? "" : args.get(0);
      if (take(refused, op)) {
        throw new JedisConnectionException("refused by the test before sending " + op);
      }
      Object reply = super.evalsha(sha1, keys, args);
      if (take(lost, op)) {
        throw new JedisConnectionException("the reply to " + op + " was lost (the test)");
      }
      return reply;
    }

    @Override
    public Object eval(String script, List<String> keys, List<String> args) {
      String op = args.isEmpty() ? "" : args.get(0);
      if (take(refused, op)) {
        throw new JedisConnectionException("refused by the test before sending " + op);
      }
      Object reply = super.eval(script, keys, args);
      if (take(lost, op)) {
        throw new JedisConnectionException("the reply to " + op + " was lost (the test)");
      }
      return reply;
    }

    private static boolean take(Map<String, AtomicInteger> counts, String op) {
      AtomicInteger left = counts.get(op);
      return left != null && left.getAndUpdate(n -> Math.max(0, n - 1)) > 0;
    }
  }

  /** A client whose subscriptions reach the server only once {@link #letThrough()} was called. */
  private static final class HeldSubscriptions extends UnifiedJedis {
    private final CountDownLatch gate = new CountDownLatch(1);

    HeldSubscriptions(int port) {
      super(connections(port), RedisProtocol.RESP3);
    }

    void letThrough() {
      gate.countDown();
    }

    @Override
    public void subscribe(JedisPubSub listener, String... channels) {
      try {
        gate.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new JedisConnectionException("interrupted before subscribing", e);
      }
      super.subscribe(listener, channels);
    }
  }
}
