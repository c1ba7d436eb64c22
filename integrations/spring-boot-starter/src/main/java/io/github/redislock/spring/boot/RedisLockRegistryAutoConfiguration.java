package io.github.redislock.spring.boot;

import io.github.redislock.RedisLockFactory;
import io.github.redislock.spring.integration.RedisLockFactoryLockRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.integration.support.locks.LockRegistry;

/**
 * Auto-configures a Spring Integration {@link LockRegistry} over the context's {@link
 * RedisLockFactory}, a {@link RedisLockFactoryLockRegistry} named {@code redisLockRegistry}, when
 * Spring Integration is on the class path, the context has one {@code RedisLockFactory} (the
 * auto-configured one or the application's), and {@code redis-lock.lock-registry.enabled} is not
 * {@code false}. Backs off when the application defines a {@code LockRegistry} of its own.
 */
@AutoConfiguration(after = RedisLockAutoConfiguration.class)
@ConditionalOnClass({
  RedisLockFactory.class,
  LockRegistry.class,
  RedisLockFactoryLockRegistry.class
})
@ConditionalOnSingleCandidate(RedisLockFactory.class)
@ConditionalOnProperty(prefix = "redis-lock.lock-registry", name = "enabled", matchIfMissing = true)
@EnableConfigurationProperties(RedisLockProperties.class)
public class RedisLockRegistryAutoConfiguration {
  /** Created by Spring when the auto-configuration applies. */
  public RedisLockRegistryAutoConfiguration() {}

  /**
   * The registry.
   *
   * @param factory the context's factory
   * @param properties {@code redis-lock.lock-registry.*}
   * @return the registry of the factory's locks
   */
  @Bean
  @ConditionalOnMissingBean(LockRegistry.class)
  public RedisLockFactoryLockRegistry redisLockRegistry(
      RedisLockFactory factory, RedisLockProperties properties) {
    RedisLockProperties.LockRegistry settings = properties.getLockRegistry();
    String key = settings.getRegistryKey();
    RedisLockFactoryLockRegistry registry =
        key == null || key.isEmpty()
            ? new RedisLockFactoryLockRegistry(factory)
            : new RedisLockFactoryLockRegistry(factory, key);
    registry.setCacheCapacity(settings.getCacheCapacity());
    return registry;
  }
}
