package io.github.redislock.concurrency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.redislock.RedisDistributedLock;
import io.github.redislock.RedisLockFactory;
import io.github.redislock.testing.IntegrationTest;
import io.github.redislock.testing.RedisInvariants;
import io.github.redislock.testing.RedisServerExtension;
import io.github.redislock.testing.Timing;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.Jedis;

/**
 * Many threads of one JVM on one name: they queue in the JVM and the Redis hold passes between them
 * (a local handoff), and still exactly one holds the lock at a time, and every holder's fencing
 * token is greater than the previous holder's.
 */
@IntegrationTest
class LocalQueueTest {
  @RegisterExtension static final RedisServerExtension redis = new RedisServerExtension();
  private RedisLockFactory factory;
  private ExecutorService threads;
  private String name;

  @BeforeEach
  void setUp(TestInfo info) {
    name = "queue:" + info.getTestMethod().orElseThrow().getName();
    factory = RedisLockFactory.builder().standalone(redis.server().uri()).build();
    threads = Executors.newCachedThreadPool();
  }

  @AfterEach
  void tearDown() throws InterruptedException {
    RedisInvariants.closeAfterTest(redis.server(), threads, List.of(factory), name);
  }

  private long acquisitionsInRedis() {
    try (Jedis jedis = redis.server().jedis()) {
      String stats = jedis.info("commandstats");
      long calls = 0;
      for (String line : stats.lines().toList()) {
        if (line.startsWith("cmdstat_set:")) { // one SET NX PX per acquisition, in the script
          String rest = line.substring(line.indexOf("calls=") + 6);
          calls += Long.parseLong(rest.substring(0, rest.indexOf(',')));
        }
      }
      return calls;
    }
  }

  @Test
  void aFactoryAloneOnANameDoesNotGiveWayToItsOwnSubscription() throws Exception {
    // A foreign holder makes this factory's first waiter subscribe. The subscription outlives the
    // wait (it lingers), and must not count as another process waiting at this factory's
    // releases: giving way to nobody would stall every release for the yield.
    RedisDistributedLock foreign;
    try (RedisLockFactory other =
        RedisLockFactory.builder().standalone(redis.server().uri()).build()) {
      foreign = other.getLock(name);
      foreign.lock();
      CountDownLatch go = new CountDownLatch(1);
      List<Future<?>> workers = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        RedisDistributedLock lock = factory.getLock(name);
        workers.add(
            threads.submit(
                () -> {
                  go.await();
                  for (int i = 0; i < 40; i++) {
                    lock.lock();
                    lock.unlock();
                  }
                  return null;
                }));
      }
      go.countDown();
      String channel = "{" + name + "}:lock-wake";
      try (Jedis jedis = redis.server().jedis()) { // Redis counts this factory's subscription
        await()
            .atMost(Timing.awaitAtMost())
            .until(() -> jedis.pubsubNumSub(channel).getOrDefault(channel, 0L) == 1);
      }
      foreign.unlock();
      for (Future<?> worker : workers) {
        worker.get(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS);
      }
      assertThat(other.activity().turnsGivenCount())
          .as("the foreign holder saw this one wait")
          .isEqualTo(1);
    }
    assertThat(factory.activity().turnsGivenCount()).as("turns given to nobody").isZero();
  }

  @Test
  void eightThreadsExcludeEachOtherAndTokensKeepIncreasing() throws Exception {
    int perThread = 150;
    AtomicInteger inside = new AtomicInteger();
    AtomicInteger overlaps = new AtomicInteger();
    int[] counter = {0}; // guarded by the lock alone
    List<Long> tokens = new ArrayList<>(); // guarded by the lock alone
    CountDownLatch go = new CountDownLatch(1);
    long redisBefore = acquisitionsInRedis();
    List<Future<?>> workers = new ArrayList<>();
    for (int t = 0; t < 8; t++) {
      RedisDistributedLock lock = factory.getLock(name);
      workers.add(
          threads.submit(
              () -> {
                go.await();
                for (int i = 0; i < perThread; i++) {
                  lock.lock();
                  try {
                    if (inside.incrementAndGet() != 1) {
                      overlaps.incrementAndGet();
                    }
                    counter[0]++;
                    tokens.add(lock.getFencingToken());
                    inside.decrementAndGet();
                  } finally {
                    lock.unlock();
                  }
                }
                return null;
              }));
    }
    go.countDown();
    for (Future<?> worker : workers) {
      worker.get(Timing.awaitAtMost().toMillis() * 6, TimeUnit.MILLISECONDS);
    }
    long inRedis = acquisitionsInRedis() - redisBefore;
    assertThat(overlaps.get()).isZero();
    assertThat(counter[0]).isEqualTo(8 * perThread);
    assertThat(tokens).hasSize(8 * perThread).isSorted().doesNotHaveDuplicates();
    // Threads queued behind a holder got the lock from it, not from Redis.
    assertThat(inRedis).isLessThan(8L * perThread);
  }

  @Test
  void waitersThatGiveUpNeverLeaveTheLockHeld() throws Exception {
    AtomicInteger inside = new AtomicInteger();
    AtomicInteger overlaps = new AtomicInteger();
    AtomicInteger acquired = new AtomicInteger();
    List<Future<?>> workers = new ArrayList<>();
    for (int t = 0; t < 8; t++) {
      RedisDistributedLock lock = factory.getLock(name);
      workers.add(
          threads.submit(
              () -> {
                for (int i = 0; i < 100; i++) {
                  // Timeouts so short that waiters often leave the queue while a holder hands off.
                  if (lock.tryLock(
                      ThreadLocalRandom.current().nextInt(0, 300), TimeUnit.MICROSECONDS)) {
                    try {
                      acquired.incrementAndGet();
                      if (inside.incrementAndGet() != 1) {
                        overlaps.incrementAndGet();
                      }
                      Thread.onSpinWait();
                      inside.decrementAndGet();
                    } finally {
                      lock.unlock();
                    }
                  }
                }
                return null;
              }));
    }
    for (Future<?> worker : workers) {
      worker.get(Timing.awaitAtMost().toMillis() * 6, TimeUnit.MILLISECONDS);
    }
    assertThat(overlaps.get()).isZero();
    assertThat(acquired.get()).isPositive();
    // tearDown checks that no key, renewal or subscription is left behind.
  }
}
