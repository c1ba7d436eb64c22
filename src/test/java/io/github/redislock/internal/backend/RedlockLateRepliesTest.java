package io.github.redislock.internal.backend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.redislock.internal.util.Ticker;
import io.github.redislock.internal.util.Tokens;
import io.github.redislock.testing.IntegrationTest;
import io.github.redislock.testing.LeakCheck;
import io.github.redislock.testing.RedisServer;
import io.github.redislock.testing.TcpProxy;
import io.github.redislock.testing.Timing;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.params.SetParams;

/**
 * Late replies under Redlock: a master whose acquisition reply comes late must not keep the key for
 * a whole lease. Its late grant is released when it comes, and no release may reach a master before
 * the {@code SET} it is meant to undo (a release on another connection can overtake a {@code SET}
 * held up on the way). The lease is a minute; every check waits a few seconds at most.
 */
@IntegrationTest
class RedlockLateRepliesTest {
  private static final long LEASE_MILLIS = 60_000;
  private static final Duration NODE_TIMEOUT = Timing.scaled(Duration.ofMillis(250));

  private final List<RedisServer> masters = new ArrayList<>();
  private final List<TcpProxy> proxies = new ArrayList<>();
  private final List<RedisClient> clients = new ArrayList<>();
  private final LockKeys keys = LockKeys.of("redlock-late-replies-test");
  private RedlockBackend redlock;

  @BeforeEach
  void start() {
    for (int i = 0; i < 5; i++) {
      RedisServer master = RedisServer.start();
      // The proxies and clients are closed after the leak check, which must see them open.
      TcpProxy proxy = LeakCheck.closeAfterCheck(TcpProxy.start(master.port()));
      masters.add(master);
      proxies.add(proxy);
      clients.add(LeakCheck.closeAfterCheck(RedisClient.create("127.0.0.1", proxy.port())));
    }
    List<String> labels = masters.stream().map(RedisServer::uri).toList();
    redlock =
        new RedlockBackend(
            clients,
            labels,
            proxies.stream().map(RedlockBackendTest::dial).toList(),
            false,
            LEASE_MILLIS,
            NODE_TIMEOUT.toNanos(),
            NODE_TIMEOUT.toNanos(),
            Ticker.SYSTEM);
    // Connections to every master exist, as in a running application.
    String token = Tokens.next();
    Acquisition held = redlock.tryAcquire(keys, token, false, false);
    assertThat(held.acquired()).isTrue();
    assertThat(redlock.release(keys, token, 0, held.grant()).released()).isTrue();
  }

  @AfterEach
  void stop() {
    proxies.forEach(TcpProxy::unstall);
    masters.forEach(RedisServer::resume);
    redlock.close();
    masters.forEach(RedisServer::close); // LeakCheck inspects each as it stops
  }

  private long setCalls(int master) {
    try (Jedis jedis = masters.get(master).jedis()) {
      for (String line : jedis.info("commandstats").split("\r?\n")) {
        if (line.startsWith("cmdstat_set:calls=")) {
          return Long.parseLong(line.substring(18, line.indexOf(',')));
        }
      }
      return 0;
    }
  }

  /** Waits until master {@code m} has run the {@code SET} held up on the way, then for no key. */
  private void awaitTheLateSetUndone(int m, long setCallsBefore, String token) {
    await("the late SET reaches master " + m)
        .atMost(Timing.awaitAtMost())
        .until(() -> setCalls(m) > setCallsBefore);
    try (Jedis jedis = masters.get(m).jedis()) {
      await("master " + m + " no longer holds the key, well within the lease")
          .atMost(Timing.WELL_WITHIN_A_MINUTE_LEASE)
          .until(() -> !token.equals(jedis.get(keys.lock())));
    }
  }

  @Test
  void aGrantFromAFrozenMasterThatComesAfterTheReleaseIsReleasedWhenItComes() {
    long before = setCalls(4);
    masters.get(4).pause();
    String token = Tokens.next();
    Acquisition held = redlock.tryAcquire(keys, token, false, false);
    assertThat(held.acquired()).isTrue();
    assertThat(redlock.release(keys, token, 0, held.grant()).released()).isTrue();
    masters.get(4).resume();
    awaitTheLateSetUndone(4, before, token);
  }

  @Test
  void aGrantDelayedBeyondTheNodeTimeoutIsReleasedWithTheHold() {
    long before = setCalls(4);
    proxies.get(4).setDelay(NODE_TIMEOUT.multipliedBy(3));
    String token = Tokens.next();
    Acquisition held = redlock.tryAcquire(keys, token, false, false);
    assertThat(held.acquired()).isTrue();
    assertThat(redlock.release(keys, token, 0, held.grant()).released()).isTrue();
    awaitTheLateSetUndone(4, before, token);
    proxies.get(4).setDelay(Duration.ZERO);
  }

  @Test
  void theReleaseOfAHoldNeverOvertakesItsSetHeldUpOnTheWay() {
    long before = setCalls(4);
    proxies.get(4).holdOpenConnections();
    String token = Tokens.next();
    Acquisition held = redlock.tryAcquire(keys, token, false, false);
    assertThat(held.acquired()).isTrue();
    assertThat(redlock.release(keys, token, 0, held.grant()).released()).isTrue();
    proxies.get(4).unstall();
    awaitTheLateSetUndone(4, before, token);
  }

  @Test
  void theBackgroundReleaseOfAFailedAttemptNeverOvertakesItsSetHeldUpOnTheWay() {
    for (int m = 0; m < 3; m++) {
      try (Jedis jedis = masters.get(m).jedis()) {
        jedis.set(keys.lock(), "someone-else", SetParams.setParams().px(LEASE_MILLIS));
      }
    }
    long before = setCalls(4);
    proxies.get(4).holdOpenConnections();
    String token = Tokens.next();
    assertThat(redlock.tryAcquire(keys, token, false, false).acquired()).isFalse();
    proxies.get(4).unstall();
    awaitTheLateSetUndone(4, before, token);
    try (Jedis jedis = masters.get(3).jedis()) {
      await("master 3, which granted the failed attempt, is released")
          .atMost(Timing.WELL_WITHIN_A_MINUTE_LEASE)
          .until(() -> jedis.get(keys.lock()) == null);
    }
  }
}
