package io.github.redislock.spring.boot;

import io.github.redislock.RedisLockFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configures a {@link RedisLockHealthIndicator}, the health contributor {@code redisLock},
 * when Boot's health support is present (Actuator brings it), the context has one {@link
 * RedisLockFactory} (the auto-configured one or the application's), and {@code
 * management.health.redis-lock.enabled} is not {@code false}. Backs off when the application
 * defines a bean named {@code redisLockHealthIndicator} or {@code redisLockHealthContributor}, or
 * of type {@link RedisLockHealthIndicator}.
 */
@AutoConfiguration(after = RedisLockAutoConfiguration.class)
@ConditionalOnClass({
  RedisLockFactory.class,
  HealthIndicator.class,
  ConditionalOnEnabledHealthIndicator.class
})
@ConditionalOnSingleCandidate(RedisLockFactory.class)
@ConditionalOnEnabledHealthIndicator("redis-lock")
public class RedisLockHealthContributorAutoConfiguration {
  /** Created by Spring when the auto-configuration applies. */
  public RedisLockHealthContributorAutoConfiguration() {}

  /**
   * The health indicator.
   *
   * @param factory the context's factory
   * @return the indicator of its Redis
   */
  @Bean
  @ConditionalOnMissingBean(
      name = {"redisLockHealthIndicator", "redisLockHealthContributor"},
      value = RedisLockHealthIndicator.class)
  public RedisLockHealthIndicator redisLockHealthIndicator(RedisLockFactory factory) {
    return new RedisLockHealthIndicator(factory);
  }
}
