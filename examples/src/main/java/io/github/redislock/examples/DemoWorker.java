package io.github.redislock.examples;

import io.github.redislock.RedisDistributedLock;
import io.github.redislock.RedisLockFactory;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.LongAccumulator;
import redis.clients.jedis.RedisClient;

/**
 * One worker JVM of the {@link Demo}: increments a counter stored in Redis, non-atomically (GET,
 * then SET value + 1), under a {@link RedisDistributedLock} shared with the other workers.
 *
 * <p>Arguments: {@code redisUri lockName counterKey threads increments}. It prints {@code ready}
 * when connected, waits for a line {@code go} on its standard input (so that all workers start
 * together), and prints {@code done HOLDS MIN_TOKEN MAX_TOKEN} when finished.
 */
public final class DemoWorker {
  private DemoWorker() {}

  /**
   * Runs one worker.
   *
   * @param args {@code redisUri lockName counterKey threads increments}
   * @throws Exception if the work failed (the JVM then exits with a non-zero code)
   */
  public static void main(String[] args) throws Exception {
    if (args.length != 5) {
      throw new IllegalArgumentException(
          "usage: DemoWorker redisUri lockName counterKey threads increments");
    }
    String redisUri = args[0];
    String lockName = args[1];
    String counterKey = args[2];
    int threads = Integer.parseInt(args[3]);
    int increments = Integer.parseInt(args[4]);

    try (RedisClient redis = RedisClient.create(redisUri);
        RedisLockFactory locks = RedisLockFactory.builder().client(redis).build()) {
      RedisDistributedLock lock = locks.getLock(lockName);
      redis.ping();
      System.out.println("ready");
      BufferedReader in =
          new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      if (!"go".equals(in.readLine())) {
        throw new IllegalStateException("expected 'go' on standard input");
      }

      LongAccumulator minToken = new LongAccumulator(Math::min, Long.MAX_VALUE);
      LongAccumulator maxToken = new LongAccumulator(Math::max, Long.MIN_VALUE);
      ExecutorService pool = Executors.newFixedThreadPool(threads);
      try {
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
          done.add(
              pool.submit(
                  () -> {
                    for (int i = 0; i < increments; i++) {
                      lock.lock();
                      try {
                        long token = lock.getFencingToken();
                        minToken.accumulate(token);
                        maxToken.accumulate(token);
                        // Read, then write: two commands, correct only because no one else runs
                        // them now.
                        String value = redis.get(counterKey);
                        long next = value == null ? 1 : Long.parseLong(value) + 1;
                        redis.set(counterKey, Long.toString(next));
                      } finally {
                        lock.unlock();
                      }
                    }
                  }));
        }
        for (Future<?> f : done) {
          f.get();
        }
      } finally {
        pool.shutdown();
      }
      System.out.println(
          "done " + (long) threads * increments + " " + minToken.get() + " " + maxToken.get());
    }
  }
}
