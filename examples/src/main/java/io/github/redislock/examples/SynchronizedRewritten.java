package io.github.redislock.examples;

import io.github.redislock.RedisLockFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.locks.Lock;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.UnifiedJedis;

/**
 * A {@code synchronized} method rewritten as {@code lock(); try { ... } finally { unlock(); }}.
 * {@code synchronized} excludes the threads of one JVM only; once the application runs in several
 * processes that share the stored value, the method needs a lock that all of them see.
 *
 * <p>Run: {@code mvn -q test-compile exec:java
 * -Dexec.mainClass=io.github.redislock.examples.SynchronizedRewritten}. It uses the Redis named by
 * {@code -Dredis.url} or {@code REDIS_URL}, else starts its own.
 */
public final class SynchronizedRewritten {

  /** Hands out consecutive invoice numbers; the last one issued is stored in Redis. */
  static final class InvoiceNumbers {
    private final UnifiedJedis store;
    private final String lastKey;
    private final Lock lock;

    InvoiceNumbers(UnifiedJedis store, String lastKey, Lock lock) {
      this.store = store;
      this.lastKey = lastKey;
      this.lock = lock;
    }

    // Before, correct in one JVM only:
    //
    //   synchronized String next() {
    //     String last = store.get(lastKey);
    //     long next = last == null ? 1 : Long.parseLong(last) + 1;
    //     store.set(lastKey, Long.toString(next));
    //     return String.format("INV-%06d", next);
    //   }
    //
    // After, correct in every process that uses the same lock name on the same Redis:
    String next() {
      lock.lock();
      try {
        String last = store.get(lastKey);
        long next = last == null ? 1 : Long.parseLong(last) + 1;
        store.set(lastKey, Long.toString(next));
        return String.format("INV-%06d", next);
      } finally {
        lock.unlock();
      }
    }
  }

  /**
   * What happened.
   *
   * @param issued the invoice numbers handed out
   * @param distinct how many of them were different
   * @param last the last number stored in Redis
   */
  public record Result(int issued, int distinct, long last) {}

  private SynchronizedRewritten() {}

  /**
   * Issues 100 invoice numbers on 4 threads.
   *
   * @param redisUri the Redis holding the lock and the last invoice number
   * @return what happened
   * @throws Exception if issuing failed
   */
  public static Result run(String redisUri) throws Exception {
    int threads = 4;
    int numbersPerThread = 25;
    String run = UUID.randomUUID().toString().substring(0, 8);
    String lastKey = "examples:invoice-last:" + run;
    try (RedisClient redis = RedisClient.create(redisUri);
        RedisLockFactory locks = RedisLockFactory.builder().client(redis).build()) {
      InvoiceNumbers invoices =
          new InvoiceNumbers(redis, lastKey, locks.getLock("examples:invoices:" + run));

      Set<String> seen = ConcurrentHashMap.newKeySet();
      ExecutorService pool = Executors.newFixedThreadPool(threads);
      List<Future<Integer>> issuedByThread = new ArrayList<>();
      try {
        for (int t = 0; t < threads; t++) {
          issuedByThread.add(
              pool.submit(
                  () -> {
                    for (int i = 0; i < numbersPerThread; i++) {
                      seen.add(invoices.next());
                    }
                    return numbersPerThread;
                  }));
        }
        int issued = 0;
        for (Future<Integer> f : issuedByThread) {
          issued += f.get();
        }
        Result result = new Result(issued, seen.size(), Long.parseLong(redis.get(lastKey)));
        System.out.printf(
            "%d threads issued %d invoice numbers, %d distinct, INV-000001 to" + " INV-%06d%n",
            threads, result.issued(), result.distinct(), result.last());
        return result;
      } finally {
        pool.shutdown();
        redis.del(lastKey);
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
      ok = result.distinct() == result.issued() && result.last() == result.issued();
      System.out.println(ok ? "OK: no number issued twice, none skipped" : "WRONG: " + result);
    }
    if (!ok) {
      System.exit(1);
    }
  }
}
