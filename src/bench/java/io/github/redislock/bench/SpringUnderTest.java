package io.github.redislock.bench;

import java.net.URI;
import java.util.concurrent.locks.Lock;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.integration.redis.util.RedisLockRegistry;
import org.springframework.integration.redis.util.RedisLockRegistry.RedisLockType;

/**
 * Spring Integration's {@code RedisLockRegistry} with default settings on a default {@code
 * LettuceConnectionFactory} (Lettuce rather than Spring's Jedis factory, which is built for an
 * older Jedis than this project's). Its lock type is the default spin lock (a retry every 100 ms
 * while busy) or the pub/sub lock (woken by the release).
 */
final class SpringUnderTest implements LockUnderTest {
  private final LettuceConnectionFactory connections;
  private final RedisLockRegistry registry;

  SpringUnderTest(String uri, RedisLockType type) {
    URI address = URI.create(uri);
    connections =
        new LettuceConnectionFactory(
            new RedisStandaloneConfiguration(address.getHost(), address.getPort()));
    connections.afterPropertiesSet();
    connections.start();
    registry = new RedisLockRegistry(connections, "bench-spring");
    if (type != RedisLockType.SPIN_LOCK) {
      registry.setRedisLockType(type);
    }
  }

  @Override
  public Lock newLock(String name) {
    return registry.obtain(name);
  }

  @Override
  public void close() {
    registry.destroy();
    connections.destroy();
  }
}
