package io.github.redislock.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.redislock.RedisLockFactory;
import io.github.redislock.spring.integration.RedisLockFactoryLockRegistry;
import io.github.redislock.test.RedisLockExtension;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.integration.support.locks.DefaultLockRegistry;
import org.springframework.integration.support.locks.LockRegistry;
import redis.clients.jedis.Jedis;

/** The conditions of {@link RedisLockRegistryAutoConfiguration}, on a real redis-server. */
class RedisLockRegistryAutoConfigurationTest {
  @RegisterExtension static final RedisLockExtension redis = new RedisLockExtension();

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  RedisLockAutoConfiguration.class, RedisLockRegistryAutoConfiguration.class));

  private ApplicationContextRunner onServer() {
    return runner.withPropertyValues("redis-lock.uri=" + redis.uri());
  }

  @AfterEach
  void flush() {
    redis.server().flushAll();
  }

  @Test
  void aRegistryOfTheFactorysLocks() {
    onServer()
        .withPropertyValues("redis-lock.key-prefix=app:")
        .run(
            context -> {
              assertThat(context).hasSingleBean(LockRegistry.class);
              assertThat(context).hasBean("redisLockRegistry");
              Lock lock = context.getBean(LockRegistry.class).obtain("group-1");
              assertThat(lock.tryLock()).isTrue();
              try (Jedis jedis = redis.server().jedis()) {
                assertThat(jedis.exists("app:group-1")).isTrue();
              }
              lock.unlock();
            });
  }

  @Test
  void registryKeyAndCacheCapacity() {
    onServer()
        .withPropertyValues(
            "redis-lock.lock-registry.registry-key=orders",
            "redis-lock.lock-registry.cache-capacity=1")
        .run(
            context -> {
              LockRegistry<?> registry = context.getBean(LockRegistry.class);
              Lock lock = registry.obtain("42");
              assertThat(lock.tryLock()).isTrue();
              try (Jedis jedis = redis.server().jedis()) {
                assertThat(jedis.exists("orders:42")).isTrue();
              }
              lock.unlock();
              // capacity 1: obtaining another key drops the unused lock of this one
              registry.obtain("43");
              assertThat(registry.obtain("42")).isNotSameAs(lock);
            });
  }

  @Test
  void onAnApplicationsOwnFactory() {
    try (RedisLockFactory own = RedisLockFactory.builder().standalone(redis.uri()).build()) {
      runner
          .withPropertyValues("redis-lock.enabled=false")
          .withBean(RedisLockFactory.class, () -> own)
          .run(context -> assertThat(context).hasSingleBean(RedisLockFactoryLockRegistry.class));
    }
  }

  @Test
  void backsOffForAnApplicationsLockRegistry() {
    onServer()
        .withBean("myRegistry", LockRegistry.class, DefaultLockRegistry::new)
        .run(
            context -> {
              assertThat(context).hasSingleBean(LockRegistry.class);
              assertThat(context).doesNotHaveBean(RedisLockFactoryLockRegistry.class);
            });
  }

  @Test
  void disabledByProperty() {
    onServer()
        .withPropertyValues("redis-lock.lock-registry.enabled=false")
        .run(context -> assertThat(context).doesNotHaveBean(LockRegistry.class));
  }

  @Test
  void notConfiguredWithoutAFactory() {
    runner
        .withPropertyValues("redis-lock.enabled=false")
        .run(context -> assertThat(context).doesNotHaveBean(LockRegistry.class));
  }

  @Test
  void notConfiguredWithoutSpringIntegration() {
    onServer()
        .withClassLoader(new FilteredClassLoader(LockRegistry.class))
        .run(
            context -> {
              assertThat(context).hasSingleBean(RedisLockFactory.class);
              assertThat(context).doesNotHaveBean("redisLockRegistry");
            });
  }
}
