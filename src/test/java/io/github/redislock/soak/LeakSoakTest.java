package io.github.redislock.soak;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.redislock.RedisLockFactory;
import io.github.redislock.testing.IntegrationTest;
import io.github.redislock.testing.RedisServer;
import io.github.redislock.testing.Timing;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A small leak soak (see {@link LeakSoak}; the long one is {@code mvn -q -Psoak test-compile
 * exec:java}): 1,000 factory lifecycles and 5,000 lock objects over 500 names, with two of each
 * fault, must leave no thread, descriptor, connection, subscription, key without TTL, name state or
 * heap behind. Keys with a TTL are not awaited here (fencing counters live a minute after their
 * lock's last use); the long soak waits for them.
 */
@IntegrationTest
class LeakSoakTest {
  private static final LeakSoak.Tolerance CLOSED = new LeakSoak.Tolerance(8 * 1024 * 1024, 0, 0, 0);

  /** Short, so that the faults (a pause, a restart delayed by longer than the lease) are too. */
  private static final Duration LEASE = Duration.ofSeconds(1);

  private RedisServer server;

  @BeforeEach
  void startServer() {
    server = RedisServer.start();
  }

  @AfterEach
  void stopServer() {
    server.close();
  }

  @Test
  void factoriesLocksAndFaultsLeaveNothingBehind() {
    LeakSoak.Sizes sizes = LeakSoak.Sizes.of(1_000, 5_000, 500, 4, 3).withLease(LEASE);
    LeakSoak soak = new LeakSoak(server, sizes, line -> {});
    warmUp(soak);
    Resources baseline = LeakSoak.baseline(server, Timing.scaled(Duration.ofSeconds(30)));

    soak.factoryLifecycles(sizes.factories(), sizes.faultsPerPhase());
    List<RedisLockFactory> factories = List.of(soak.newFactory(), soak.newFactory());
    List<String> kept;
    try {
      soak.lockObjects(factories, sizes.locks(), sizes.names(), sizes.faultsPerPhase());
      kept = LeakSoak.awaitFactoriesIdle(factories, Timing.scaled(Duration.ofSeconds(10)));
    } finally {
      factories.forEach(RedisLockFactory::close);
    }
    Resources after =
        LeakSoak.settle(server, baseline, CLOSED, false, Timing.scaled(Duration.ofSeconds(30)));

    List<String> failed = new ArrayList<>();
    for (LeakSoak.Row row : LeakSoak.compare(baseline, after, CLOSED, false)) {
      if (!row.ok()) {
        failed.add(row.resource() + ": " + row.baseline() + " -> " + row.now());
      }
    }
    assertThat(kept).as("state the long-lived factories keep").isEmpty();
    assertThat(failed)
        .as(
            "resources not back at their baseline (%s)",
            failed.isEmpty() ? "" : afterCollection(baseline))
        .isEmpty();
    assertThat(soak.unexpected()).as("unexpected exceptions").isEmpty();
    assertThat(after.longestTtlMillis()).isLessThanOrEqualTo(Duration.ofMinutes(1).toMillis());
  }

  /**
   * For a failure's report: what is still above the baseline once the garbage is collected and its
   * cleaners had a second. A descriptor that goes then was dropped without being closed; one that
   * stays is still referenced.
   */
  private String afterCollection(Resources baseline) {
    Resources.collectGarbage();
    LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(1)); // for the cleaners: a report, no check
    Resources now = Resources.measure(server).withHeap(Resources.collectGarbage());
    List<String> still = new ArrayList<>();
    for (LeakSoak.Row row : LeakSoak.compare(baseline, now, CLOSED, false)) {
      if (!row.ok()) {
        still.add(row.resource() + ": " + row.baseline() + " -> " + row.now());
      }
    }
    return "after a garbage collection: " + (still.isEmpty() ? "all back" : still);
  }

  /** Loads every code path once (each kind, each fault), so that the baseline includes it. */
  private static void warmUp(LeakSoak soak) {
    soak.factoryLifecycles(40, 0);
    for (LeakSoak.Fault fault : LeakSoak.Fault.values()) {
      soak.inject(fault);
    }
    soak.factoryLifecycles(40, 0);
  }
}
