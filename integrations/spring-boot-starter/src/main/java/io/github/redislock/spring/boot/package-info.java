/**
 * Spring Boot auto-configuration of redis-lock: a {@link io.github.redislock.RedisLockFactory} from
 * {@code spring.data.redis.*} and {@code redis-lock.*} ({@link
 * io.github.redislock.spring.boot.RedisLockAutoConfiguration}), and an Actuator health indicator
 * ({@link io.github.redislock.spring.boot.RedisLockHealthContributorAutoConfiguration}).
 */
package io.github.redislock.spring.boot;
