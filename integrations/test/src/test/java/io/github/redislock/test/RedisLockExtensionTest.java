package io.github.redislock.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.redislock.RedisDistributedLock;
import io.github.redislock.RedisLockFactory;
import java.time.Duration;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.Jedis;

/**
 * The extension hands tests a running server and factories on it, with its settings, and closes
 * each factory when its test ends.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RedisLockExtensionTest {
  @RegisterExtension
  static final RedisLockExtension redis =
      RedisLockExtension.withSettings(
          builder -> builder.keyPrefix("ext-test:").leaseTime(Duration.ofSeconds(5)));

  /** The factory the first test got, to check in the next one that it was closed. */
  private static RedisLockFactory handedToTheFirstTest;

  @Test
  @Order(1)
  void aTestGetsAFactoryWhoseLocksExcludeThoseOfAnotherFactory(
      RedisLockFactory factory, ThrowawayRedis server) {
    handedToTheFirstTest = factory;
    RedisDistributedLock lock = factory.getLock("job");
    lock.lock();
    try (RedisLockFactory other = redis.factory();
        Jedis jedis = server.jedis()) {
      assertThat(other.getLock("job").tryLock()).isFalse();
      assertThat(jedis.exists("ext-test:job")).as("the settings' key prefix").isTrue();
    } finally {
      lock.unlock();
    }
  }

  @Test
  @Order(2)
  void theFactoryOfAnEndedTestIsClosed() {
    assertThat(handedToTheFirstTest).isNotNull();
    assertThatThrownBy(() -> handedToTheFirstTest.getLock("job").lock())
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  @Order(3)
  void theServerIsTheTestsOwnAndAnswers(ThrowawayRedis server) {
    assertThat(server).isSameAs(redis.server());
    assertThat(server.uri()).isEqualTo("redis://127.0.0.1:" + server.port());
    try (Jedis jedis = server.jedis()) {
      jedis.set("some-key", "v");
      server.flushAll();
      assertThat(jedis.dbSize()).isZero();
    }
  }

  @Test
  @Order(4)
  void aServerStartedAloneEndsWhenClosed() {
    ThrowawayRedis alone = ThrowawayRedis.start();
    try (Jedis jedis = alone.jedis()) {
      assertThat(jedis.ping()).isEqualTo("PONG");
    }
    alone.close();
    assertThat(alone.isRunning()).isFalse();
    assertThatThrownBy(() -> alone.jedis().ping()).isInstanceOf(RuntimeException.class);
  }
}
