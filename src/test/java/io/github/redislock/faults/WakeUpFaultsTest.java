package io.github.redislock.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.redislock.RedisDistributedLock;
import io.github.redislock.RedisLockFactory;
import io.github.redislock.testing.IntegrationTest;
import io.github.redislock.testing.RedisInvariants;
import io.github.redislock.testing.RedisServer;
import io.github.redislock.testing.RedisServerExtension;
import io.github.redislock.testing.ServerStates;
import io.github.redislock.testing.TcpProxy;
import io.github.redislock.testing.Timing;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
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

/**
 * Faults of the wake-up subscription: a connection that goes silent without its client noticing (a
 * partition, a frozen master, a failover to another address) must be found and replaced, so that
 * waiters are woken by releases again instead of falling back to slow re-checks for good.
 */
@IntegrationTest
class WakeUpFaultsTest {

  /** A few health checks of the subscription (one every few seconds), and a reconnection. */
  private static final Duration REPLACED_WITHIN = Timing.scaled(Duration.ofSeconds(12));

  @RegisterExtension static final RedisServerExtension redis = new RedisServerExtension();
  private final List<RedisLockFactory> factories = new ArrayList<>();
  private ExecutorService holderThread;
  private ExecutorService waiterThread;
  private String name;

  @BeforeEach
  void setUp(TestInfo info) {
    name = "wake-faults:" + info.getTestMethod().orElseThrow().getName();
    holderThread = Executors.newSingleThreadExecutor();
    waiterThread = Executors.newSingleThreadExecutor();
  }

