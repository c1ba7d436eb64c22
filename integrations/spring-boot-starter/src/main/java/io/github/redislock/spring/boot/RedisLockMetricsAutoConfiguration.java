package io.github.redislock.spring.boot;

import io.github.redislock.LockStatsListener;
import io.github.redislock.RedisLockFactory;
import io.github.redislock.micrometer.RedisLockMetrics;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.ArrayList;
import java.util.List;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configures the Micrometer binding of the context's {@link RedisLockFactory}: a {@link
 * RedisLockMetrics} {@link MeterBinder} (bean {@code redisLockMetrics}, which Boot binds to every
 * {@code MeterRegistry} and closes with the context), when Micrometer is on the class path, the
 * context has one {@code RedisLockFactory}, and {@code redis-lock.metrics.enabled} is not {@code
 * false}. Backs off, whole, when the application defines a {@code RedisLockMetrics} of its own.
 *
 * <p>The binder's {@linkplain RedisLockMetrics#listener() listener} is a {@link LockStatsListener}
 * bean ({@code redisLockMetricsListener}), which {@link RedisLockAutoConfiguration} gives to the
 * factory it builds, so that the factory counts its statistics and the binder's counters and timers
 * move. The activity gauges are added once the context's singletons exist, for the factory of the
 * context, whoever built it; an application that builds its own factory gives it the listener bean
 * itself ({@code recordStats(listener)}) to get the counters and timers too.
 */
@AutoConfiguration(after = RedisLockAutoConfiguration.class)
@ConditionalOnClass({RedisLockFactory.class, MeterBinder.class, RedisLockMetrics.class})
@ConditionalOnSingleCandidate(RedisLockFactory.class)
@ConditionalOnProperty(prefix = "redis-lock.metrics", name = "enabled", matchIfMissing = true)
@ConditionalOnMissingBean(RedisLockMetrics.class)
@EnableConfigurationProperties(RedisLockProperties.class)
public class RedisLockMetricsAutoConfiguration {
  /** Created by Spring when the auto-configuration applies. */
  public RedisLockMetricsAutoConfiguration() {}

  /**
   * The binder.
   *
   * @param properties {@code redis-lock.metrics.*}
   * @return the binder, closed with the context
   */
  @Bean
  public RedisLockMetrics redisLockMetrics(RedisLockProperties properties) {
    RedisLockProperties.Metrics settings = properties.getMetrics();
    RedisLockMetrics.Builder builder = RedisLockMetrics.builder();
    if (settings.getPerNameTags() > 0) {
      builder.perNameTags(settings.getPerNameTags());
    }
    if (!settings.getTags().isEmpty()) {
      List<String> keyValues = new ArrayList<>();
      settings
          .getTags()
          .forEach(
              (key, value) -> {
                keyValues.add(key);
                keyValues.add(value);
              });
      builder.tags(keyValues.toArray(String[]::new));
    }
    return builder.build();
  }

  /**
   * The binder's listener, for the factory's builder.
   *
   * @param metrics the binder
   * @return its listener
   */
  @Bean
  public LockStatsListener redisLockMetricsListener(RedisLockMetrics metrics) {
    return metrics.listener();
  }

  /**
   * Adds the activity gauges of the context's factory, once the singletons exist.
   *
   * @param metrics the binder
   * @param factory the context's factory
   * @return the step
   */
  @Bean
  public SmartInitializingSingleton redisLockMetricsActivity(
      RedisLockMetrics metrics, ObjectProvider<RedisLockFactory> factory) {
    return () -> factory.ifUnique(metrics::activityOf);
  }
}
