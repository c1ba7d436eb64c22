package io.github.redislock.internal.backend;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.redislock.internal.util.Tokens;
import io.github.redislock.testing.IntegrationTest;
import io.github.redislock.testing.RedisServer;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.params.SetParams;

/** The single-node operations' replies, including the retries that follow a lost reply. */
@IntegrationTest
class SingleNodeBackendTest {
  private static RedisServer server;
  private static RedisClient client;
  private static SingleNodeBackend backend;
  private final LockKeys keys = LockKeys.of("backend-test");

  @BeforeAll
  static void start() {
    server = RedisServer.start();
    client = RedisClient.create(server.host(), server.port());
    backend = new SingleNodeBackend(client, null, 10_000);
  }

  @AfterAll
  static void stop() {
    backend.close();
    client.close();
    server.close();
  }

  @Test
  void aPlainAcquisitionOfAFreeLockIsOneSetAndIssuesNoFencingToken() {
    String token = Tokens.next();
    Map<String, Long> before = commandCalls();
    Acquisition held = backend.tryAcquire(keys, token, Ask.PLAIN);
    Map<String, Long> after = commandCalls();
    assertThat(held.acquired()).isTrue();
    assertThat(held.fencingToken()).isZero();
    assertThat(after.getOrDefault("set", 0L) - before.getOrDefault("set", 0L)).isEqualTo(1);
    assertThat(after.getOrDefault("evalsha", 0L) - before.getOrDefault("evalsha", 0L)).isZero();
    try (Jedis jedis = server.jedis()) {
      assertThat(jedis.get(keys.lock())).isEqualTo(token);
      assertThat(jedis.exists(keys.companion())).as("no fencing counter written").isFalse();
    }
    assertThat(backend.release(keys, token, 0, null).released()).isTrue();
    try (Jedis jedis = server.jedis()) {
      assertThat(jedis.exists(keys.lock(), keys.companion())).as("nothing left").isZero();
    }
  }

  @Test
  void aPlainAcquisitionOfABusyLockTellsTheHoldersLease() {
    String holder = Tokens.next();
    backend.tryAcquire(keys, holder, Ask.PLAIN);
    Acquisition busy = backend.tryAcquire(keys, Tokens.next(), Ask.PLAIN);
    assertThat(busy.acquired()).isFalse();
    assertThat(busy.holderTtlMillis()).isBetween(1L, 10_000L);
    assertThat(busy.holderPublishes()).isTrue();
    backend.release(keys, holder, 0, null);
  }

  @Test
  void repeatedReleaseAfterALostReplyFindsTheKeyGone() {
    // The engine tells this from a lost hold by its lease (see LockEngine.releaseWithRetry).
    String token = Tokens.next();
    assertThat(backend.tryAcquire(keys, token, Ask.PLAIN).acquired()).isTrue();
    assertThat(backend.release(keys, token, 0, null).released()).isTrue();
    assertThat(backend.release(keys, token, 0, null).released()).isFalse();
  }

  @Test
  void releaseOfATokenThatNeverHeldTheLockIsRefused() {
    String token = Tokens.next();
    assertThat(backend.tryAcquire(keys, token, Ask.PLAIN).acquired()).isTrue();
    assertThat(backend.release(keys, Tokens.next(), 0, null).released()).isFalse();
    assertThat(backend.isLocked(keys)).isTrue();
    assertThat(backend.release(keys, token, 0, null).released()).isTrue();
  }

  @ParameterizedTest
  @EnumSource(Ask.class)
  void repeatedAcquireAfterALostReplyIsAcquired(Ask ask) {
    String token = Tokens.next();
    Acquisition first = backend.tryAcquire(keys, token, ask);
    Acquisition again = backend.tryAcquire(keys, token, ask);
    assertThat(again.acquired()).isTrue();
    if (ask == Ask.FENCED) {
      assertThat(again.fencingToken()).isGreaterThan(first.fencingToken());
    } else {
      assertThat(again.fencingToken()).isZero();
    }
    backend.release(keys, token, 0, null);
  }

  @Test
  void aFencingTokenIssuedWhenAskedForFollowsOneIssuedWithAnAcquisition() {
    String first = Tokens.next();
    long issuedWithAcquisition = backend.tryAcquire(keys, first, Ask.FENCED).fencingToken();
    backend.release(keys, first, 0, null);
    String second = Tokens.next();
    backend.tryAcquire(keys, second, Ask.PLAIN);
    long issuedLater = backend.reissueFence(keys, second, null);
    assertThat(issuedLater).isGreaterThan(issuedWithAcquisition);
    backend.release(keys, second, 0, null);
    assertThat(backend.reissueFence(keys, second, null)).as("not held any more").isEqualTo(-1);
  }

  @Test
  void busyReplyCarriesTheHoldersTtlAndWhetherItPublishes() {
    String token = Tokens.next();
    backend.tryAcquire(keys, token, Ask.PROBE);
    Acquisition busy = backend.tryAcquire(keys, Tokens.next(), Ask.PROBE);
    assertThat(busy.acquired()).isFalse();
    assertThat(busy.holderTtlMillis()).isBetween(1L, 10_000L);
    assertThat(busy.holderPublishes()).isTrue();
    backend.release(keys, token, 0, null);
    try (Jedis jedis = server.jedis()) {
      jedis.set(keys.lock(), "foreign");
    }
    Acquisition foreign = backend.tryAcquire(keys, Tokens.next(), Ask.PROBE);
    assertThat(foreign.holderTtlMillis()).isEqualTo(-1);
    assertThat(foreign.holderPublishes()).isFalse();
    try (Jedis jedis = server.jedis()) {
      jedis.del(keys.lock());
    }
  }

  @Test
  void extendKeepsOnlyTheOwnersLease() {
    String token = Tokens.next();
    try (Jedis jedis = server.jedis()) {
      jedis.set(keys.lock(), token, SetParams.setParams().nx().px(1_000));
    }
    assertThat(backend.extend(keys, token)).isTrue();
    assertThat(backend.extend(keys, Tokens.next())).isFalse();
    try (Jedis jedis = server.jedis()) {
      assertThat(jedis.pttl(keys.lock())).isGreaterThan(1_000);
    }
    backend.release(keys, token, 0, null);
    assertThat(backend.extend(keys, token)).isFalse();
  }

  @Test
  void fencingTokensFollowServerTimeWhenTheCounterIsGone() {
    String token = Tokens.next();
    long first = backend.tryAcquire(keys, token, Ask.FENCED).fencingToken();
    backend.release(keys, token, 0, null);
    try (Jedis jedis = server.jedis()) {
      jedis.del(keys.companion());
      jedis.hset(keys.companion(), "c", "5");
      jedis.pexpire(keys.companion(), 60_000);
    }
    String next = Tokens.next();
    long second = backend.tryAcquire(keys, next, Ask.FENCED).fencingToken();
    assertThat(second).isGreaterThan(first);
    backend.release(keys, next, 0, null);
  }

  /** Calls per command since the server started, from {@code INFO commandstats}. */
  private static Map<String, Long> commandCalls() {
    Map<String, Long> calls = new HashMap<>();
    try (Jedis jedis = server.jedis()) {
      for (String line : jedis.info("commandstats").lines().toList()) {
        if (line.startsWith("cmdstat_")) {
          String command = line.substring("cmdstat_".length(), line.indexOf(':'));
          String count = line.substring(line.indexOf("calls=") + 6, line.indexOf(','));
          calls.put(command, Long.parseLong(count));
        }
      }
    }
    return calls;
  }
}
