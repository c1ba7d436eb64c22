package io.github.redislock.examples;

import io.github.redislock.RedisLockFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.locks.Lock;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.UnifiedJedis;

/**
 * Workers in several processes claim jobs from a shared board, one claim at a time, in turn. The
 * claim reads the first pending job and then records it (two steps, so it needs a lock); with a
 * fair lock ({@code getFairLock}) each claim goes to the worker that has waited longest, in
 * whatever process, so that no worker is starved by one that keeps coming back first. Code written
 * for {@code new ReentrantLock(true)} switches by changing where its lock comes from.
 *
 * <p>Here each worker has its own factory, as it would in its own process.
 *
 * <p>Run: {@code mvn -q test-compile exec:java
 * -Dexec.mainClass=io.github.redislock.examples.FairJobClaiming}. It uses the Redis named by {@code
 * -Dredis.url} or {@code REDIS_URL}, else starts its own.
 */
public final class FairJobClaiming {

  /** The job board: pending job ids in a Redis list, each claim recorded in a hash. */
  static final class JobBoard {
    private final UnifiedJedis store;
    private final String pendingKey;
    private final String claimsKey;
    private final Lock lock;

    JobBoard(UnifiedJedis store, String pendingKey, String claimsKey, Lock lock) {
      this.store = store;
      this.pendingKey = pendingKey;
      this.claimsKey = claimsKey;
      this.lock = lock;
    }

    /** Claims the first pending job for {@code worker}; {@code null} when none is left. */
    String claim(String worker) {
      // Before: private final Lock lock = new ReentrantLock(true);
      lock.lock();
      try {
        String job = store.lindex(pendingKey, 0);
        if (job == null) {
          return null;
        }
        store.hset(claimsKey, job, worker);
        store.lpop(pendingKey);
        return job;
      } finally {
        lock.unlock();
      }
    }
  }

  /**
   * What happened.
   *
   * @param jobs the jobs on the board
   * @param claimed the claims made
   * @param distinct the jobs claimed, each counted once
   * @param claimsByWorker how many jobs each worker claimed
   * @param turns the workers in the order of their claims
   */
  public record Result(
      int jobs, int claimed, int distinct, List<Integer> claimsByWorker, List<String> turns) {

    /** The claims that went to the worker that made the claim before. */
    public int repeats() {
      int repeats = 0;
      for (int i = 1; i < turns.size(); i++) {
        if (turns.get(i).equals(turns.get(i - 1))) {
          repeats++;
        }
      }
      return repeats;
    }
  }

  private FairJobClaiming() {}

  /**
   * Four workers claim 40 jobs.
   *
   * @param redisUri the Redis holding the lock and the job board
   * @return what happened
   * @throws Exception if a worker failed
   */
  public static Result run(String redisUri) throws Exception {
    int workers = 4;
    int jobs = 40;
    String run = UUID.randomUUID().toString().substring(0, 8);
    String pendingKey = "examples:jobs-pending:" + run;
    String claimsKey = "examples:jobs-claimed:" + run;
    String lockName = "examples:jobs:" + run;
    CountDownLatch start = new CountDownLatch(1);
    List<RedisLockFactory> factories = new ArrayList<>();
    ExecutorService pool = Executors.newFixedThreadPool(workers);
    try (RedisClient redis = RedisClient.create(redisUri)) {
      try {
        for (int j = 1; j <= jobs; j++) {
          redis.rpush(pendingKey, "job-" + j);
        }
        List<Future<Integer>> claimsByWorker = new ArrayList<>();
        for (int w = 1; w <= workers; w++) {
          String worker = "worker-" + w;
          RedisLockFactory locks = RedisLockFactory.builder().standalone(redisUri).build();
          factories.add(locks);
          JobBoard board = new JobBoard(redis, pendingKey, claimsKey, locks.getFairLock(lockName));
          claimsByWorker.add(
              pool.submit(
                  () -> {
                    start.await();
                    int claimed = 0;
                    while (board.claim(worker) != null) {
                      claimed++; // the job would be done here, outside the lock
                    }
                    return claimed;
                  }));
        }
        start.countDown();
        List<Integer> counts = new ArrayList<>();
        for (Future<Integer> f : claimsByWorker) {
          counts.add(f.get());
        }
        int claimed = counts.stream().mapToInt(Integer::intValue).sum();
        List<String> turns = new ArrayList<>(); // jobs are claimed in board order: job-1 first
        for (int j = 1; j <= jobs; j++) {
          turns.add(redis.hget(claimsKey, "job-" + j));
        }
        Result result =
            new Result(jobs, claimed, Math.toIntExact(redis.hlen(claimsKey)), counts, turns);
        System.out.printf(
            "%d workers claimed %d of %d jobs (%d distinct); claims per worker %s%n"
                + "first turns: %s; claims right after one's own: %d%n",
            workers,
            result.claimed(),
            jobs,
            result.distinct(),
            counts,
            String.join(" ", turns.subList(0, Math.min(12, turns.size()))),
            result.repeats());
        return result;
      } finally {
        pool.shutdown();
        factories.forEach(RedisLockFactory::close);
        redis.del(pendingKey, claimsKey);
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
      ok =
          result.claimed() == result.jobs()
              && result.distinct() == result.jobs()
              && result.claimsByWorker().stream().allMatch(n -> n > 0);
      System.out.println(
          ok ? "OK: every job claimed once, every worker had turns" : "WRONG: " + result);
    }
    if (!ok) {
      System.exit(1);
    }
  }
}
