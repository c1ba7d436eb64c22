package io.github.redislock.examples;

import io.github.redislock.RedisLockFactory;
import io.github.redislock.testing.JvmProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.UnifiedJedis;

/**
 * The bounded buffer of {@link Condition}'s own Javadoc, shared by several JVMs: producers in some
 * processes put items, consumers in others take them, and each waits on a condition of one
 * distributed lock ({@code notFull}, {@code notEmpty}) until another process signals it. The class
 * is the JDK's, with two changes: the lock comes from a {@link RedisLockFactory}, and the items
 * live in a Redis list (the buffer is shared by processes, so its contents must be too).
 *
 * <p>Run: {@code mvn -q test-compile exec:java
 * -Dexec.mainClass=io.github.redislock.examples.BoundedBufferAcrossProcesses}. It starts two
 * producer JVMs and two consumer JVMs on a buffer of 4 and checks that every item was taken exactly
 * once. It uses the Redis named by {@code -Dredis.url} or {@code REDIS_URL}, else starts its own.
 */
public final class BoundedBufferAcrossProcesses {
  private static final int CAPACITY = 4;
  private static final int PRODUCERS = 2;
  private static final int CONSUMERS = 2;
  private static final int ITEMS_PER_PRODUCER = 25;
  private static final Duration WORKER_TIMEOUT = Duration.ofMinutes(2);

  /** {@code Condition}'s example, across processes. */
  static final class BoundedBuffer {
    final Lock lock;
    final Condition notFull;
    final Condition notEmpty;
    final UnifiedJedis redis;
    final String items;
    final int capacity;

    BoundedBuffer(RedisLockFactory locks, UnifiedJedis redis, String name, int capacity) {
      this.lock = locks.getLock(name); // was: new ReentrantLock()
      this.notFull = lock.newCondition(); // the first condition of the lock in every process
      this.notEmpty = lock.newCondition(); // and the second
      this.redis = redis;
      this.items = name + ":items"; // was: new Object[100]
      this.capacity = capacity;
    }

    void put(String x) throws InterruptedException {
      lock.lock();
      try {
        while (redis.llen(items) == capacity) {
          notFull.await();
        }
        redis.rpush(items, x);
        notEmpty.signal();
      } finally {
        lock.unlock();
      }
    }

    String take() throws InterruptedException {
      lock.lock();
      try {
        while (redis.llen(items) == 0) {
          notEmpty.await();
        }
        String x = redis.lpop(items);
        notFull.signal();
        return x;
      } finally {
        lock.unlock();
      }
    }
  }

  /**
   * What happened.
   *
   * @param produced the items the producers put
   * @param taken the items the consumers took
   * @param distinct the distinct items taken
   * @param left the items left in the buffer
   */
  public record Result(int produced, int taken, int distinct, long left) {}

  private BoundedBufferAcrossProcesses() {}

  /**
   * Runs two producer JVMs and two consumer JVMs on one buffer.
   *
   * @param redisUri the Redis to use
   * @return what happened
   * @throws Exception if a worker failed
   */
  public static Result run(String redisUri) throws Exception {
    String name = "buffer:" + UUID.randomUUID().toString().substring(0, 8);
    int produced = PRODUCERS * ITEMS_PER_PRODUCER;
    int perConsumer = produced / CONSUMERS;
    List<JvmProcess> workers = new ArrayList<>();
    try (RedisClient redis = RedisClient.create(redisUri)) {
      redis.ping(); // fail here, not in every worker, when Redis is unreachable
      try {
        for (int c = 0; c < CONSUMERS; c++) {
          workers.add(worker("take", redisUri, name, perConsumer));
        }
        for (int p = 0; p < PRODUCERS; p++) {
          workers.add(worker("put", redisUri, name, ITEMS_PER_PRODUCER));
        }
        Map<String, Integer> taken = new HashMap<>();
        for (JvmProcess worker : workers) {
          if (!worker.waitFor(WORKER_TIMEOUT) || worker.exitValue() != 0) {
            throw new IllegalStateException(worker + " failed:\n" + worker.output());
          }
          worker
              .output()
              .lines()
              .filter(line -> line.startsWith("took "))
              .forEach(line -> taken.merge(line.substring(5), 1, Integer::sum));
        }
        int total = taken.values().stream().mapToInt(Integer::intValue).sum();
        Result result = new Result(produced, total, taken.size(), redis.llen(name + ":items"));
        System.out.printf(
            "%d producer JVMs put %d items through a buffer of %d; %d consumer JVMs took %d,"
                + " %d distinct; %d left%n",
            PRODUCERS, produced, CAPACITY, CONSUMERS, total, result.distinct(), result.left());
        return result;
      } finally {
        workers.forEach(JvmProcess::close);
        redis.del(name + ":items");
      }
    }
  }

  private static JvmProcess worker(String role, String redisUri, String name, int count) {
    return JvmProcess.start(
        BoundedBufferAcrossProcesses.class,
        List.of("-Xmx64m", "-XX:TieredStopAtLevel=1"),
        role,
        redisUri,
        name,
        Integer.toString(count));
  }

  /** A worker JVM: {@code put|take <redisUri> <name> <count>}. */
  private static void work(String role, String redisUri, String name, int count)
      throws InterruptedException {
    try (RedisLockFactory locks = RedisLockFactory.builder().standalone(redisUri).build();
        RedisClient redis = RedisClient.create(redisUri)) {
      BoundedBuffer buffer = new BoundedBuffer(locks, redis, name, CAPACITY);
      String me = Long.toString(ProcessHandle.current().pid());
      for (int i = 0; i < count; i++) {
        if (role.equals("put")) {
          buffer.put(me + "-" + i);
        } else {
          System.out.println("took " + buffer.take());
        }
      }
    }
  }

  /**
   * Runs the example, or (with arguments) one of its worker JVMs.
   *
   * @param args none; or {@code put|take <redisUri> <name> <count>} for a worker
   * @throws Exception if it failed
   */
  public static void main(String[] args) throws Exception {
    if (args.length == 4) {
      work(args[0], args[1], args[2], Integer.parseInt(args[3]));
      return;
    }
    boolean ok;
    try (ExampleRedis redis = ExampleRedis.locate()) {
      System.out.println("Redis: " + redis.describe());
      Result result = run(redis.uri());
      ok =
          result.taken() == result.produced()
              && result.distinct() == result.produced()
              && result.left() == 0;
      System.out.println(ok ? "OK: every item taken exactly once" : "WRONG: " + result);
    }
    if (!ok) {
      System.exit(1);
    }
  }
}
