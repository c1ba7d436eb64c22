package io.github.redislock.internal.wakeup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.redislock.internal.util.Ticker;
import io.github.redislock.testing.IntegrationTest;
import io.github.redislock.testing.RedisInvariants;
import io.github.redislock.testing.RedisServer;
import io.github.redislock.testing.Timing;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.args.ClientType;
import redis.clients.jedis.params.ClientKillParams;

/** Wake-ups travel by pub/sub on one shared connection, taken only while someone waits. */
@IntegrationTest
class WakeUpsTest {
  private static RedisServer server;
  private static RedisClient client;
  private static ExecutorService executor;

  @BeforeAll
  static void start() {
    server = RedisServer.start();
    client = RedisClient.create(server.host(), server.port());
    executor = Executors.newCachedThreadPool();
  }

  @AfterAll
  static void stop() {
    executor.shutdownNow();
    client.close();
    server.close();
  }

  @Test
  void publishOnTheChannelRaisesTheRegisteredSignal() {
    try (WakeUps wakeUps = new WakeUps(client, executor, Ticker.SYSTEM, new AtomicLong());
        Jedis jedis = server.jedis()) {
      Signal signal = new Signal(Ticker.SYSTEM);
      wakeUps.register("ch-a", signal, 0);
      await().atMost(Timing.awaitAtMost()).until(() -> wakeUps.isActive("ch-a"));
      signal.await(0); // consume the raise that announced the subscription
      jedis.publish("ch-a", "released");
      assertThat(signal.await(TimeUnit.SECONDS.toNanos(20))).isTrue();
      wakeUps.unregister("ch-a", signal);
    }
  }

  @Test
  void channelsShareOneConnectionAndItIsGivenBackWhenNobodyWaits() {
    try (WakeUps wakeUps = new WakeUps(client, executor, Ticker.SYSTEM, new AtomicLong());
        Jedis jedis = server.jedis()) {
      Signal first = new Signal(Ticker.SYSTEM);
      Signal second = new Signal(Ticker.SYSTEM);
      wakeUps.register("ch-1", first, 0);
      wakeUps.register("ch-2", second, 0);
      await()
          .atMost(Timing.awaitAtMost())
          .until(() -> wakeUps.isActive("ch-1") && wakeUps.isActive("ch-2"));
      assertThat(subscriberConnections(jedis)).isEqualTo(1);
      wakeUps.unregister("ch-1", first);
      wakeUps.unregister("ch-2", second);
      RedisInvariants.assertNoSubscriptions(jedis);
      await().atMost(Timing.awaitAtMost()).until(() -> subscriberConnections(jedis) == 0);
      RedisInvariants.assertNoThreads("redis-lock-wakeups");
    }
  }

  @Test
  void aNewRegistrationAfterTheConnectionWasGivenBackSubscribesAgain() {
    try (WakeUps wakeUps = new WakeUps(client, executor, Ticker.SYSTEM, new AtomicLong());
        Jedis jedis = server.jedis()) {
      for (int round = 0; round < 3; round++) {
        Signal signal = new Signal(Ticker.SYSTEM);
        wakeUps.register("ch-again", signal, 0);
        await().atMost(Timing.awaitAtMost()).until(() -> wakeUps.isActive("ch-again"));
        signal.await(0);
        jedis.publish("ch-again", "released");
        assertThat(signal.await(TimeUnit.SECONDS.toNanos(20))).isTrue();
        wakeUps.unregister("ch-again", signal);
        RedisInvariants.assertNoSubscriptions(jedis);
      }
    }
  }

  @Test
  void aChannelStaysSubscribedForAWhileAfterItsLastWaiterLeft() {
    try (WakeUps wakeUps = new WakeUps(client, executor, Ticker.SYSTEM, new AtomicLong());
        Jedis jedis = server.jedis()) {
      Signal first = new Signal(Ticker.SYSTEM);
      wakeUps.register("ch-linger", first, 0);
      await().atMost(Timing.awaitAtMost()).until(() -> wakeUps.isActive("ch-linger"));
      first.await(0); // consume the raise that announced the subscription
      wakeUps.unregister("ch-linger", first);
      Signal next = new Signal(Ticker.SYSTEM);
      // Within the linger: no new subscription needed, and nothing happened since the epoch.
      wakeUps.register("ch-linger", next, wakeUps.lastEvent("ch-linger"));
      assertThat(wakeUps.isActive("ch-linger")).isTrue();
      assertThat(next.await(0)).as("raised without a release").isFalse();
      jedis.publish("ch-linger", "released");
      assertThat(next.await(TimeUnit.SECONDS.toNanos(20))).isTrue();
      wakeUps.unregister("ch-linger", next);
      assertThat(first.await(0)).as("a signal that left is not raised").isFalse();
      await().atMost(Timing.awaitAtMost()).until(() -> wakeUps.subscribedCount() == 0);
      RedisInvariants.assertNoSubscriptions(jedis);
    }
  }

