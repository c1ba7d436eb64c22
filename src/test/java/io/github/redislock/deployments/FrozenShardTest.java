package io.github.redislock.deployments;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.redislock.LockLostEvent;
import io.github.redislock.RedisDistributedLock;
import io.github.redislock.RedisLockException;
import io.github.redislock.RedisLockFactory;
import io.github.redislock.testing.IntegrationTest;
import io.github.redislock.testing.RedisCluster;
import io.github.redislock.testing.RedisServer;
import io.github.redislock.testing.Timing;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/**
 * One master of a 3-master Redis Cluster frozen (SIGSTOP) while many threads try, with short
 * timeouts, locks whose slots it serves: a hold on a healthy master is renewed all along, as if
 * nothing happened elsewhere, and the frozen master's calls never take more threads than the bound
 * of one node.
 */
@IntegrationTest
class FrozenShardTest {
  private static final Duration LEASE = Timing.scaled(Duration.ofSeconds(3));

  /** The default command timeout, scaled with the lease and the callers' timeout. */
  private static final Duration COMMAND_TIMEOUT = Timing.scaled(Duration.ofSeconds(2));

  private static final Duration TRY_FOR = Timing.scaled(Duration.ofMillis(300));
  private static final int CALLERS = 24;

  /** How many renewals of the healthy hold the test waits for: several leases' worth. */
  private static final int RENEWALS = 7;

  private static RedisCluster cluster;
  private final List<RedisLockFactory> factories = new ArrayList<>();
  private final List<LockLostEvent> lost = new CopyOnWriteArrayList<>();
  private final AtomicBoolean stop = new AtomicBoolean();
  private ExecutorService callers;

  @BeforeAll
  static void startCluster() {
    cluster = RedisCluster.start();
    for (Jedis jedis : cluster.jedisAll()) {
      try (jedis) {
        // The healthy masters must not mark the frozen one failed (and stop serving their own
        // slots) while the test runs: that would be a cluster failure, not the factory's.
        jedis.configSet("cluster-node-timeout", "600000");
        jedis.configSet("cluster-require-full-coverage", "no");
      }
    }
  }

  @AfterAll
  static void stopCluster() {
    cluster.close();
  }

  @AfterEach
  void tearDown() throws InterruptedException {
    stop.set(true);
    cluster.masters().forEach(RedisServer::resume);
    if (callers != null) {
      callers.shutdownNow();
      assertThat(callers.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
    factories.forEach(RedisLockFactory::close);
  }

  private RedisLockFactory factory() {
    RedisLockFactory factory =
        RedisLockFactory.builder()
            .cluster(cluster.uri())
            .commandTimeout(COMMAND_TIMEOUT)
            .leaseTime(LEASE)
            .onLockLost(lost::add)
            .build();
    factories.add(factory);
    return factory;
  }

  /** {@code count} names whose slots {@code master} serves ({@code from}: any other master). */
  private static List<String> namesOn(RedisServer master, boolean on, String prefix, int count) {
    List<String> names = new ArrayList<>();
    for (int i = 0; names.size() < count; i++) {
      String name = prefix + i;
      if ((cluster.masterOf(name) == master) == on) {
        names.add(name);
      }
    }
    return names;
  }

  /** Every key of the test left on any master. */
  private static List<String> keysLeft(String prefix) {
    List<String> left = new ArrayList<>();
    for (Jedis jedis : cluster.jedisAll()) {
      try (jedis) {
        left.addAll(jedis.keys("*" + prefix + "*"));
      }
    }
    return left;
  }

  @Test
  void aFrozenMasterDelaysNoRenewalOfAHoldOnAnotherMaster() throws Exception {
    RedisServer frozen = cluster.masters().get(0);
    String prefix = "frozen-shard:";
    RedisLockFactory factory = factory();
    String heldName = namesOn(frozen, false, prefix + "held-", 1).get(0);
    RedisDistributedLock held = factory.getLock(heldName);
    held.lock();
    List<String> busyNames = namesOn(frozen, true, prefix + "busy-", CALLERS);

    AtomicInteger attempts = new AtomicInteger();
    AtomicInteger failures = new AtomicInteger();
    String frozenNode = frozen.host() + ":" + frozen.port();
    AtomicLong mostThreads = new AtomicLong();
    frozen.pause();
    callers = Executors.newFixedThreadPool(CALLERS);
    for (String name : busyNames) {
      RedisDistributedLock lock = factory.getLock(name);
      callers.execute(
          () -> {
            while (!stop.get()) {
              attempts.incrementAndGet();
              try {
                if (lock.tryLock(TRY_FOR.toMillis(), TimeUnit.MILLISECONDS)) {
                  lock.unlock();
                }
              } catch (RedisLockException e) {
                failures.incrementAndGet();
              } catch (InterruptedException e) {
                return;
              }
            }
          });
    }

    // The healthy key's expiry moves forward at each renewal: count the moves.
    AtomicLong lastPttl = new AtomicLong(Long.MAX_VALUE);
    AtomicInteger renewals = new AtomicInteger();
    try (Jedis healthy = cluster.jedisFor(heldName)) {
      await("several leases of renewals of the hold on a healthy master")
          .atMost(LEASE.multipliedBy(RENEWALS).plus(Timing.awaitAtMost()))
          .pollInterval(Duration.ofMillis(20))
          .failFast("the hold on a healthy master was lost", () -> !lost.isEmpty())
          .until(
              () -> {
                mostThreads.accumulateAndGet(factory.activity().threadsOf(frozenNode), Math::max);
                long pttl = healthy.pttl(heldName);
                if (pttl > lastPttl.getAndSet(pttl)) {
                  renewals.incrementAndGet();
                }
                return renewals.get() >= RENEWALS;
              });
    }
    assertThat(held.isHeldByCurrentThread()).isTrue();
    assertThat(attempts.get()).as("attempts on the frozen master").isGreaterThan(CALLERS);
    assertThat(failures.get()).as("attempts that found Redis unavailable").isPositive();

    frozen.resume();
    stop.set(true);
    callers.shutdown();
    assertThat(callers.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    held.unlock();
    assertThat(lost).isEmpty();
    assertThat(factory.activity().renewingHoldCount()).isZero();
    // Attempts the frozen master ran after it woke are cleaned up, or expire with their lease.
    await("no key of the test left")
        .atMost(LEASE.plus(Timing.awaitAtMost()))
        .until(() -> keysLeft(prefix).isEmpty());
    assertThat(mostThreads.get())
        .as("threads for the frozen master, %d callers waiting for it", CALLERS)
        .isPositive()
        .isLessThanOrEqualTo(RedisLockFactory.MAX_THREADS_PER_NODE);
  }
}
