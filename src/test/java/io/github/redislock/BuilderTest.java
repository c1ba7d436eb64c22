package io.github.redislock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.redislock.testing.RedisInvariants;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.RedisClient;

/** Bad settings and bad arguments get a clear exception at once; none of these needs Redis. */
class BuilderTest {
  private static final String URI = "redis://127.0.0.1:1";

  @AfterEach
  void noThreadsLeft() {
    RedisInvariants.assertNoThreads("redis-lock-");
  }

  @Test
  void buildWithoutEndpointIsRejected() {
    assertThatThrownBy(() -> RedisLockFactory.builder().build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("endpoint");
  }

  @Test
  void secondEndpointIsRejected() {
    RedisLockFactory.Builder builder = RedisLockFactory.builder().standalone(URI);
    assertThatThrownBy(() -> builder.standalone(URI))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("already set");
    try (RedisClient client = RedisClient.create("127.0.0.1", 1)) {
      assertThatThrownBy(() -> builder.client(client)).isInstanceOf(IllegalStateException.class);
    }
  }

  @Test
  void nullArgumentsAreRejected() {
    RedisLockFactory.Builder builder = RedisLockFactory.builder();
    assertThatThrownBy(() -> builder.standalone(null)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> builder.client(null)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> builder.leaseTime(null)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> builder.keyPrefix(null)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> builder.onLockLost(null)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> builder.redlock((String[]) null))
        .isInstanceOf(NullPointerException.class);
  }

  @Test
  void malformedUrisAreRejected() {
    for (String uri : List.of("", "localhost:6379", "http://localhost:6379", "redis://")) {
      assertThatThrownBy(() -> RedisLockFactory.builder().standalone(uri))
          .as(uri)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("Redis URI");
    }
  }

  @Test
  void eachUriMethodTakesOnlyItsOwnForm() {
    assertThatThrownBy(() -> RedisLockFactory.builder().standalone("redis-cluster://h:1"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("call cluster(uri)");
    assertThatThrownBy(() -> RedisLockFactory.builder().sentinel("redis://h:1"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("call standalone(uri)");
    assertThatThrownBy(() -> RedisLockFactory.builder().cluster("redis-sentinel://h:1/m"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("call sentinel(uri)");
    assertThatThrownBy(() -> RedisLockFactory.builder().sentinel("redis-sentinel://h:1"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("master name");
    assertThatThrownBy(() -> RedisLockFactory.builder().sentinel(null))
        .isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> RedisLockFactory.builder().cluster(null))
        .isInstanceOf(NullPointerException.class);
  }

  @Test
  void sentinelAndClusterCountAsTheOneEndpoint() {
    RedisLockFactory.Builder builder =
        RedisLockFactory.builder().sentinel("redis-sentinel://:pw@h:1,h:2/orders");
    assertThatThrownBy(() -> builder.cluster("redis-cluster://h:3"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("sentinel(redis-sentinel://h:1,h:2/orders)")
        .hasMessageNotContaining("pw");
    assertThatThrownBy(
            () -> RedisLockFactory.builder().cluster("redis-cluster://h:3").standalone(URI))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("already set");
  }

  @Test
  void redissIsAcceptedByStandalone() {
    try (RedisLockFactory factory =
        RedisLockFactory.builder().standalone("rediss://127.0.0.1:1").build()) {
      assertThat(factory.getLock("x").getName()).isEqualTo("x");
    }
  }

  @Test
  void tlsSettingsNeedATlsUriOfTheFactorysOwn() throws Exception {
    SSLContext context = SSLContext.getDefault();
    assertThatThrownBy(() -> RedisLockFactory.builder().standalone(URI).tls(context).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("rediss://");
    assertThatThrownBy(
            () ->
                RedisLockFactory.builder()
                    .redlock(URI, "redis://127.0.0.1:2", "redis://127.0.0.1:3")
                    .tls(context)
                    .build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("rediss://");
    try (RedisClient client = RedisClient.create("127.0.0.1", 1)) {
      assertThatThrownBy(() -> RedisLockFactory.builder().client(client).tls(context).build())
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("configure TLS on the client");
    }
    RedisLockFactory.Builder builder = RedisLockFactory.builder().tls(context);
    assertThatThrownBy(() -> builder.tls(context))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("tls");
    assertThatThrownBy(() -> builder.tls((SSLContext) null))
        .isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> RedisLockFactory.builder().tls(null, new SSLParameters()))
        .isInstanceOf(NullPointerException.class);
    RedisLockFactory.builder().standalone("rediss://127.0.0.1:1").tls(context).build().close();
  }

  @Test
  void unreachableSentinelsFailTheBuildWithRedisLockException() {
    RedisLockFactory.Builder builder =
        RedisLockFactory.builder()
            .sentinel("redis-sentinel://127.0.0.1:1/mymaster")
            .commandTimeout(Duration.ofMillis(200));
    assertThatThrownBy(builder::build)
        .isInstanceOf(RedisLockException.class)
        .hasMessageContaining("127.0.0.1:1");
  }

  @Test
  void nonPositiveOrAbsurdLeasesAreRejected() {
    for (Duration lease :
        List.of(Duration.ZERO, Duration.ofMillis(-1), Duration.ofMillis(1), Duration.ofDays(2))) {
      assertThatThrownBy(() -> RedisLockFactory.builder().leaseTime(lease))
          .as(lease.toString())
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("leaseTime");
    }
  }

  @Test
  void repeatedSettingsAreRejected() {
    RedisLockFactory.Builder builder =
        RedisLockFactory.builder().leaseTime(Duration.ofSeconds(5)).keyPrefix("a");
    assertThatThrownBy(() -> builder.leaseTime(Duration.ofSeconds(5)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("leaseTime");
    assertThatThrownBy(() -> builder.keyPrefix("b"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("keyPrefix");
  }

  @Test
  void redlockNeedsThreeMasters() {
    assertThatThrownBy(() -> RedisLockFactory.builder().redlock(URI, URI))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at least 3");
  }

  @Test
  void redlockMastersMustBeDistinct() {
    assertThatThrownBy(() -> RedisLockFactory.builder().redlock(URI, URI, "redis://127.0.0.1:2"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("distinct");
  }

  @Test
  void redlockNodeTimeoutMustBeShorterThanTheLease() {
    RedisLockFactory.Builder builder =
        RedisLockFactory.builder()
            .redlock(URI, "redis://127.0.0.1:2", "redis://127.0.0.1:3")
            .leaseTime(Duration.ofMillis(500))
            .redlockNodeTimeout(Duration.ofSeconds(1));
    assertThatThrownBy(builder::build)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("redlockNodeTimeout");
  }

  @Test
  void redlockBuildsWithoutContactingTheMasters() {
    try (RedisLockFactory factory =
        RedisLockFactory.builder()
            .redlock(URI, "redis://127.0.0.1:2", "redis://127.0.0.1:3")
            .build()) {
      assertThatThrownBy(() -> factory.getLock("x").tryLock())
          .isInstanceOf(RedisLockException.class)
          .hasMessageContaining("majority");
    }
  }

  @Test
  void nullAndEmptyLockNamesAreRejected() {
    try (RedisLockFactory factory = RedisLockFactory.builder().standalone(URI).build()) {
      assertThatThrownBy(() -> factory.getLock(null))
          .isInstanceOf(NullPointerException.class)
          .hasMessageContaining("name");
      assertThatThrownBy(() -> factory.getLock(""))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("empty");
    }
  }

  @Test
  void nullTimeUnitIsRejected() {
    try (RedisLockFactory factory = RedisLockFactory.builder().standalone(URI).build()) {
      RedisDistributedLock lock = factory.getLock("x");
      assertThatThrownBy(() -> lock.tryLock(1, null))
          .isInstanceOf(NullPointerException.class)
          .hasMessageContaining("unit");
    }
  }

  @Test
  void unreachableRedisIsARedisLockExceptionNotFalse() {
    try (RedisLockFactory factory =
        RedisLockFactory.builder().standalone(URI).commandTimeout(Duration.ofMillis(200)).build()) {
      RedisDistributedLock lock = factory.getLock("x");
      assertThatThrownBy(lock::tryLock)
          .isInstanceOf(RedisLockException.class)
          .hasMessageContaining("'x'");
      assertThatThrownBy(() -> lock.tryLock(100, TimeUnit.MILLISECONDS))
          .isInstanceOf(RedisLockException.class);
    }
  }

  @Test
  void closeIsIdempotentAndLeavesACallersClientOpen() {
    try (RedisClient client = RedisClient.create("127.0.0.1", 1)) {
      RedisLockFactory factory = RedisLockFactory.builder().client(client).build();
      factory.close();
      factory.close();
      assertThat(client.getPool().isClosed()).isFalse();
    }
  }

  @Test
  void aNameWhoseKeyIsAnotherLocksCompanionKeyIsRefused() {
    try (RedisLockFactory factory = RedisLockFactory.builder().standalone(URI).build()) {
      assertThatThrownBy(() -> factory.getLock("{a}:lock-meta")) // lock a's fencing counter
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("{a}:lock-meta")
          .hasMessageContaining(":lock-");
      assertThat(factory.getLock("a:lock-1").getName()).isEqualTo("a:lock-1");
    }
    try (RedisLockFactory factory =
        RedisLockFactory.builder().standalone(URI).keyPrefix("{a}").build()) {
      assertThatThrownBy(() -> factory.getLock(":lock-meta"))
          .as("the key, prefix included, is what must not alias")
          .isInstanceOf(IllegalArgumentException.class);
    }
  }
}
