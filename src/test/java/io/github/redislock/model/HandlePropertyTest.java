package io.github.redislock.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.redislock.LockHandle;
import io.github.redislock.RedisLock;
import io.github.redislock.RedisLockFactory;
import io.github.redislock.testing.IntegrationTest;
import io.github.redislock.testing.RedisCluster;
import io.github.redislock.testing.RedisServer;
import io.github.redislock.testing.Timing;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/**
 * Seeded random sequences of the thread-free forms, checked against what they promise: handles
 * acquired in every form (asynchronous, timed, blocking, one attempt, with and without a lease
 * given per call), on plain, fair, read and write locks of names chosen to alias under a careless
 * key layout ({@code h}, {@code {h}}, {@code h}}), used on one pool's threads and released on
 * another's (by {@code release}, {@code close} or {@code releaseAfter}), some acquisitions
 * cancelled at a random moment, by several factories at once. The checks: no two exclusive holders
 * of a name at once, and no reader beside a writer (counters entered and left by the critical
 * sections); the fencing tokens of a name's exclusive holds strictly increase; every future ends; a
 * cancelled acquisition leaves no hold behind; no hold is reported lost; afterwards no key is left
 * but the fencing counters, and no hold, channel or timer is left in any factory.
 *
 * <p>Each run prints its seed ({@code -Dredislock.test.seed} replays the operations each thread
 * chooses; the interleaving is the machine's); {@code redislock.handles.seconds} sets the length
 * per deployment (default 3).
 */
@IntegrationTest
class HandlePropertyTest {
  private static final long SEED =
      Long.getLong("redislock.test.seed", ThreadLocalRandom.current().nextLong());
  private static final int SECONDS = Integer.getInteger("redislock.handles.seconds", 3);
  private static final int FACTORIES = 2;
  private static final int WORKERS = 3;
  private static final List<String> NAMES = List.of("h", "{h}", "h}");

  @Test
  void standalone() {
    try (RedisServer server = RedisServer.start()) {
      run(
          "standalone",
          1,
          false,
          () -> RedisLockFactory.builder().standalone(server.uri()),
          List.of(server));
    }
  }

  @Test
  void cluster() {
    try (RedisCluster cluster = RedisCluster.start()) {
      run(
          "cluster",
          2,
          false,
          () -> RedisLockFactory.builder().cluster(cluster.uri()),
          cluster.masters());
    }
  }

  @Test
  void redlock() {
    List<RedisServer> servers = new ArrayList<>();
    try {
      for (int i = 0; i < 3; i++) {
        servers.add(RedisServer.start());
      }
      String[] uris = servers.stream().map(RedisServer::uri).toArray(String[]::new);
      run("redlock", 3, true, () -> RedisLockFactory.builder().redlock(uris), servers);
    } finally {
      servers.forEach(RedisServer::close);
    }
  }

  /** What one name's critical sections record. */
  private static final class Occupancy {
    final AtomicInteger writers = new AtomicInteger();
    final AtomicInteger readers = new AtomicInteger();
    final AtomicLong lastToken = new AtomicLong();
  }

