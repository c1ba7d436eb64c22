package io.github.redislock.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.redislock.RedisLockFactory;
import io.github.redislock.test.RedisLockExtension;
import io.github.redislock.test.ThrowawayRedis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** {@link RedisLockHealthIndicator} and the conditions of its auto-configuration. */
class RedisLockHealthIndicatorTest {
  @RegisterExtension static final RedisLockExtension redis = new RedisLockExtension();

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  RedisLockAutoConfiguration.class,
                  RedisLockHealthContributorAutoConfiguration.class));

  private ApplicationContextRunner onServer() {
    return runner.withPropertyValues("redis-lock.uri=" + redis.uri());
  }

  @Test
  void upWhileRedisAnswers(RedisLockFactory factory) {
    Health health = new RedisLockHealthIndicator(factory).health();
    assertThat(health.getStatus()).isEqualTo(Status.UP);
    assertThat(health.getDetails()).containsKeys("renewingHolds", "namesInUse");
  }

  @Test
  void downWithTheErrorOnceTheServerIsKilled() {
    ThrowawayRedis doomed = ThrowawayRedis.start();
    try (RedisLockFactory factory = RedisLockFactory.builder().standalone(doomed.uri()).build()) {
      RedisLockHealthIndicator indicator = new RedisLockHealthIndicator(factory);
      assertThat(indicator.health().getStatus()).isEqualTo(Status.UP);
      doomed.close();
      Health health = indicator.health();
      assertThat(health.getStatus()).isEqualTo(Status.DOWN);
      assertThat(health.getDetails()).containsKey("error");
      assertThat(health.getDetails().get("error").toString()).contains("RedisLockException");
    } finally {
      doomed.close();
    }
  }

  @Test
  void configuredWithTheFactory() {
    onServer()
        .run(
            context -> {
              assertThat(context).hasSingleBean(RedisLockHealthIndicator.class);
              assertThat(context).hasBean("redisLockHealthIndicator");
              assertThat(context.getBean(RedisLockHealthIndicator.class).health().getStatus())
                  .isEqualTo(Status.UP);
            });
  }

  @Test
  void configuredForAnApplicationsOwnFactory() {
    try (RedisLockFactory own = RedisLockFactory.builder().standalone(redis.uri()).build()) {
      runner
          .withPropertyValues("redis-lock.enabled=false")
          .withBean(RedisLockFactory.class, () -> own)
          .run(context -> assertThat(context).hasSingleBean(RedisLockHealthIndicator.class));
    }
  }

  @Test
  void notConfiguredWithoutAFactory() {
    runner
        .withPropertyValues("redis-lock.enabled=false")
        .run(context -> assertThat(context).doesNotHaveBean(RedisLockHealthIndicator.class));
  }

  @Test
  void notConfiguredWithTwoFactoriesAndNoPrimary() {
    try (RedisLockFactory one = RedisLockFactory.builder().standalone(redis.uri()).build();
        RedisLockFactory two = RedisLockFactory.builder().standalone(redis.uri()).build()) {
      runner
          .withBean("one", RedisLockFactory.class, () -> one)
          .withBean("two", RedisLockFactory.class, () -> two)
          .run(context -> assertThat(context).doesNotHaveBean(RedisLockHealthIndicator.class));
    }
  }

  @Test
  void disabledByManagementHealthProperty() {
    onServer()
        .withPropertyValues("management.health.redis-lock.enabled=false")
        .run(
            context -> {
              assertThat(context).hasSingleBean(RedisLockFactory.class);
              assertThat(context).doesNotHaveBean(RedisLockHealthIndicator.class);
            });
  }

  @Test
  void backsOffForAnApplicationsIndicator() {
    onServer()
        .withBean(
            "redisLockHealthIndicator", HealthIndicator.class, () -> () -> Health.up().build())
        .run(
            context -> {
              assertThat(context).doesNotHaveBean(RedisLockHealthIndicator.class);
              assertThat(context).hasBean("redisLockHealthIndicator");
            });
  }

  @Test
  void notConfiguredWithoutBootsHealthSupport() {
    onServer()
        .withClassLoader(new FilteredClassLoader(HealthIndicator.class))
        .run(
            context -> {
              assertThat(context).hasSingleBean(RedisLockFactory.class);
              assertThat(context).doesNotHaveBean("redisLockHealthIndicator");
            });
  }
}
