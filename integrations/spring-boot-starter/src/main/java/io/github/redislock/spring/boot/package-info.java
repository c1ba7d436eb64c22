/**
 * Spring Boot auto-configuration of redis-lock: a {@link io.github.redislock.RedisLockFactory} from
 * {@code spring.data.redis.*} and {@code redis-lock.*} ({@link
 * io.github.redislock.spring.boot.RedisLockAutoConfiguration}); with Spring Integration, a {@code
 * LockRegistry} ({@link io.github.redislock.spring.boot.RedisLockRegistryAutoConfiguration}); with
 * Micrometer, a {@code MeterBinder} ({@link
 * io.github.redislock.spring.boot.RedisLockMetricsAutoConfiguration}); with Boot's health support,
 * a health indicator ({@link
 * io.github.redislock.spring.boot.RedisLockHealthContributorAutoConfiguration}). Each backs off
 * when the application defines its own bean. See {@code docs/spring-boot.md}.
 */
package io.github.redislock.spring.boot;