  private void run(
      String deployment,
      int salt,
      boolean redlock,
      Supplier<RedisLockFactory.Builder> builders,
      List<RedisServer> servers) {
    long seed = SEED + salt;
    System.out.println("HandlePropertyTest." + deployment + ": seed " + SEED);
    List<String> violations = new CopyOnWriteArrayList<>();
    Map<String, Occupancy> names = new ConcurrentHashMap<>();
    NAMES.forEach(
        n -> {
          names.put("p:" + n, new Occupancy());
          names.put("rw:" + n, new Occupancy());
        });
    AtomicBoolean stop = new AtomicBoolean();
    ExecutorService work = Executors.newFixedThreadPool(3);
    ExecutorService release = Executors.newFixedThreadPool(2);
    List<RedisLockFactory> factories = new ArrayList<>();
    List<Thread> workers = new ArrayList<>();
    AtomicLong sections = new AtomicLong();
    AtomicLong cancels = new AtomicLong();
    try {
      for (int f = 0; f < FACTORIES; f++) {
        factories.add(
            builders
                .get()
                .leaseTime(Timing.scaled(Duration.ofSeconds(2)))
                .onLockLost(e -> violations.add("lost " + e.lockName() + ": " + e.reason()))
                .build());
      }
      for (int w = 0; w < FACTORIES * WORKERS; w++) {
        RedisLockFactory factory = factories.get(w % FACTORIES);
        SplittableRandom random = new SplittableRandom(seed * 31 + w);
        Thread worker =
            new Thread(
                () -> {
                  while (!stop.get()) {
                    try {
                      step(factory, redlock, random, names, work, release, violations, cancels);
                      sections.incrementAndGet();
                    } catch (RuntimeException | Error e) {
                      violations.add("unexpected " + e);
                    }
                  }
                },
                "handle-worker-" + w);
        workers.add(worker);
        worker.start();
      }
      await()
          .pollDelay(Duration.ofSeconds(SECONDS))
          .atMost(Duration.ofSeconds(SECONDS + 1))
          .until(() -> true);
      stop.set(true);
      for (Thread worker : workers) {
        worker.join(TimeUnit.SECONDS.toMillis(30));
        assertThat(worker.isAlive()).as("a worker is stuck: seed " + SEED).isFalse();
      }
      for (RedisLockFactory factory : factories) {
        await()
            .atMost(Timing.awaitAtMost())
            .untilAsserted(
                () -> {
                  assertThat(factory.activity().renewingHoldCount())
                      .as("holds left: %s, seed %d", factory.activity(), SEED)
                      .isZero();
                  assertThat(factory.activity().subscribedChannelCount())
                      .as("channels left: %s, seed %d", factory.activity(), SEED)
                      .isZero();
                });
      }
      // releaseAfter keeps a lock a moment: then nothing but the fencing counters stays.
      await()
          .atMost(Timing.awaitAtMost())
          .untilAsserted(
              () -> assertThat(keysLeft(servers)).as("keys left: seed " + SEED).isEmpty());
      System.out.printf(
          "HandlePropertyTest.%s: %d sections, %d cancels, %d violations%n",
          deployment, sections.get(), cancels.get(), violations.size());
      assertThat(violations).as("violations, seed " + SEED).isEmpty();
      assertThat(sections.get()).isPositive();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    } finally {
      stop.set(true);
      factories.forEach(RedisLockFactory::close);
      work.shutdownNow();
      release.shutdownNow();
    }
  }

