package io.github.redislock.examples;

import io.github.redislock.LockHold;
import io.github.redislock.RedisDistributedLock;
import io.github.redislock.RedisLockFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Code run under the lock without {@code lock()}/{@code try}/{@code finally}/{@code unlock()}:
 * {@code runLocked} and {@code callLocked} for a block, {@code tryRunLocked} for work that is
 * skipped while someone else does it, and try-with-resources with {@code acquire()} where the block
 * needs the hold's fencing token.
 *
 * <p>Run: {@code mvn -q test-compile exec:java
 * -Dexec.mainClass=io.github.redislock.examples.RunUnderTheLock}. It uses the Redis named by {@code
 * -Dredis.url} or {@code REDIS_URL}, else starts its own.
 */
public final class RunUnderTheLock {

  /**
   * A store that accepts a write only with a fencing token at least as high as any it has seen, as
   * a database would with a conditional update: a holder whose hold was lost cannot write over a
   * later holder's work.
   */
  static final class FencedStore {
    private long highestToken;
    private int value;
    private int rejected;

    synchronized boolean write(int newValue, long fencingToken) {
      if (fencingToken < highestToken) {
        rejected++;
        return false;
      }
      highestToken = fencingToken;
      value = newValue;
      return true;
    }

    synchronized int value() {
      return value;
    }

    synchronized int rejected() {
      return rejected;
    }
  }

  /**
   * What happened.
   *
   * @param increments the increments made with try-with-resources
   * @param value the store's value at the end
   * @param rejected the writes the store rejected
   * @param reportRuns the nightly reports run (workers that found the lock busy skipped theirs)
   * @param reportSkips the workers that skipped the report
   * @param total what {@code callLocked} read
   */
  public record Result(
      int increments, int value, int rejected, int reportRuns, int reportSkips, int total) {}

  private RunUnderTheLock() {}

  /**
   * Four threads increment a fenced value 25 times each with try-with-resources; then three
   * "processes" race for the nightly report, which runs once; then one reads the total.
   *
   * @param redisUri the Redis to lock on
   * @return what happened
   * @throws Exception if a step failed
   */
  public static Result run(String redisUri) throws Exception {
    int threads = 4;
    int perThread = 25;
    FencedStore store = new FencedStore();
    AtomicInteger reportRuns = new AtomicInteger();
    AtomicInteger reportSkips = new AtomicInteger();
    try (RedisLockFactory locks = RedisLockFactory.builder().standalone(redisUri).build()) {
      RedisDistributedLock counter = locks.getLock("examples-counter");
      ExecutorService pool = Executors.newFixedThreadPool(threads);
      try {
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
          done.add(
              pool.submit(
                  () -> {
                    for (int i = 0; i < perThread; i++) {
                      try (LockHold hold = counter.acquire()) {
                        store.write(store.value() + 1, hold.fencingToken());
                      }
                    }
                  }));
        }
        for (Future<?> f : done) {
          f.get();
        }

        // The nightly report: whoever gets the lock first runs it; the others skip it.
        RedisDistributedLock report = locks.getLock("examples-nightly-report");
        report.lock(); // a report already running, elsewhere
        try {
          List<Future<Boolean>> racers = new ArrayList<>();
          for (int t = 0; t < 3; t++) {
            racers.add(
                pool.submit(
                    () ->
                        report.tryRunLocked(
                            Duration.ZERO,
                            reportRuns::incrementAndGet,
                            reportSkips::incrementAndGet)));
          }
          for (Future<Boolean> f : racers) {
            f.get();
          }
        } finally {
          report.unlock();
        }
        report.runLocked(reportRuns::incrementAndGet); // and now it is free

        int total = counter.callLocked(store::value);
        Result result =
            new Result(
                threads * perThread,
                store.value(),
                store.rejected(),
                reportRuns.get(),
                reportSkips.get(),
                total);
        System.out.printf(
            "%d increments under acquire(): value %d, %d stale writes rejected;"
                + " nightly report run %d time(s), skipped %d time(s) while busy%n",
            result.increments(),
            result.value(),
            result.rejected(),
            result.reportRuns(),
            result.reportSkips());
        return result;
      } finally {
        pool.shutdown();
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
      ok = result.value() == result.increments() && result.reportRuns() == 1;
      System.out.println(ok ? "OK: every increment counted, one report run" : "WRONG: " + result);
    }
    if (!ok) {
      System.exit(1);
    }
  }
}
