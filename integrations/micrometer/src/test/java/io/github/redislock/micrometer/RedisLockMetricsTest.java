package io.github.redislock.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.github.redislock.LockLostException;
import io.github.redislock.RedisDistributedLock;
import io.github.redislock.RedisLockFactory;
import io.github.redislock.test.RedisLockExtension;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.search.Search;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.Jedis;

/**
 * The binder against a real {@code redis-server}: what a factory's locks did, as the registry shows
 * it.
 */
class RedisLockMetricsTest {
  private static final String PREFIX = "metrics-test:";

  @RegisterExtension static final RedisLockExtension redis = new RedisLockExtension();

  private final MeterRegistry registry = new SimpleMeterRegistry();
  private ExecutorService other;

  @BeforeEach
  void otherThread() {
    other = Executors.newSingleThreadExecutor();
  }

  @AfterEach
  void stopOtherThread() throws InterruptedException {
    other.shutdownNow();
    assertThat(other.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    redis.server().flushAll();
  }

  private RedisLockFactory factory(
      RedisLockMetrics metrics, UnaryOperator<RedisLockFactory.Builder> settings) {
    return settings
        .apply(
            RedisLockFactory.builder()
                .standalone(redis.uri())
                .keyPrefix(PREFIX)
                .recordStats(metrics.listener()))
        .build();
  }

  private double acquisitions(String result) {
    return registry.get("redis.lock.acquisitions").tag("result", result).counter().count();
  }

  private Timer waits(String result) {
    return registry.get("redis.lock.wait").tag("result", result).timer();
  }

  private double gauge(String name) {
    return registry.get(name).gauge().value();
  }

  private double counter(String name) {
    return registry.get(name).counter().count();
  }

  @Test
  void acquisitionsTimeoutsFailuresWaitsAndHoldsAreCounted() throws Exception {
    RedisLockMetrics metrics = RedisLockMetrics.builder().build();
    try (metrics;
        RedisLockFactory factory = factory(metrics, UnaryOperator.identity())) {
      metrics.activityOf(factory).bindTo(registry);
      assertThat(acquisitions("acquired")).as("registered at zero").isZero();

      RedisDistributedLock lock = factory.getLock("job");
      for (int i = 0; i < 3; i++) {
        lock.lock();
        lock.unlock();
      }
      lock.lock();
      try {
        assertThat(gauge("redis.lock.holds.renewing")).isEqualTo(1);
        assertThat(gauge("redis.lock.names.in.use")).isEqualTo(1);
        assertThat(other.submit(() -> lock.tryLock(50, TimeUnit.MILLISECONDS)).get()).isFalse();
        assertThat(other.submit(() -> lock.tryLock(50, TimeUnit.MILLISECONDS)).get()).isFalse();
        assertThat(other.submit(() -> lock.tryLock()).get()).isFalse();
        lock.lock(); // reentrant: not an acquisition
        lock.unlock();
      } finally {
        lock.unlock();
      }

      assertThat(acquisitions("acquired")).isEqualTo(4);
      assertThat(acquisitions("timeout")).isEqualTo(2);
      assertThat(acquisitions("failed")).isEqualTo(1);
      assertThat(waits("acquired").count()).isEqualTo(4);
      assertThat(waits("timeout").count()).isEqualTo(2);
      assertThat(waits("failed").count()).isEqualTo(1);
      assertThat(registry.get("redis.lock.hold").timer().count()).isEqualTo(4);
      assertThat(counter("redis.lock.holds.lost")).isZero();
      assertThat(counter("redis.lock.redis.errors")).isZero();
      assertThat(factory.stats().acquisitionCount()).isEqualTo(4);
      assertThat(factory.stats().timeoutCount()).isEqualTo(2);
      assertThat(factory.stats().failureCount()).isEqualTo(1);
      await().untilAsserted(() -> assertThat(gauge("redis.lock.holds.renewing")).isZero());
      assertThat(gauge("redis.lock.threads")).isGreaterThanOrEqualTo(0);
      assertThat(registry.get("redis.lock.turns.given").functionCounter().count()).isZero();
      assertThat(registry.get("redis.lock.wakeups.spurious").functionCounter().count()).isZero();
      assertThat(registry.getMeters())
          .as("no meter has a name tag by default")
          .allSatisfy(meter -> assertThat(meter.getId().getTag("name")).isNull());
    }
  }

  @Test
  void aHoldWhoseKeyIsDeletedIsCountedLostAfterItsRenewals() throws Exception {
    RedisLockMetrics metrics = RedisLockMetrics.builder().build();
    try (metrics;
        RedisLockFactory factory =
            factory(metrics, builder -> builder.leaseTime(Duration.ofMillis(300)));
        Jedis jedis = redis.server().jedis()) {
      metrics.bindTo(registry);
      RedisDistributedLock lock = factory.getLock("short-lease");
      lock.lock();
      await().untilAsserted(() -> assertThat(counter("redis.lock.renewals")).isPositive());
      assertThat(jedis.del(PREFIX + "short-lease")).as("the lock key deleted").isOne();

      await().untilAsserted(() -> assertThat(counter("redis.lock.holds.lost")).isOne());
      assertThatThrownBy(lock::unlock).isInstanceOf(LockLostException.class);
      assertThat(counter("redis.lock.holds.lost")).isOne();
      assertThat(factory.stats().lostHoldCount()).isOne();
    }
  }

  @Test
  void perNameTagsGiveTheFirstNamesTheirOwnTagAndFoldTheRest() {
    RedisLockMetrics metrics = RedisLockMetrics.builder().perNameTags(3).build();
    try (metrics;
        RedisLockFactory factory = factory(metrics, UnaryOperator.identity())) {
      metrics.bindTo(registry);
      for (int i = 0; i < 10; i++) {
        factory.getLock("order-" + i).runLocked(() -> {});
      }
      factory.getLock("order-1").runLocked(() -> {});

      Map<String, Double> byName = new TreeMap<>();
      for (Counter c :
          registry.find("redis.lock.acquisitions").tag("result", "acquired").counters()) {
        byName.put(c.getId().getTag("name"), c.count());
      }
      assertThat(byName)
          .containsExactlyEntriesOf(
              new TreeMap<>(Map.of("order-0", 1.0, "order-1", 2.0, "order-2", 1.0, "other", 7.0)));
      List<String> nameTags =
          registry.getMeters().stream()
              .filter(meter -> meter.getId().getName().startsWith("redis.lock."))
              .map(meter -> meter.getId().getTag("name"))
              .distinct()
              .sorted()
              .toList();
      assertThat(nameTags)
          .as("every pushed meter has one of 3 names or the fold")
          .containsExactly("order-0", "order-1", "order-2", "other");
      assertThat(registry.get("redis.lock.hold").tag("name", "other").timer().count()).isEqualTo(7);
    }
  }

  @Test
  void commonTagsAreOnEveryMeter() {
    RedisLockMetrics metrics = RedisLockMetrics.builder().tags("factory", "orders").build();
    try (metrics;
        RedisLockFactory factory = factory(metrics, UnaryOperator.identity())) {
      metrics.activityOf(factory).bindTo(registry);
      factory.getLock("job").runLocked(() -> {});

      assertThat(registry.getMeters()).hasSizeGreaterThan(10);
      assertThat(registry.getMeters())
          .allSatisfy(meter -> assertThat(meter.getId().getTag("factory")).isEqualTo("orders"));
      assertThat(
              registry
                  .get("redis.lock.acquisitions")
                  .tags("factory", "orders", "result", "acquired")
                  .counter()
                  .count())
          .isOne();
    }
  }

  @Test
  void eachRegistryBoundCountsOnceAndAnActivityGivenLaterReachesThemAll() {
    MeterRegistry second = new SimpleMeterRegistry();
    RedisLockMetrics metrics = RedisLockMetrics.builder().build();
    try (metrics;
        RedisLockFactory factory = factory(metrics, UnaryOperator.identity())) {
      metrics.bindTo(registry);
      metrics.bindTo(registry);
      metrics.bindTo(second);
      metrics.activityOf(factory);
      factory.getLock("job").runLocked(() -> {});

      assertThat(acquisitions("acquired")).isOne();
      assertThat(second.get("redis.lock.acquisitions").tag("result", "acquired").counter().count())
          .isOne();
      assertThat(second.get("redis.lock.names.in.use").gauge().value()).isZero();
      assertThat(gauge("redis.lock.names.in.use")).isZero();
      assertThatThrownBy(() -> metrics.activityOf(factory))
          .isInstanceOf(IllegalStateException.class);
    }
  }

  @Test
  void aClosedBinderLeavesNoMeterAndItsListenerNothingToFeed() {
    RedisLockMetrics metrics = RedisLockMetrics.builder().perNameTags(5).build();
    try (RedisLockFactory factory = factory(metrics, UnaryOperator.identity())) {
      metrics.activityOf(factory).bindTo(registry);
      factory.getLock("job").runLocked(() -> {});
      assertThat(redisLockMeters()).isNotEmpty();

      metrics.close();
      assertThat(redisLockMeters()).as("meters left after close").isEmpty();

      factory.getLock("job").runLocked(() -> {});
      factory.getLock("another").runLocked(() -> {});
      assertThat(redisLockMeters()).as("meters made by the listener after close").isEmpty();
      assertThat(factory.stats().acquisitionCount()).as("the factory still counts").isEqualTo(3);
      assertThatThrownBy(() -> metrics.bindTo(registry)).isInstanceOf(IllegalStateException.class);
      metrics.close();
    }
  }

  @Test
  void theListenerMakesNoMeterBeforeBinding() {
    RedisLockMetrics metrics = RedisLockMetrics.builder().perNameTags(1).build();
    try (metrics;
        RedisLockFactory factory = factory(metrics, UnaryOperator.identity())) {
      factory.getLock("before").runLocked(() -> {});
      metrics.bindTo(registry);
      assertThat(redisLockMeters()).isEmpty();

      factory.getLock("after").runLocked(() -> {});
      assertThat(
              registry
                  .get("redis.lock.acquisitions")
                  .tags("result", "acquired", "name", "after")
                  .counter()
                  .count())
          .as("a name seen before binding took no place")
          .isOne();
    }
  }

  @Test
  void theTestsRunOnTheMicrometerTheirExecutionNames() {
    // The build runs these tests twice: on the Micrometer compiled against, and on a newer one.
    String expected = System.getProperty("micrometer.expected");
    assumeTrue(expected != null, "run by Maven");
    assertThat(MeterRegistry.class.getPackage().getImplementationVersion()).isEqualTo(expected);
  }

  @Test
  void settingsAreChecked() {
    assertThatThrownBy(() -> RedisLockMetrics.builder().perNameTags(0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> RedisLockMetrics.builder().perNameTags(2).perNameTags(3))
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> RedisLockMetrics.builder().tags("odd"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> RedisLockMetrics.builder().build().bindTo(null))
        .isInstanceOf(NullPointerException.class);
  }

  private List<Meter> redisLockMeters() {
    return Search.in(registry).name(name -> name.startsWith("redis.lock.")).meters().stream()
        .toList();
  }
}
