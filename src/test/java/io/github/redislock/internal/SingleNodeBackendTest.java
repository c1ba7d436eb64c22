package io.github.redislock.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.redislock.testing.RedisInvariants;
import io.github.redislock.testing.RedisServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClient;

/** The scripts' replies, including the retries that follow a lost reply. */
class SingleNodeBackendTest {
  private static RedisServer server;
  private static RedisClient client;
  private static SingleNodeBackend backend;
  private final LockKeys keys = LockKeys.of("backend-test");

  @BeforeAll
  static void start() {
    server = RedisServer.start();
    client = RedisClient.create(server.host(), server.port());
    backend = new SingleNodeBackend(client, false, 60_000);
  }

  @AfterAll
  static void stop() {
    backend.close();
    client.close();
    server.close();
  }

  @AfterEach
  void noKeysWithoutTtl() {
    try (Jedis jedis = server.jedis()) {
      RedisInvariants.assertNoKeysWithoutTtl(jedis);
      jedis.flushAll();
    }
  }

  @Test
  void repeatedReleaseAfterALostReplyStillReportsReleased() {
    String token = Tokens.next();
    assertThat(backend.tryAcquire(keys, token, 10_000).acquired()).isTrue();
    assertThat(backend.release(keys, token, 0, null).released()).isTrue();
    assertThat(backend.release(keys, token, 0, null).released()).isTrue();
  }

  @Test
  void releaseOfATokenThatNeverHeldTheLockIsRefused() {
    String token = Tokens.next();
    assertThat(backend.tryAcquire(keys, token, 10_000).acquired()).isTrue();
    assertThat(backend.release(keys, Tokens.next(), 0, null).released()).isFalse();
    assertThat(backend.isLocked(keys)).isTrue();
    assertThat(backend.release(keys, token, 0, null).released()).isTrue();
  }

  @Test
  void repeatedAcquireAfterALostReplyIsAcquiredWithAHigherFence() {
    String token = Tokens.next();
    Acquisition first = backend.tryAcquire(keys, token, 10_000);
    Acquisition again = backend.tryAcquire(keys, token, 10_000);
    assertThat(again.acquired()).isTrue();
    assertThat(again.fencingToken()).isGreaterThan(first.fencingToken());
    backend.release(keys, token, 0, null);
  }

  @Test
  void busyReplyCarriesTheHoldersTtlAndWhetherItPublishes() {
    String token = Tokens.next();
    backend.tryAcquire(keys, token, 10_000);
    Acquisition busy = backend.tryAcquire(keys, Tokens.next(), 10_000);
    assertThat(busy.acquired()).isFalse();
    assertThat(busy.holderTtlMillis()).isBetween(1L, 10_000L);
    assertThat(busy.holderPublishes()).isTrue();
    backend.release(keys, token, 0, null);
    try (Jedis jedis = server.jedis()) {
      jedis.set(keys.lock(), "foreign");
    }
    Acquisition foreign = backend.tryAcquire(keys, Tokens.next(), 10_000);
    assertThat(foreign.holderTtlMillis()).isEqualTo(-1);
    assertThat(foreign.holderPublishes()).isFalse();
    try (Jedis jedis = server.jedis()) {
      jedis.del(keys.lock());
    }
  }

  @Test
  void extendKeepsOnlyTheOwnersLease() {
    String token = Tokens.next();
    backend.tryAcquire(keys, token, 1_000);
    assertThat(backend.extend(keys, token, 50_000)).isTrue();
    assertThat(backend.extend(keys, Tokens.next(), 50_000)).isFalse();
    try (Jedis jedis = server.jedis()) {
      assertThat(jedis.pttl(keys.lock())).isGreaterThan(1_000);
    }
    backend.release(keys, token, 0, null);
    assertThat(backend.extend(keys, token, 50_000)).isFalse();
  }

  @Test
  void fencingTokensFollowServerTimeWhenTheCounterIsGone() {
    String token = Tokens.next();
    long first = backend.tryAcquire(keys, token, 10_000).fencingToken();
    backend.release(keys, token, 0, null);
    try (Jedis jedis = server.jedis()) {
      jedis.del(keys.companion());
      jedis.hset(keys.companion(), "c", "5");
      jedis.pexpire(keys.companion(), 60_000);
    }
    String next = Tokens.next();
    long second = backend.tryAcquire(keys, next, 10_000).fencingToken();
    assertThat(second).isGreaterThan(first);
    backend.release(keys, next, 0, null);
  }
}
