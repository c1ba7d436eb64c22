package io.github.redislock.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.redislock.internal.backend.LockKeys;
import io.github.redislock.internal.backend.SingleNodeBackend;
import io.github.redislock.internal.util.Tokens;
import io.github.redislock.testing.IntegrationTest;
import io.github.redislock.testing.RedisInvariants;
import io.github.redislock.testing.RedisServer;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.params.SetParams;

/**
 * A fair waiter's place in the queue, driven step by step: the orders of events that threads and
 * the I/O executor can produce, made deterministic.
 */
@IntegrationTest
class FairKindTest {
  private static final long LEASE_MILLIS = 10_000;
  private static RedisServer server;
  private static RedisClient client;
  private static SingleNodeBackend backend;
  private final LockKeys keys = LockKeys.of("fair-kind-test");

  @BeforeAll
  static void start() {
    server = RedisServer.start();
    client = RedisClient.create(server.host(), server.port());
    backend = new SingleNodeBackend(client, false, LEASE_MILLIS);
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

  private long queued() {
    try (Jedis jedis = server.jedis()) {
      return jedis.zcard(keys.fairQueue());
    }
  }

  private void holdElsewhere() {
    try (Jedis jedis = server.jedis()) {
      jedis.set(keys.lock(), "someone-else", SetParams.setParams().px(LEASE_MILLIS));
    }
  }

  /** An I/O executor that runs each task at once, in the caller's thread. */
  private static FairKind kind() {
    return new FairKind(backend, Runnable::run, TimeUnit.MILLISECONDS.toNanos(LEASE_MILLIS));
  }

  @Test
  void anAttemptThatEndsAfterItsWaitLeftTheQueueTakesItsPlaceOutAgain() {
    // A timed attempt runs on the I/O executor; the caller gives up at its deadline and leaves the
    // queue, and the attempt, still on its way, reaches Redis after the leaving.
    holdElsewhere();
    LockKind place = kind().forWait(false);
    place.leave(keys);
    assertThat(place.tryAcquire(keys, Tokens.next(), false).acquired()).isFalse();
    assertThat(queued()).as("places left behind").isZero();
  }

  @Test
  void aWaitThatHasNotLeftKeepsItsPlace() {
    holdElsewhere();
    LockKind place = kind().forWait(false);
    assertThat(place.tryAcquire(keys, Tokens.next(), false).acquired()).isFalse();
    assertThat(queued()).isEqualTo(1);
    place.leave(keys);
    assertThat(queued()).isZero();
  }
}
