package io.github.redislock.jedis;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.redislock.RedisLockFactory;
import io.github.redislock.internal.jedis.JedisApi;
import io.github.redislock.testing.IntegrationTest;
import io.github.redislock.testing.RedisServer;
import java.time.Duration;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The library on the Jedis the tests run with: the one it is compiled against, or in the {@code
 * -Pjedis7} run another one put in its place ({@code -Djedis.test.version}). That run runs the
 * contract suite too; this class checks that the Jedis swapped in is the one meant, and that the
 * factory picks the clients that Jedis has.
 */
@IntegrationTest
class JedisVersionsTest {
  private RedisServer server;

  @BeforeEach
  void start() {
    server = RedisServer.start();
  }

  @AfterEach
  void stop() {
    server.close();
  }

  @Test
  void theJedisOnTheClassPathIsTheOneTheBuildMeant() {
    String expected = System.getProperty("redislock.test.jedisVersion");
    assertThat(expected).as("set by the Failsafe configuration").isNotBlank();
    assertThat(JedisApi.VERSION).isEqualTo(expected);
    assertThat(JedisApi.MODERN).isEqualTo(expected.startsWith("8."));
  }

  @Test
  void theFactoryBuildsItsClientsAndLocksOnIt() {
    try (RedisLockFactory factory =
        RedisLockFactory.builder()
            .standalone(server.uri())
            .commandTimeout(Duration.ofMillis(500))
            .build()) {
      Lock lock = factory.getLock("jedis-version");
      assertThat(lock.tryLock()).isTrue();
      try {
        assertThat(factory.inspect("jedis-version").isLocked()).isTrue();
      } finally {
        lock.unlock();
      }
      assertThat(factory.inspect("jedis-version").isLocked()).isFalse();
    }
  }
}
