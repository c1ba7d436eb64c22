package io.github.redislock.bench;

import io.github.redislock.testing.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Lock;
import java.util.function.IntFunction;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/**
 * What stays in Redis after many distinct names were locked and unlocked once each: keys left, keys
 * without a TTL (which would live forever), and the change of {@code used_memory} (less client
 * buffers, which come and go with connections). Runs on fresh servers with a fresh instance of the
 * implementation, the names spread over N threads; the instance first locks one name per thread
 * (connections open, scripts loaded), then the keyspace is flushed and the baseline taken.
 */
final class RedisFootprint {
  private static final Duration GRACE = Duration.ofMinutes(5);
  private static final Duration SETTLE = Duration.ofSeconds(1);

  /**
   * The result for one implementation, summed over its servers.
   *
   * @param impl the implementation
   * @param names distinct names locked and unlocked
   * @param seconds time taken
   * @param keysLeft keys present afterwards
   * @param keysWithoutTtl of those, keys with no expiry
   * @param memoryDelta {@code used_memory - mem_clients_normal} afterwards minus before, in bytes
   * @param note remarks, empty when none
   */
  record Result(
      Implementation impl,
      int names,
      double seconds,
      long keysLeft,
      long keysWithoutTtl,
      long memoryDelta,
      String note) {}

  private RedisFootprint() {}

  static Result measure(Implementation impl, BenchSettings settings) throws InterruptedException {
    try (LocalRedis redis = LocalRedis.start(impl.nodes());
        LockUnderTest locks = impl.create(redis.uris(), settings)) {
      int threads = settings.threads();
      // Open the connections and load the scripts first, then start from an empty keyspace, so
      // that the memory change is what the names leave behind.
      String note = run(locks, threads, i -> "bench:warm:" + i, threads);
      redis.flushAll();
      Thread.sleep(SETTLE.toMillis());
      long memoryBefore = usedMemory(redis.servers());
      int names = settings.names();
      long start = System.nanoTime();
      note = (note + " " + run(locks, threads, i -> "bench:names:" + i, names)).trim();
      double seconds = (System.nanoTime() - start) / 1e9;
      // Redis shrinks emptied hash tables in its cron (every 100 ms)
      Thread.sleep(settings.quick() ? SETTLE.toMillis() / 4 : SETTLE.toMillis());
      long keys = 0;
      long withoutTtl = 0;
      for (RedisServer server : redis.servers()) {
        try (Jedis jedis = server.jedis()) {
          keys += jedis.dbSize();
          withoutTtl += countWithoutTtl(jedis);
        }
      }
      return new Result(
          impl, names, seconds, keys, withoutTtl, usedMemory(redis.servers()) - memoryBefore, note);
    }
  }

  /**
   * Locks and unlocks {@code count} names over {@code threads} threads, waiting for them at most
   * the grace period.
   *
   * @return an empty string, or what went wrong
   */
  private static String run(LockUnderTest locks, int threads, IntFunction<String> nameOf, int count)
      throws InterruptedException {
    AtomicLong done = new AtomicLong();
    AtomicReference<String> error = new AtomicReference<>("");
    List<Thread> workers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int first = t;
      Thread worker =
          new Thread(
              () -> {
                try {
                  for (int i = first; i < count; i += threads) {
                    Lock lock = locks.newLock(nameOf.apply(i));
                    lock.lock();
                    lock.unlock();
                    done.incrementAndGet();
                  }
                } catch (RuntimeException e) {
                  error.compareAndSet("", e.toString());
                }
              },
              "bench-names-" + t);
      worker.setDaemon(true);
      worker.start();
      workers.add(worker);
    }
    long end = System.nanoTime() + GRACE.toNanos();
    for (Thread worker : workers) {
      worker.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(end - System.nanoTime())));
    }
    String note = error.get();
    if (done.get() < count) {
      note = (note + " only " + done.get() + " of " + count + " done").trim();
    }
    return note;
  }

  /** {@code used_memory} without the client buffers ({@code mem_clients_normal}), which vary. */
  private static long usedMemory(List<RedisServer> servers) {
    long total = 0;
    for (RedisServer server : servers) {
      try (Jedis jedis = server.jedis()) {
        String memory = jedis.info("memory");
        total +=
            RedisInfo.number(memory, "used_memory")
                - RedisInfo.number(memory, "mem_clients_normal");
      }
    }
    return total;
  }

  private static long countWithoutTtl(Jedis jedis) {
    long count = 0;
    String cursor = ScanParams.SCAN_POINTER_START;
    ScanParams params = new ScanParams().count(1000);
    do {
      ScanResult<String> page = jedis.scan(cursor, params);
      List<Response<Long>> ttls = new ArrayList<>();
      try (Pipeline pipeline = jedis.pipelined()) {
        page.getResult().forEach(key -> ttls.add(pipeline.pttl(key)));
        pipeline.sync();
      }
      for (Response<Long> ttl : ttls) {
        if (ttl.get() == -1) {
          count++;
        }
      }
      cursor = page.getCursor();
    } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
    return count;
  }
}
