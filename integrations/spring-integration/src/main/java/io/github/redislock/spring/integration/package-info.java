/**
 * Spring Integration on redis-lock: {@link
 * io.github.redislock.spring.integration.RedisLockFactoryLockRegistry}, a {@code LockRegistry}
 * whose locks are a {@link io.github.redislock.RedisLockFactory}'s, for leader election,
 * aggregators and every other user of Spring Integration's lock registries.
 */
package io.github.redislock.spring.integration;
