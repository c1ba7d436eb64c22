package io.github.redislock.examples;

import io.github.redislock.LockStats;
import io.github.redislock.LockStatsListener;
import io.github.redislock.RedisDistributedLock;
import io.github.redislock.RedisLockFactory;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;

/**
 * A factory's lock statistics in Micrometer, as a Spring Boot application would see them under
 * {@code /actuator/metrics}: counters read from {@code factory.stats()} (like Micrometer's binder
 * for Caffeine caches), and a wait-time timer per lock fed by a {@link LockStatsListener} as each
 * acquisition happens.
 *
 * <p>In a Spring Boot application, declare the {@link LockMetrics} as a {@code @Bean}: Boot binds
 * every {@code MeterBinder} bean to its registry.
 *
 * <p>Run: {@code mvn -q test-compile exec:java
 * -Dexec.mainClass=io.github.redislock.examples.MicrometerStats}. It uses the Redis named by {@code
 * -Dredis.url} or {@code REDIS_URL}, else starts its own.
 */
public final class MicrometerStats {

  /** Binds a factory's {@link LockStats} to a registry, as function counters polled on export. */
  public static final class LockMetrics implements MeterBinder {
    private final RedisLockFactory factory;

    /**
     * Metrics of {@code factory}, which must record statistics.
     *
     * @param factory the factory
     */
    public LockMetrics(RedisLockFactory factory) {
      this.factory = factory;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
      counter(registry, "redis.lock.acquisitions", LockStats::acquisitionCount, "acquisitions");
      counter(registry, "redis.lock.failures", LockStats::failureCount, "failed attempts");
      counter(registry, "redis.lock.timeouts", LockStats::timeoutCount, "timed-out attempts");
      counter(registry, "redis.lock.handoffs", LockStats::handoffCount, "local handoffs");
      counter(registry, "redis.lock.lost", LockStats::lostHoldCount, "holds lost");
      counter(registry, "redis.lock.redis.errors", LockStats::redisErrorCount, "Redis errors");
      counter(registry, "redis.lock.renewals", LockStats::renewalCount, "lease renewals");
    }

    private void counter(
        MeterRegistry registry, String name, ToDoubleFunction<LockStats> count, String what) {
      FunctionCounter.builder(name, factory, f -> count.applyAsDouble(f.stats()))
          .description("redis-lock: " + what)
          .register(registry);
    }
  }

  /** Pushes each acquisition's wait to a timer tagged with the lock's name. */
  static final class WaitTimer implements LockStatsListener {
    private final MeterRegistry registry;

    WaitTimer(MeterRegistry registry) {
      this.registry = registry;
    }

    @Override
    public void acquired(String lockName, long waitNanos, boolean handoff) {
      Timer.builder("redis.lock.wait")
          .tag("lock", lockName)
          .register(registry)
          .record(waitNanos, TimeUnit.NANOSECONDS);
    }
  }

  /**
   * What the registry showed.
   *
   * @param acquisitions the {@code redis.lock.acquisitions} counter
   * @param timed the acquisitions the {@code redis.lock.wait} timer recorded
   * @param statsAcquisitions what {@code factory.stats()} said
   */
  public record Result(double acquisitions, long timed, long statsAcquisitions) {}

  private MicrometerStats() {}

  /**
   * Four threads take one lock 25 times each; then the registry is read.
   *
   * @param redisUri the Redis to lock on
   * @return what the registry showed
   * @throws Exception if a step failed
   */
  public static Result run(String redisUri) throws Exception {
    MeterRegistry registry = new SimpleMeterRegistry();
    try (RedisLockFactory locks =
        RedisLockFactory.builder()
            .standalone(redisUri)
            .recordStats(new WaitTimer(registry))
            .build()) {
      new LockMetrics(locks).bindTo(registry);
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
      Timer waits = registry.get("redis.lock.wait").tag("lock", "examples-metered").timer();
      Result result =
          new Result(
              registry.get("redis.lock.acquisitions").functionCounter().count(),
              waits.count(),
              locks.stats().acquisitionCount());
      System.out.printf(
          "redis.lock.acquisitions %.0f, redis.lock.wait count %d, mean %.3f ms, max %.3f ms%n",
          result.acquisitions(),
          result.timed(),
          waits.mean(TimeUnit.MILLISECONDS),
          waits.max(TimeUnit.MILLISECONDS));
      return result;
    }
  }

  /**
   * Runs the example.
   *
   * @param args ignored
   * @throws Exception if it failed
   */
  public static void main(String[] args) throws Exception {
    boolean ok;
    try (ExampleRedis redis = ExampleRedis.locate()) {
      System.out.println("Redis: " + redis.describe());
      Result result = run(redis.uri());
      ok = result.acquisitions() == 100 && result.timed() == 100;
      System.out.println(ok ? "OK: 100 acquisitions in the registry" : "WRONG: " + result);
    }
    if (!ok) {
      System.exit(1);
    }
  }
}