  @AfterEach
  void tearDown() throws InterruptedException {
    holderThread.shutdownNow();
    assertThat(holderThread.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    RedisInvariants.closeAfterTest(redis.server(), waiterThread, factories, name);
  }

  private RedisLockFactory factory(String uri) {
    RedisLockFactory factory =
        RedisLockFactory.builder().standalone(uri).commandTimeout(Duration.ofMillis(500)).build();
    factories.add(factory);
    return factory;
  }

  @Test
  void aSubscriptionThatWentSilentIsReplacedAndReleasesWakeWaitersAgain() throws Exception {
    try (TcpProxy proxy = TcpProxy.start(redis.server().port());
        Jedis jedis = redis.server().jedis()) {
      RedisDistributedLock holder = factory(redis.server().uri()).getLock(name);
      RedisDistributedLock waiter = factory(proxy.uri()).getLock(name);
      holderThread.submit(() -> holder.lock()).get();
      Future<?> waiting = waiterThread.submit(() -> lockAndUnlock(waiter));
      String channel = awaitOneSubscriber(jedis);

      // The subscription's connection goes silent: Redis forgets the subscriber, and the waiter's
      // factory hears nothing on it any more, nor any error.
      assertThat(proxy.blackHole(subscriberPort(jedis))).isTrue();
      await().atMost(Timing.awaitAtMost()).until(() -> subscribers(jedis, channel) == 0);

      await("the waiter's factory subscribed again")
          .atMost(REPLACED_WITHIN)
          .until(() -> subscribers(jedis, channel) == 1);
      holderThread.submit(holder::unlock).get();
      assertThat(waiting).as("the waiter, woken by the release").succeedsWithin(Timing.PROMPTLY);
    }
  }

  @Test
  void aQuietHealthySubscriptionIsKept() throws Exception {
    RedisDistributedLock holder = factory(redis.server().uri()).getLock(name);
    RedisDistributedLock waiter = factory(redis.server().uri()).getLock(name);
    try (Jedis jedis = redis.server().jedis()) {
      holderThread.submit(() -> holder.lock()).get();
      Future<?> waiting = waiterThread.submit(() -> lockAndUnlock(waiter));
      awaitOneSubscriber(jedis);
      long subscriber = subscriberId(jedis);
      long probesBefore = probes(jedis);

      // Several health checks pass, with nothing published: the connection answers them.
      await()
          .during(Timing.scaled(Duration.ofSeconds(7)))
          .atMost(Timing.scaled(Duration.ofSeconds(10)))
          .until(() -> subscriberId(jedis) == subscriber);
      assertThat(probes(jedis)).as("health checks on the subscription").isGreaterThan(probesBefore);

      holderThread.submit(holder::unlock).get();
      assertThat(waiting).as("the waiter, woken by the release").succeedsWithin(Timing.PROMPTLY);
    }
  }

  /**
   * A server loading its data set answers most commands with an error ({@code -LOADING}); a health
   * probe answered so (a {@code PING}, once) ended Jedis's Pub/Sub loop with the connection still
   * subscribed. Such a connection must never go back to the pool that lends connections to
   * commands: the next command lent it would read Pub/Sub messages as its reply. The torture run
   * saw that under Sentinel, where the old master rejoins as a replica and loads its new master's
   * data: lock scripts read {@code ["message", ...]} as their reply, fencing tokens repeated,
   * threads hung. The probe (a repeated {@code SUBSCRIBE}) is answered while loading, so the
   * subscription is kept; either way its connection is never lent to a command while subscribed.
   */
  @Test
  void aLoadingServerNeverLeavesASubscribedConnectionInThePool() throws Exception {
    try (RedisServer loading = RedisServer.start();
        Jedis jedis = loading.jedis(Timing.scaled(Duration.ofSeconds(30)))) {
      RedisLockFactory holderFactory = longLeases(loading);
      RedisLockFactory factory = longLeases(loading);
      try {
        RedisDistributedLock holder = holderFactory.getLock(name);
        RedisDistributedLock waiter = factory.getLock(name);
        holderThread.submit(() -> holder.lock()).get();
        Future<?> waiting = waiterThread.submit(() -> lockAndUnlock(waiter));
        awaitOneSubscriber(jedis);
        long subscriber = subscriberId(jedis);

        // About 10 s of loading: a probe is due every second check of a quiet subscription.
        CompletableFuture<Void> reload =
            ServerStates.startLoading(loading, Timing.scaled(Duration.ofSeconds(10)));
        assertThat(reload).succeedsWithin(Timing.scaled(Duration.ofSeconds(120)));
        // Kept (the probe is answered while loading) or closed; never unsubscribed and pooled.
        assertThat(
                jedis
                    .clientList()
                    .lines()
                    .filter(l -> l.startsWith("id=" + subscriber + " "))
                    .allMatch(l -> l.contains(" sub=1 ")))
            .as("the subscriber's connection, if open, is still subscribed, not back in the pool")
            .isTrue();

        holderThread.submit(holder::unlock).get();
        assertThat(waiting).as("the waiter").succeedsWithin(Timing.awaitAtMost());
        for (int i = 0; i < 50; i++) {
          RedisDistributedLock other = factory.getLock(name + ":" + i);
          assertThat(other.tryLock()).as("a command after the reload").isTrue();
          other.unlock();
        }
        jedis.flushAll(); // the filler keys
        RedisInvariants.assertCleanAfterTest(loading, null, List.of(holderFactory, factory), name);
      } finally {
        holderFactory.close();
        factory.close();
      }
    }
  }

  /** A factory whose leases outlive a loading server, which refuses renewals. */
  private static RedisLockFactory longLeases(RedisServer server) {
    return RedisLockFactory.builder()
        .standalone(server.uri())
        .leaseTime(Duration.ofSeconds(60))
        .commandTimeout(Duration.ofMillis(500))
        .build();
  }

  private static void lockAndUnlock(RedisDistributedLock lock) {
    lock.lock();
    lock.unlock();
  }

  /** Waits until one client subscribes to one channel, and returns the channel. */
  private static String awaitOneSubscriber(Jedis jedis) {
    await().atMost(Timing.awaitAtMost()).until(() -> jedis.pubsubChannels().size() == 1);
    String channel = jedis.pubsubChannels().get(0);
    await().atMost(Timing.awaitAtMost()).until(() -> subscribers(jedis, channel) == 1);
    return channel;
  }

  private static long subscribers(Jedis jedis, String channel) {
    Map<String, Long> counts = jedis.pubsubNumSub(channel);
    return counts.getOrDefault(channel, 0L);
  }

  /** The {@code CLIENT LIST} line of the one subscribed client. */
  private static String subscriberLine(Jedis jedis) {
    List<String> lines =
        jedis.clientList().lines().filter(line -> !line.contains(" sub=0 ")).toList();
    assertThat(lines).as("subscribed clients").hasSize(1);
    return lines.get(0);
  }

  private static long subscriberId(Jedis jedis) {
    return Long.parseLong(field(subscriberLine(jedis), "id"));
  }

  /** The port of the subscribed client's address, as the server sees it. */
  private static int subscriberPort(Jedis jedis) {
    String addr = field(subscriberLine(jedis), "addr");
    return Integer.parseInt(addr.substring(addr.lastIndexOf(':') + 1));
  }

  private static String field(String clientLine, String key) {
    for (String part : clientLine.split(" ")) {
      if (part.startsWith(key + "=")) {
        return part.substring(key.length() + 1);
      }
    }
    throw new AssertionError("no " + key + " in " + clientLine);
  }

  /** The SUBSCRIBE commands the server ran: the first subscription's, then each probe's. */
  private static long probes(Jedis jedis) {
    for (String line : jedis.info("commandstats").lines().toList()) {
      if (line.startsWith("cmdstat_subscribe:")) {
        String rest = line.substring(line.indexOf("calls=") + 6);
        return Long.parseLong(rest.substring(0, rest.indexOf(',')));
      }
    }
    return 0;
  }
}