  @Test
  void aWaiterJoiningAnActiveChannelAfterAReleaseSinceItsEpochIsRaisedAtOnce() {
    try (WakeUps wakeUps = new WakeUps(client, executor, Ticker.SYSTEM, new AtomicLong());
        Jedis jedis = server.jedis()) {
      Signal first = new Signal(Ticker.SYSTEM);
      wakeUps.register("ch-epoch", first, 0);
      await().atMost(Timing.awaitAtMost()).until(() -> wakeUps.isActive("ch-epoch"));
      wakeUps.unregister("ch-epoch", first); // the channel lingers, with nobody waiting

      long epoch = wakeUps.lastEvent("ch-epoch"); // a waiter's attempt starts, and finds it busy
      jedis.publish("ch-epoch", "released"); // a release that nobody is registered for yet
      await().atMost(Timing.awaitAtMost()).until(() -> wakeUps.lastEvent("ch-epoch") > epoch);
      Signal late = new Signal(Ticker.SYSTEM);
      wakeUps.register("ch-epoch", late, epoch);
      assertThat(late.await(0)).as("raised at once by the release it missed").isTrue();
      wakeUps.unregister("ch-epoch", late);
      await().atMost(Timing.awaitAtMost()).until(() -> wakeUps.subscribedCount() == 0);
      RedisInvariants.assertNoSubscriptions(jedis);
    }
  }

  /**
   * A connection that broke is closed by its thread, which then takes the monitor to connect again.
   * A channel added in between must wait for that new connection: sent on the closed one, it made
   * Jedis open a socket of its own (a closed {@code Connection} reconnects on its next command,
   * without handshake), which nobody read or closed. That socket stayed subscribed, and open until
   * a garbage collection (LeakSoakTest in CI: a socket descriptor left behind). The test holds the
   * monitor while the connection breaks, and adds the channel once the thread waits for it.
   */
  @Test
  void aChannelAddedWhileABrokenConnectionIsClosedOpensNoSocketOfItsOwn() {
    try (WakeUps wakeUps = new WakeUps(client, executor, Ticker.SYSTEM, new AtomicLong());
        Jedis jedis = server.jedis()) {
      Signal first = new Signal(Ticker.SYSTEM);
      wakeUps.register("ch-broken", first, 0);
      await().atMost(Timing.awaitAtMost()).until(() -> wakeUps.isActive("ch-broken"));
      Signal second = new Signal(Ticker.SYSTEM);
      synchronized (wakeUps) {
        jedis.clientKill(ClientKillParams.clientKillParams().type(ClientType.PUBSUB));
        await("the subscriber thread, its connection broken, waiting for the monitor")
            .atMost(Timing.awaitAtMost())
            .until(WakeUpsTest::subscriberWaitsToReconnect);
        wakeUps.register("ch-added", second, 0);
      }
      await()
          .atMost(Timing.awaitAtMost())
          .until(() -> wakeUps.isActive("ch-broken") && wakeUps.isActive("ch-added"));
      assertThat(subscriberConnections(jedis)).as("connections subscribed").isEqualTo(1);
      wakeUps.unregister("ch-broken", first);
      wakeUps.unregister("ch-added", second);
      RedisInvariants.assertNoSubscriptions(jedis);
    }
  }

  /**
   * Whether the wake-up thread waits for the monitor after its connection's loop ended: in {@code
   * subscribe}, before it closes the connection, or in {@code run}, after (its callbacks, which
   * also take the monitor, are not it).
   */
  private static boolean subscriberWaitsToReconnect() {
    for (Thread thread : Thread.getAllStackTraces().keySet()) {
      if (thread.getName().startsWith("redis-lock-wakeups")
          && thread.getState() == Thread.State.BLOCKED) {
        StackTraceElement[] stack = thread.getStackTrace();
        if (stack.length > 0
            && stack[0].getClassName().equals(Subscription.class.getName())
            && (stack[0].getMethodName().equals("subscribe")
                || stack[0].getMethodName().equals("run"))) {
          return true;
        }
      }
    }
    return false;
  }

  private static long subscriberConnections(Jedis jedis) {
    return jedis.clientList().lines().filter(line -> !line.contains(" sub=0 ")).count();
  }
}
