package io.github.redislock.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.redislock.LockStatsListener;
import io.github.redislock.RedisDistributedLock;
import io.github.redislock.RedisLockFactory;
import io.github.redislock.micrometer.RedisLockMetrics;
import io.github.redislock.test.RedisLockExtension;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The conditions of {@link RedisLockMetricsAutoConfiguration}, with Boot's own MeterRegistry
 * auto-configuration binding the binder, on a real redis-server.
 */
class RedisLockMetricsAutoConfigurationTest {
  @RegisterExtension static final RedisLockExtension redis = new RedisLockExtension();

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  MetricsAutoConfiguration.class,
                  CompositeMeterRegistryAutoConfiguration.class,
                  SimpleMetricsExportAutoConfiguration.class,
                  RedisLockAutoConfiguration.class,
                  RedisLockMetricsAutoConfiguration.class));

  private ApplicationContextRunner onServer() {
    return runner.withPropertyValues("redis-lock.uri=" + redis.uri());
  }

  @AfterEach
  void flush() {
    redis.server().flushAll();
  }

  private static void lockAndUnlock(RedisLockFactory factory, String name) {
    RedisDistributedLock lock = factory.getLock(name);
    assertThat(lock.tryLock()).isTrue();
    lock.unlock();
  }

  private static double acquired(MeterRegistry registry) {
    return registry.get("redis.lock.acquisitions").tag("result", "acquired").counter().count();
  }

  @Test
  void theFactorysEventsAndActivityReachBootsRegistry() {
    onServer()
        .run(
            context -> {
              assertThat(context).hasSingleBean(RedisLockMetrics.class);
              RedisLockFactory factory = context.getBean(RedisLockFactory.class);
              MeterRegistry registry = context.getBean(MeterRegistry.class);
              lockAndUnlock(factory, "jobs");
              assertThat(acquired(registry)).isEqualTo(1.0);
              assertThat(registry.get("redis.lock.holds.renewing").gauge().value()).isZero();
              // the listener makes the factory count, without redis-lock.record-stats
              assertThat(factory.stats().acquisitionCount()).isEqualTo(1);
            });
  }

  @Test
  void recordStatsAndTheBinderTogether() {
    onServer()
        .withPropertyValues("redis-lock.record-stats=true")
        .run(
            context -> {
              lockAndUnlock(context.getBean(RedisLockFactory.class), "both");
              assertThat(acquired(context.getBean(MeterRegistry.class))).isEqualTo(1.0);
            });
  }

  @Test
  void tagsAndPerNameTagsFromProperties() {
    onServer()
        .withPropertyValues(
            "redis-lock.metrics.tags.factory=orders", "redis-lock.metrics.per-name-tags=1")
        .run(
            context -> {
              RedisLockFactory factory = context.getBean(RedisLockFactory.class);
              MeterRegistry registry = context.getBean(MeterRegistry.class);
              lockAndUnlock(factory, "first");
              lockAndUnlock(factory, "second");
              assertThat(
                      registry
                          .get("redis.lock.acquisitions")
                          .tags("factory", "orders", "name", "first", "result", "acquired")
                          .counter()
                          .count())
                  .isEqualTo(1.0);
              assertThat(
                      registry
                          .get("redis.lock.acquisitions")
                          .tags("name", RedisLockMetrics.OTHER_NAMES, "result", "acquired")
                          .counter()
                          .count())
                  .isEqualTo(1.0);
            });
  }

  @Test
  void anApplicationListenerIsToldBesideTheBinder() {
    List<String> acquired = new CopyOnWriteArrayList<>();
    onServer()
        .withBean(
            "mine",
            LockStatsListener.class,
            () ->
                new LockStatsListener() {
                  @Override
                  public void acquired(String lockName, long waitNanos, boolean handoff) {
                    acquired.add(lockName);
                  }
                })
        .run(
            context -> {
              lockAndUnlock(context.getBean(RedisLockFactory.class), "shared");
              assertThat(acquired).containsExactly("shared");
              assertThat(acquired(context.getBean(MeterRegistry.class))).isEqualTo(1.0);
            });
  }

  @Test
  void activityGaugesForAnApplicationsOwnFactory() {
    try (RedisLockFactory own = RedisLockFactory.builder().standalone(redis.uri()).build()) {
      runner
          .withPropertyValues("redis-lock.enabled=false")
          .withBean(RedisLockFactory.class, () -> own)
          .run(
              context -> {
                assertThat(context).hasSingleBean(RedisLockMetrics.class);
                MeterRegistry registry = context.getBean(MeterRegistry.class);
                assertThat(registry.find("redis.lock.names.in.use").gauge()).isNotNull();
              });
    }
  }

  @Test
  void backsOffWholeForAnApplicationsBinder() {
    RedisLockMetrics mine = RedisLockMetrics.builder().build();
    onServer()
        .withBean("myMetrics", RedisLockMetrics.class, () -> mine)
        .run(
            context -> {
              assertThat(context.getBean(RedisLockMetrics.class)).isSameAs(mine);
              assertThat(context).doesNotHaveBean(LockStatsListener.class);
              assertThat(context).doesNotHaveBean("redisLockMetricsActivity");
            });
  }

  @Test
  void disabledByProperty() {
    onServer()
        .withPropertyValues("redis-lock.metrics.enabled=false")
        .run(
            context -> {
              assertThat(context).doesNotHaveBean(RedisLockMetrics.class);
              lockAndUnlock(context.getBean(RedisLockFactory.class), "quiet");
              assertThat(context.getBean(RedisLockFactory.class).stats().acquisitionCount())
                  .isZero();
            });
  }

  @Test
  void notConfiguredWithoutAFactory() {
    runner
        .withPropertyValues("redis-lock.enabled=false")
        .run(context -> assertThat(context).doesNotHaveBean(RedisLockMetrics.class));
  }

  @Test
  void notConfiguredWithoutMicrometer() {
    new ApplicationContextRunner()
        .withConfiguration(
            AutoConfigurations.of(
                RedisLockAutoConfiguration.class, RedisLockMetricsAutoConfiguration.class))
        .withPropertyValues("redis-lock.uri=" + redis.uri())
        .withClassLoader(new FilteredClassLoader(MeterBinder.class))
        .run(
            context -> {
              assertThat(context).hasSingleBean(RedisLockFactory.class);
              assertThat(context).doesNotHaveBean("redisLockMetrics");
              assertThat(context).doesNotHaveBean(LockStatsListener.class);
            });
  }
}
