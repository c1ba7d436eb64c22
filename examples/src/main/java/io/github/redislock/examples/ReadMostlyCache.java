package io.github.redislock.examples;

import io.github.redislock.RedisLockFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReadWriteLock;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.UnifiedJedis;

/**
 * A read-mostly cache written with {@code new ReentrantReadWriteLock()}, in the manner of the
 * {@code CachedData} example of its Javadoc, switched to a distributed read-write lock by changing
 * one line. The cached report now lives in Redis, shared by every process: many readers read it at
 * once; when it is missing, one of them, under the write lock, rebuilds it (an expensive load, done
 * once however many readers found it missing), then downgrades to the read lock to use it.
 *
 * <p>Run: {@code mvn -q test-compile exec:java
 * -Dexec.mainClass=io.github.redislock.examples.ReadMostlyCache}. It uses the Redis named by {@code
 * -Dredis.url} or {@code REDIS_URL}, else starts its own.
 */
public final class ReadMostlyCache {
  private static final int PARTS = 4;

  /** A report cached in Redis, built in parts: a reader must never see parts of two versions. */
  static final class CachedReport {
    private final ReadWriteLock rw;
    private final UnifiedJedis store;
    private final String reportKey;
    private final String loadsKey;

    CachedReport(RedisLockFactory locks, UnifiedJedis store, String run) {
      // Before: this.rw = new ReentrantReadWriteLock();
      this.rw = locks.getReadWriteLock("examples:report-lock:" + run);
      this.store = store;
      this.reportKey = "examples:report:" + run;
      this.loadsKey = "examples:report-loads:" + run;
    }

    /** Reads the report, building it first if it is missing; whether its parts were consistent. */
    boolean read() {
      rw.readLock().lock();
      if (!store.exists(reportKey)) {
        // Must release the read lock before acquiring the write lock (an upgrade is refused).
        rw.readLock().unlock();
        rw.writeLock().lock();
        try {
          // Recheck: another reader, in any process, may have rebuilt it in between.
          if (!store.exists(reportKey)) {
            load();
          }
          // Downgrade by acquiring the read lock before releasing the write lock.
          rw.readLock().lock();
        } finally {
          rw.writeLock().unlock(); // unlock write, still hold read
        }
      }
      try {
        return consistent(store.hmget(reportKey, partNames()));
      } finally {
        rw.readLock().unlock();
      }
    }

    /** The data behind the report changed: the next reader rebuilds it. */
    void invalidate() {
      rw.writeLock().lock();
      try {
        store.del(reportKey);
      } finally {
        rw.writeLock().unlock();
      }
    }

    /** The expensive load: counted, and written part by part. */
    private void load() {
      long version = store.incr(loadsKey);
      for (int part = 0; part < PARTS; part++) {
        store.hset(reportKey, "part" + part, "v" + version);
      }
    }

    long loads() {
      String loads = store.get(loadsKey);
      return loads == null ? 0 : Long.parseLong(loads);
    }

    void clear() {
      store.del(reportKey, loadsKey);
    }

    private static String[] partNames() {
      String[] names = new String[PARTS];
      for (int part = 0; part < PARTS; part++) {
        names[part] = "part" + part;
      }
      return names;
    }

    private static boolean consistent(List<String> parts) {
      return parts.stream().distinct().count() == 1 && parts.get(0) != null;
    }
  }

  /**
   * What happened.
   *
   * @param reads the reports read
   * @param inconsistent the reads that saw parts of two versions (or a missing part)
   * @param invalidations how often the report was invalidated
   * @param loads how often it was rebuilt, in every process
   */
  public record Result(int reads, int inconsistent, int invalidations, long loads) {}

  private ReadMostlyCache() {}

  /**
   * Two factories (two processes, as it were) with 3 reading threads each read the report 30 times
   * per thread; one thread invalidates it every tenth read.
   *
   * @param redisUri the Redis holding the locks and the cache
   * @return what happened
   * @throws Exception if reading failed
   */
  public static Result run(String redisUri) throws Exception {
    int processes = 2;
    int threadsPerProcess = 3;
    int readsPerThread = 30;
    String run = UUID.randomUUID().toString().substring(0, 8);
    AtomicInteger inconsistent = new AtomicInteger();
    AtomicInteger invalidations = new AtomicInteger();
    List<RedisLockFactory> factories = new ArrayList<>();
    ExecutorService pool = Executors.newFixedThreadPool(processes * threadsPerProcess);
    try (RedisClient redis = RedisClient.create(redisUri)) {
      List<CachedReport> caches = new ArrayList<>();
      for (int p = 0; p < processes; p++) {
        RedisLockFactory locks = RedisLockFactory.builder().client(redis).build();
        factories.add(locks);
        caches.add(new CachedReport(locks, redis, run));
      }
      try {
        List<Future<?>> readers = new ArrayList<>();
        for (int t = 0; t < processes * threadsPerProcess; t++) {
          CachedReport cache = caches.get(t % processes);
          boolean invalidates = t == 0;
          readers.add(
              pool.submit(
                  () -> {
                    for (int i = 0; i < readsPerThread; i++) {
                      if (invalidates && i % 10 == 9) {
                        cache.invalidate();
                        invalidations.incrementAndGet();
                      }
                      if (!cache.read()) {
                        inconsistent.incrementAndGet();
                      }
                    }
                    return null;
                  }));
        }
        for (Future<?> reader : readers) {
          reader.get();
        }
        Result result =
            new Result(
                processes * threadsPerProcess * readsPerThread,
                inconsistent.get(),
                invalidations.get(),
                caches.get(0).loads());
        System.out.printf(
            "%d threads in %d processes read the cached report %d times (%d inconsistent);"
                + " invalidated %d times, rebuilt %d times%n",
            processes * threadsPerProcess,
            processes,
            result.reads(),
            result.inconsistent(),
            result.invalidations(),
            result.loads());
        return result;
      } finally {
        pool.shutdown();
        caches.get(0).clear();
        factories.forEach(RedisLockFactory::close);
      }
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
      ok = result.inconsistent() == 0 && result.loads() == result.invalidations() + 1;
      System.out.println(
          ok ? "OK: every read consistent, one rebuild per invalidation" : "WRONG: " + result);
    }
    if (!ok) {
      System.exit(1);
    }
  }
}
