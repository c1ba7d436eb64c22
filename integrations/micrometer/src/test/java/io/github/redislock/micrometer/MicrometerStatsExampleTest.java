package io.github.redislock.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.redislock.RedisDistributedLock;
import io.github.redislock.RedisLockFactory;
import io.github.redislock.test.RedisLockExtension;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The example of docs/around-the-lock.md (it replaces the core's hand-written {@code
 * MicrometerStats} example): a factory's statistics in a registry through {@link RedisLockMetrics},
 * as a Spring Boot application would see them under {@code /actuator/metrics}. In a Spring Boot
 * application, the binder is a {@code @Bean}: Boot binds every {@code MeterBinder} bean to its
 * registry, and closes it with the context.
 */
class MicrometerStatsExampleTest {
  @RegisterExtension static final RedisLockExtension redis = new RedisLockExtension();

  @Test
  void fourThreadsTakingALock25TimesEachShow100AcquisitionsInTheRegistry() throws Exception {
    MeterRegistry registry = new SimpleMeterRegistry();
    try (RedisLockMetrics metrics = RedisLockMetrics.builder().perNameTags(20).build();
        RedisLockFactory locks =
            RedisLockFactory.builder()
                .standalone(redis.uri())
                .recordStats(metrics.listener())
                .build()) {
      metrics.activityOf(locks).bindTo(registry);

      RedisDistributedLock lock = locks.getLock("examples-metered");
      ExecutorService pool = Executors.newFixedThreadPool(4);
      try {
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
          done.add(
              pool.submit(
                  () -> {
                    for (int i = 0; i < 25; i++) {
                      lock.runLocked(() -> {});
                    }
                  }));
        }
        for (Future<?> f : done) {
          f.get();
        }
      } finally {
        pool.shutdown();
      }

      double acquisitions =
          registry
              .get("redis.lock.acquisitions")
              .tags("name", "examples-metered", "result", "acquired")
              .counter()
              .count();
      Timer waits =
          registry
              .get("redis.lock.wait")
              .tags("name", "examples-metered", "result", "acquired")
              .timer();
      assertThat(acquisitions).isEqualTo(100);
      assertThat(waits.count()).isEqualTo(100);
      double handoffs =
          registry.get("redis.lock.handoffs").tag("name", "examples-metered").counter().count();
      assertThat(registry.get("redis.lock.hold").tag("name", "examples-metered").timer().count())
          .as("holds in Redis: a hold handed between threads of this JVM is released once")
          .isEqualTo((long) (100 - handoffs));
      assertThat(locks.stats().acquisitionCount()).isEqualTo(100);
    }
  }
}
