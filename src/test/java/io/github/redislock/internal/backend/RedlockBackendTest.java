package io.github.redislock.internal.backend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.github.redislock.RedisLockException;
import io.github.redislock.internal.transport.Dial;
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
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.params.SetParams;

/**
 * Redlock's decisions on real masters, some behind a delaying proxy: the typed outcomes and the
 * validity check.
 */
@IntegrationTest
class RedlockBackendTest {
  private final List<RedisServer> masters = new ArrayList<>();
  private final List<TcpProxy> proxies = new ArrayList<>();
  private final List<RedisClient> clients = new ArrayList<>();
  private final LockKeys keys = LockKeys.of("redlock-backend-test");
  private RedlockBackend backend;

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
  }

  /** How the pipelined transport reaches a master: through its proxy, as the clients do. */
  static Dial dial(TcpProxy proxy) {
    return new Dial(
        new HostAndPort("127.0.0.1", proxy.port()), DefaultJedisClientConfig.builder().build());
  }

  private RedlockBackend backend(Duration nodeTimeout) {
    return backend(nodeTimeout, 10_000);
  }

  private RedlockBackend backend(Duration nodeTimeout, long leaseMillis) {
    List<String> labels = masters.stream().map(RedisServer::uri).toList();
    backend =
        new RedlockBackend(
            clients,
            labels,
            proxies.stream().map(RedlockBackendTest::dial).toList(),
            false,
            leaseMillis,
            nodeTimeout.toNanos(),
            nodeTimeout.toNanos(),
            Ticker.SYSTEM);
    return backend;
  }

  @AfterEach
  void stop() {
    if (backend != null) {
      backend.close();
    }
    masters.forEach(RedisServer::close); // LeakCheck inspects each as it stops
  }

  private void clog(int... nodes) {
    for (int node : nodes) {
      try (Jedis jedis = masters.get(node).jedis()) {
        jedis.set(keys.lock(), "someone-else", SetParams.setParams().px(60_000));
      }
    }
  }

  /** A call returns once a majority answered: waits until the others have the key too. */
  private void awaitHeldEverywhere(String token) {
    for (RedisServer master : masters) {
      try (Jedis jedis = master.jedis()) {
        await().atMost(Timing.awaitAtMost()).until(() -> token.equals(jedis.get(keys.lock())));
      }
    }
  }

  private void awaitNoKeyOfOurs() {
    for (RedisServer master : masters) {
      if (!master.isRunning()) {
        continue;
      }
      try (Jedis jedis = master.jedis()) {
        await()
            .atMost(Timing.awaitAtMost())
            .until(
                () -> {
                  String value = jedis.get(keys.lock());
                  return value == null || value.equals("someone-else");
                });
      }
    }
  }

  @Test
  void acquisitionSlowerThanTheLeaseIsRefusedAndReleasedEverywhere() {
    RedlockBackend redlock = backend(Duration.ofSeconds(5), 200);
    for (int i = 0; i < 3; i++) {
      proxies
          .get(i)
          .setDelay(Duration.ofMillis(150)); // each way: a majority answers after the lease
    }
    assertThatThrownBy(() -> redlock.tryAcquire(keys, Tokens.next(), false, true))
        .isInstanceOf(RedisLockException.class)
        .hasMessageContaining("leaving no validity")
        .satisfies(e -> assertThat(Failures.isTransient(e)).isTrue());
    awaitNoKeyOfOurs();
  }

  @Test
  void otherOwnersOnAMajorityMeanBusyNotAnError() {
    RedlockBackend redlock = backend(Timing.scaled(Duration.ofSeconds(2)));
    clog(0, 2, 4);
    Acquisition attempt = redlock.tryAcquire(keys, Tokens.next(), false, true);
    assertThat(attempt.acquired()).isFalse();
    assertThat(attempt.holderTtlMillis()).isPositive();
    awaitNoKeyOfOurs();
  }

  @Test
  void aPlainAttemptOnABusyMajorityAsksAgainByScriptAndTellsHowLong() {
    RedlockBackend redlock = backend(Timing.scaled(Duration.ofSeconds(2)));
    clog(0, 2, 4);
    Acquisition attempt = redlock.tryAcquire(keys, Tokens.next(), false, false);
    assertThat(attempt.acquired()).isFalse();
    assertThat(attempt.holderTtlMillis()).as("from the scripted round").isPositive();
    awaitNoKeyOfOurs();
  }

  @Test
  void aPlainAttemptWithAFreeMajorityHoldsWithoutAFencingToken() {
    RedlockBackend redlock = backend(Timing.scaled(Duration.ofSeconds(2)));
    clog(1, 3);
    String token = Tokens.next();
    Acquisition held = redlock.tryAcquire(keys, token, false, false);
    assertThat(held.acquired()).isTrue();
    assertThat(held.fencingToken()).isZero();
    assertThat(redlock.release(keys, token, 0, held.grant()).released()).isTrue();
    awaitNoKeyOfOurs();
  }

  @Test
  void failuresAloneOnAMajorityAreAnErrorNamingEachNode() {
    RedlockBackend redlock = backend(Timing.scaled(Duration.ofSeconds(2)));
    masters.get(1).kill();
    masters.get(3).kill();
    masters.get(4).kill();
    assertThatThrownBy(() -> redlock.tryAcquire(keys, Tokens.next(), false, true))
        .isInstanceOf(RedisLockException.class)
        .hasMessageContaining(masters.get(1).uri())
        .hasMessageContaining(masters.get(3).uri())
        .hasMessageContaining(masters.get(4).uri())
        .satisfies(e -> assertThat(Failures.isTransient(e)).isTrue());
    awaitNoKeyOfOurs();
  }

  @Test
  void contentionMixedWithFailuresIsBusy() {
    RedlockBackend redlock = backend(Timing.scaled(Duration.ofSeconds(2)));
    clog(0, 1);
    masters.get(2).kill();
    assertThat(redlock.tryAcquire(keys, Tokens.next(), false, true).acquired()).isFalse();
    awaitNoKeyOfOurs();
  }

  @Test
  void aStalledMinorityCostsAtMostTheNodeTimeoutAndIsReleasedWhenItAnswers() {
    RedlockBackend redlock = backend(Duration.ofMillis(200));
    proxies.get(3).stall();
    proxies.get(4).stall();
    String token = Tokens.next();
    Acquisition held = redlock.tryAcquire(keys, token, false, true);
    assertThat(held.acquired()).isTrue();
    assertThat(redlock.release(keys, token, held.fencingToken(), held.grant()).released()).isTrue();
    proxies.get(3).unstall();
    proxies.get(4).unstall();
    awaitNoKeyOfOurs();
  }

  @Test
  void renewalNeedsAMajority() {
    RedlockBackend redlock = backend(Duration.ofMillis(200));
    String token = Tokens.next();
    Acquisition held = redlock.tryAcquire(keys, token, false, true);
    assertThat(held.acquired()).isTrue();
    awaitHeldEverywhere(token);
    assertThat(redlock.extend(keys, token)).isTrue();
    for (int i = 0; i < 3; i++) {
      try (Jedis jedis = masters.get(i).jedis()) {
        jedis.del(keys.lock());
      }
    }
    assertThat(redlock.extend(keys, token)).isFalse();
    assertThat(redlock.release(keys, token, 0, held.grant()).released())
        .as("a lost hold")
        .isFalse();
    awaitNoKeyOfOurs();
  }

  @Test
  void aReleaseThatFewerThanAMajorityConfirmedIsAnErrorNotALostHold() {
    RedlockBackend redlock = backend(Duration.ofMillis(200));
    String token = Tokens.next();
    Acquisition held = redlock.tryAcquire(keys, token, false, true);
    awaitHeldEverywhere(token);
    masters.get(0).kill();
    masters.get(1).kill();
    masters.get(2).kill();
    assertThatThrownBy(() -> redlock.release(keys, token, held.fencingToken(), held.grant()))
        .isInstanceOf(RedisLockException.class)
        .hasMessageContaining("majority")
        .hasMessageContaining(masters.get(0).uri())
        .satisfies(
            e -> assertThat(Failures.isTransient(e)).as("judged already: not to retry").isFalse());
    awaitNoKeyOfOurs();
  }

  @Test
  void fencingTokenIsTheMaximumOverTheMajorityAndConfirmingRaisesIt() {
    RedlockBackend redlock = backend(Timing.scaled(Duration.ofSeconds(2)));
    long ahead =
        TimeUnit.MILLISECONDS.toMicros(System.currentTimeMillis()) + TimeUnit.DAYS.toMicros(1);
    try (Jedis jedis = masters.get(4).jedis()) {
      jedis.hset(keys.companion(), "c", Long.toString(ahead));
      jedis.pexpire(keys.companion(), 60_000);
    }
    String token = Tokens.next();
    Acquisition held = redlock.tryAcquire(keys, token, true, false);
    awaitHeldEverywhere(token); // master 4 may not be in the majority that answered first
    assertThat(redlock.confirmFence(keys, token, Math.max(held.fencingToken(), ahead + 1)))
        .isTrue();
    for (int i = 0; i < 5; i++) { // a majority before the call returned, the others soon after
      try (Jedis jedis = masters.get(i).jedis()) {
        await()
            .atMost(Timing.awaitAtMost())
            .untilAsserted(
                () ->
                    assertThat(Long.parseLong(jedis.hget(keys.companion(), "c")))
                        .isGreaterThan(ahead));
      }
    }
    redlock.release(keys, token, held.fencingToken(), held.grant());
    awaitNoKeyOfOurs();
  }

  @Test
  void confirmingAFenceNeedsAMajorityThatStillHoldsTheKey() {
    RedlockBackend redlock = backend(Timing.scaled(Duration.ofSeconds(2)));
    String token = Tokens.next();
    Acquisition held = redlock.tryAcquire(keys, token, true, false);
    awaitHeldEverywhere(token);
    deleteKeyOn(1, 2, 3, 4);
    long later = held.fencingToken() + 1_000_000;
    assertThat(redlock.confirmFence(keys, token, later)).as("confirmed for a lost hold").isFalse();
    for (int i = 1; i < 5; i++) {
      try (Jedis jedis = masters.get(i).jedis()) {
        assertThat(Long.parseLong(jedis.hget(keys.companion(), "c")))
            .as("master %d's counter, raised for a hold it does not know", i)
            .isLessThan(later);
      }
    }
    redlock.release(keys, token, 0, held.grant());
    awaitNoKeyOfOurs();
  }

  @Test
  void reissuingAFenceNeedsAMajorityThatStillHoldsTheKey() {
    RedlockBackend redlock = backend(Timing.scaled(Duration.ofSeconds(2)));
    String token = Tokens.next();
    Acquisition held = redlock.tryAcquire(keys, token, false, true);
    awaitHeldEverywhere(token);
    deleteKeyOn(0, 1, 2);
    assertThat(redlock.reissueFence(keys, token, held.grant())).isEqualTo(-1);
    redlock.release(keys, token, 0, held.grant());
    awaitNoKeyOfOurs();
  }

  private void deleteKeyOn(int... nodes) {
    for (int node : nodes) {
      try (Jedis jedis = masters.get(node).jedis()) {
        jedis.del(keys.lock());
      }
    }
  }

  @Test
  void aReleaseWithAFencingTokenRefreshesTheCountersExpiryWhereItReleases() {
    RedlockBackend redlock = backend(Timing.scaled(Duration.ofSeconds(2)));
    String token = Tokens.next();
    Acquisition held = redlock.tryAcquire(keys, token, true, false);
    awaitHeldEverywhere(token);
    for (RedisServer master : masters) {
      try (Jedis jedis = master.jedis()) {
        // every counter is at the token or above: the release has nothing to raise
        jedis.hset(keys.companion(), "c", Long.toString(held.fencingToken()));
        jedis.pexpire(keys.companion(), 30_000);
      }
    }
    assertThat(redlock.release(keys, token, held.fencingToken(), held.grant()).released()).isTrue();
    for (RedisServer master : masters) {
      try (Jedis jedis = master.jedis()) {
        await()
            .atMost(Timing.awaitAtMost())
            .untilAsserted(() -> assertThat(jedis.pttl(keys.companion())).isGreaterThan(30_000));
      }
    }
  }
}
