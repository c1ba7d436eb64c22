package io.github.redislock.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.redislock.RedisLockFactory;
import io.github.redislock.testing.IntegrationTest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/**
 * Redlock has no fair locks: a queue that orders waiters needs one copy that every waiter reaches,
 * and independent masters can see waiters in different orders (docs/fair.md). The factory says so
 * at once, and its plain locks keep working.
 */
@IntegrationTest
class RedlockFairLockTest {
  private static RedlockDeployment deployment;

  @BeforeAll
  static void start() {
    deployment = new RedlockDeployment(3);
  }

  @AfterAll
  static void stop() {
    deployment.close();
  }

  @Test
  void redlockRefusesFairLocksSayingWhyAndWritesNothing() throws InterruptedException {
    try (RedisLockFactory factory = deployment.builder().build()) {
      assertThatThrownBy(() -> factory.getFairLock("fair:redlock"))
          .isInstanceOf(UnsupportedOperationException.class)
          .hasMessageContaining("Redlock")
          .hasMessageContaining("order");
      assertThatThrownBy(() -> factory.getFairLock(null)).isInstanceOf(NullPointerException.class);

      var lock = factory.getLock("fair:redlock");
      lock.lock();
      lock.unlock();
    }
    for (Jedis jedis : deployment.rawAll()) {
      try (jedis) {
        assertThat(jedis.exists("{fair:redlock}:lock-fq", "{fair:redlock}:lock-ft")).isZero();
      }
    }
  }
}
