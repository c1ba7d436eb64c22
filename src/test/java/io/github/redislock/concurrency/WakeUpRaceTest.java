package io.github.redislock.concurrency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.redislock.RedisDistributedLock;
import io.github.redislock.RedisLockFactory;
import io.github.redislock.testing.IntegrationTest;
import io.github.redislock.testing.LeakCheck;
import io.github.redislock.testing.RedisInvariants;
import io.github.redislock.testing.RedisServerExtension;
import io.github.redislock.testing.Timing;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisProtocol;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.providers.PooledConnectionProvider;

/**
 * A release that happens while a waiter's busy answer travels back to it, before the waiter is
 * registered for wake-ups, must still wake it: the waiter then tries again at once instead of
 * sleeping until its next re-check. The window matters most when the wake-up channel is already
 * subscribed (it lingers after the previous wait), so that no new subscription announces itself.
 */
@IntegrationTest
class WakeUpRaceTest {

  private static final int ROUNDS = 3;

  @RegisterExtension static final RedisServerExtension redis = new RedisServerExtension();
  private final List<RedisLockFactory> factories = new ArrayList<>();
  private ReleaseOnBusyClient client;
  private ExecutorService holderThread;
  private ExecutorService waiterThread;
  private String name;

  @BeforeEach
  void setUp(TestInfo info) {
    name = "wake-race:" + info.getTestMethod().orElseThrow().getName();
    holderThread = Executors.newSingleThreadExecutor();
    waiterThread = Executors.newSingleThreadExecutor();
    // Closed after the leak check: the waiting factory subscribes through it.
    client =
        LeakCheck.closeAfterCheck(
            new ReleaseOnBusyClient(redis.server().host(), redis.server().port()));
  }

  @AfterEach
  void tearDown() throws InterruptedException {
    holderThread.shutdownNow();
    assertThat(holderThread.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    RedisInvariants.closeAfterTest(redis.server(), waiterThread, factories, name);
  }

  @Test
  void aReleaseBetweenTheBusyAnswerAndTheRegistrationWakesTheWaiter() throws Exception {
    RedisLockFactory holding = RedisLockFactory.builder().standalone(redis.server().uri()).build();
    factories.add(holding);
    RedisLockFactory waiting = RedisLockFactory.builder().client(client).build();
    factories.add(waiting);
    RedisDistributedLock holder = holding.getLock(name);
    RedisDistributedLock waiter = waiting.getLock(name);

    int onASubscribedChannel = 0;
    for (int round = 0; round < ROUNDS; round++) {
      // The waiter waits once, so that its factory subscribes to the channel, which then lingers.
      holderThread.submit(() -> holder.lock()).get();
      Future<?> first = waiterThread.submit(() -> lockAndUnlock(waiter));
      await()
          .atMost(Timing.awaitAtMost())
          .until(() -> waiting.activity().subscribedChannelCount() == 1);
      holderThread.submit(holder::unlock).get();
      first.get(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS);

      // The holder takes the lock again; the waiter's next busy answer has it released before the
      // answer comes back.
      holderThread.submit(() -> holder.lock()).get();
      AtomicReference<Boolean> subscribedAtRelease = new AtomicReference<>();
      client.onNextBusy(
          () -> {
            subscribedAtRelease.set(waiting.activity().subscribedChannelCount() == 1);
            holderThread.submit(holder::unlock).get();
          });
      Future<?> second = waiterThread.submit(() -> lockAndUnlock(waiter));
      assertThat(second).as("the waiter, after the release").succeedsWithin(Timing.PROMPTLY);
      assertThat(subscribedAtRelease.get()).as("the release happened in the window").isNotNull();
      if (subscribedAtRelease.get()) {
        onASubscribedChannel++;
      }
    }
    assertThat(onASubscribedChannel)
        .as("rounds whose release came while the waiter's channel was still subscribed")
        .isPositive();
  }

  private static void lockAndUnlock(RedisDistributedLock lock) {
    lock.lock();
    lock.unlock();
  }

  /** A client whose next busy acquire reply is held back until an action has run. */
  private static final class ReleaseOnBusyClient extends UnifiedJedis {
    private final AtomicReference<ThrowingRunnable> onBusy = new AtomicReference<>();

    ReleaseOnBusyClient(String host, int port) {
      super(
          new PooledConnectionProvider(
              new HostAndPort(host, port),
              DefaultJedisClientConfig.builder().protocol(RedisProtocol.RESP3).build()),
          RedisProtocol.RESP3);
    }

    /** Runs {@code action} after the next script reply that says "busy", before returning it. */
    void onNextBusy(ThrowingRunnable action) {
      onBusy.set(action);
    }

    @Override
    public Object evalsha(String sha1, List<String> keys, List<String> args) {
      Object reply = super.evalsha(sha1, keys, args);
      // Only an acquire reply {0, ...}: the access check's reply is a list of denied commands.
      if (reply instanceof List<?> values
          && !values.isEmpty()
          && values.get(0) instanceof Number status
          && status.longValue() == 0) {
        ThrowingRunnable action = onBusy.getAndSet(null);
        if (action != null) {
          try {
            action.run();
          } catch (Exception e) {
            throw new IllegalStateException("the action on a busy reply failed", e);
          }
        }
      }
      return reply;
    }
  }

  @FunctionalInterface
  private interface ThrowingRunnable {
    void run() throws Exception;
  }
}
