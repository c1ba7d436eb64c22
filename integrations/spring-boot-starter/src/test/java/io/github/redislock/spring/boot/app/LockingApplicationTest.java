package io.github.redislock.spring.boot.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.redislock.RedisLockFactory;
import io.github.redislock.spring.boot.RedisLockHealthIndicator;
import io.github.redislock.spring.integration.RedisLockFactoryLockRegistry;
import io.github.redislock.test.ThrowawayRedis;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.health.registry.HealthContributorRegistry;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.integration.support.locks.LockRegistry;
import redis.clients.jedis.Jedis;

/**
 * One real Boot application, started with {@code SpringApplication} against a redis-server, on the
 * versions Boot's dependency management gives it (the module imports spring-boot-dependencies): the
 * auto-configuration from the jar's imports file, the factory from {@code spring.data.redis.*}, the
 * health contributor in Actuator's registry, the factory closed with the application.
 */
class LockingApplicationTest {
  @Test
  void startsLocksReportsHealthAndClosesTheFactory() {
    RedisLockFactory factory;
    try (ThrowawayRedis redis = ThrowawayRedis.start();
        ConfigurableApplicationContext app =
            new SpringApplicationBuilder(LockingApplication.class)
                .web(WebApplicationType.NONE)
                .properties(
                    "spring.data.redis.host=" + redis.host(),
                    "spring.data.redis.port=" + redis.port(),
                    "redis-lock.key-prefix=app:",
                    "redis-lock.describe-holders=true")
                .run()) {
      factory = app.getBean(RedisLockFactory.class);
      assertThat(app.getBean(LockingApplication.NightlyJob.class).runOnce()).isTrue();
      try (Jedis jedis = redis.jedis()) {
        assertThat(jedis.keys("*nightly-job*")).isNotEmpty(); // its fencing counter stays
      }
      // Micrometer and Boot's metrics are on this class path: the binder is bound and counted
      assertThat(
              app.getBean(MeterRegistry.class)
                  .get("redis.lock.acquisitions")
                  .tag("result", "acquired")
                  .counter()
                  .count())
          .isEqualTo(1.0);
      // Spring Integration is on this class path: the registry is there too
      assertThat(app.getBean(LockRegistry.class)).isInstanceOf(RedisLockFactoryLockRegistry.class);
      HealthContributorRegistry registry = app.getBean(HealthContributorRegistry.class);
      assertThat(registry.getContributor("redisLock")).isInstanceOf(RedisLockHealthIndicator.class);
      assertThat(((HealthIndicator) registry.getContributor("redisLock")).health().getStatus())
          .isEqualTo(Status.UP);
    }
    assertThat(factory.activity().renewingHoldCount()).isZero();
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> factory.getLock("after"))
        .isInstanceOf(IllegalStateException.class);
  }

  /**
   * The Jedis on the test class path is the one Boot's BOM manages, jedis.version not overridden:
   * 7.0.0 on Boot 4.0.7; Maven passes the expected version (7.4.1 with {@code
   * -Dspring-boot.version=4.1.2 -Dexpected.jedis.version=7.4.1}).
   */
  @Test
  void runsOnTheJedisVersionTheBuildExpects() throws IOException {
    Properties jedis = new Properties();
    try (InputStream in = Jedis.class.getResourceAsStream("/redis/clients/jedis/pom.properties")) {
      assertThat(in).isNotNull();
      jedis.load(in);
    }
    assertThat(jedis.getProperty("version"))
        .isEqualTo(System.getProperty("expected.jedis.version"));
  }
}