  /** One acquisition, its critical section on a pool thread, and its release on another. */
  private static void step(
      RedisLockFactory factory,
      boolean redlock,
      SplittableRandom random,
      Map<String, Occupancy> names,
      ExecutorService work,
      ExecutorService release,
      List<String> violations,
      AtomicLong cancels) {
    String name = NAMES.get(random.nextInt(NAMES.size()));
    int kind = redlock ? 0 : random.nextInt(4); // plain, fair, read, write
    RedisLock lock =
        switch (kind) {
          case 0 -> factory.getLock("p:" + name);
          case 1 -> factory.getFairLock("p:" + name); // the same key as the plain lock
          case 2 -> factory.getReadWriteLock("rw:" + name).readLock();
          default -> factory.getReadWriteLock("rw:" + name).writeLock();
        };
    Occupancy occupancy = names.get((kind < 2 ? "p:" : "rw:") + name);
    Duration lease = random.nextInt(3) == 0 ? Duration.ofSeconds(30) : null;
    Duration wait = Duration.ofMillis(random.nextInt(300));
    CompletableFuture<Optional<LockHandle>> acquisition;
    switch (random.nextInt(4)) {
      case 0 ->
          acquisition =
              lease == null
                  ? lock.tryAcquireHoldAsync(wait)
                  : lock.tryAcquireHoldAsync(wait, lease);
      case 1 -> acquisition = CompletableFuture.completedFuture(lock.tryAcquireHold());
      case 2 -> {
        try {
          acquisition =
              CompletableFuture.completedFuture(
                  lease == null ? lock.tryAcquireHold(wait) : lock.tryAcquireHold(wait, lease));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
      default -> {
        CompletableFuture<LockHandle> pending =
            lease == null ? lock.acquireHoldAsync() : lock.acquireHoldAsync(lease);
        // Cancelled at a random moment, racing the grant.
        await().pollDelay(Duration.ofMillis(random.nextInt(40))).until(() -> true);
        if (pending.cancel(false)) {
          cancels.incrementAndGet();
          return;
        }
        acquisition = pending.thenApply(Optional::of);
      }
    }
    Optional<LockHandle> got;
    try {
      got = acquisition.get(30, TimeUnit.SECONDS);
    } catch (CancellationException e) {
      return;
    } catch (Exception e) {
      violations.add("acquisition of " + lock.getName() + " failed: " + e);
      return;
    }
    if (got.isEmpty()) {
      return;
    }
    LockHandle handle = got.get();
    boolean exclusive = kind != 2;
    int releaseHow = random.nextInt(3);
    CompletableFuture<LockHandle> section =
        CompletableFuture.supplyAsync(
            () -> {
              enter(occupancy, exclusive, handle, violations);
              Thread.onSpinWait();
              leave(occupancy, exclusive);
              return handle;
            },
            work);
    CompletableFuture<Void> released =
        section.thenAcceptAsync(
            h -> {
              if (!h.isHeld()) {
                violations.add("a held handle of " + h.name() + " says it is not held");
              }
              switch (releaseHow) {
                case 0 -> h.release();
                case 1 -> h.close();
                default -> h.releaseAfter(Duration.ofMillis(20));
              }
              if (h.isHeld()) {
                violations.add("a released handle of " + h.name() + " says it is held");
              }
            },
            release);
    try {
      released.get(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      violations.add("section or release of " + handle.name() + " failed: " + e);
    }
  }

  private static void enter(
      Occupancy occupancy, boolean exclusive, LockHandle handle, List<String> violations) {
    if (exclusive) {
      if (occupancy.writers.incrementAndGet() != 1 || occupancy.readers.get() != 0) {
        violations.add("two holders of " + handle.name() + " at once");
      }
      long token = handle.fencingToken();
      long last = occupancy.lastToken.getAndSet(token);
      if (token <= last) {
        violations.add("fencing token " + token + " of " + handle.name() + " after " + last);
      }
    } else {
      occupancy.readers.incrementAndGet();
      if (occupancy.writers.get() != 0) {
        violations.add("a reader beside a writer of " + handle.name());
      }
    }
  }

  private static void leave(Occupancy occupancy, boolean exclusive) {
    if (exclusive) {
      occupancy.writers.decrementAndGet();
    } else {
      occupancy.readers.decrementAndGet();
    }
  }

  /**
   * The keys left on the servers, but the fencing counters, which outlive their use on purpose, and
   * the read shares of a name whose every share has lapsed: a share kept by {@code releaseAfter}
   * stays until its time passes, and its set until the set's own lease (the longest share's) ends
   * or the next reader or writer of the name clears it.
   */
  private static List<String> keysLeft(List<RedisServer> servers) {
    List<String> left = new ArrayList<>();
    for (RedisServer server : servers) {
      try (Jedis jedis = server.jedis()) {
        List<String> time = jedis.time();
        double now = Long.parseLong(time.get(0)) * 1000.0 + Long.parseLong(time.get(1)) / 1000.0;
        for (String key : jedis.keys("*")) {
          boolean lapsedShares =
              key.endsWith(":lock-rs")
                  && jedis.pttl(key) > 0
                  && jedis.zcount(key, now, Double.POSITIVE_INFINITY) == 0;
          if (!lapsedShares && !(key.endsWith(":lock-meta") && jedis.pttl(key) > 0)) {
            String type = jedis.type(key);
            left.add(
                key
                    + " ("
                    + type
                    + ", pttl "
                    + jedis.pttl(key)
                    + (type.equals("zset") ? ", " + jedis.zrangeWithScores(key, 0, -1) : "")
                    + ")");
          }
        }
      }
    }
    return left;
  }
}
