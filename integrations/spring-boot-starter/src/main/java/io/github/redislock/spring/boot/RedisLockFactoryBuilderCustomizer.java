package io.github.redislock.spring.boot;

import io.github.redislock.RedisLockFactory;

/**
 * Customizes the builder of the auto-configured {@link RedisLockFactory} after the properties were
 * applied: for what properties cannot say, such as {@link RedisLockFactory.Builder#onLockLost} or
 * {@link RedisLockFactory.Builder#recordStats(io.github.redislock.LockStatsListener)}. Every bean
 * of this type is applied, in {@link org.springframework.core.annotation.Order} order.
 *
 * <p>The builder takes each setting once: a customizer that sets one the properties already set (a
 * lease, a key prefix, statistics...) makes the factory's creation fail with {@link
 * IllegalStateException}.
 */
@FunctionalInterface
public interface RedisLockFactoryBuilderCustomizer {
  /**
   * Customizes the builder.
   *
   * @param builder the builder, its endpoint and properties set
   */
  void customize(RedisLockFactory.Builder builder);
}
