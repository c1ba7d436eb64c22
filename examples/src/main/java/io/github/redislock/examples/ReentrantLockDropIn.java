package io.github.redislock.examples;

import io.github.redislock.RedisLockFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

/**
 * A class written with {@code new ReentrantLock()}, switched to a distributed lock by changing one
 * line: where its lock comes from. Nothing else changes: {@code lock()}, {@code tryLock(time,
 * unit)}, {@code unlock()} in {@code finally}, and reentrant calls all behave as before.
 *
 * <p>Run: {@code mvn -q test-compile exec:java
 * -Dexec.mainClass=io.github.redislock.examples.ReentrantLockDropIn}. It uses the Redis named by
 * {@code -Dredis.url} or {@code REDIS_URL}, else starts its own.
 */
public final class ReentrantLockDropIn {

  /** Seats of one concert. The stock is kept in this JVM to keep the example short. */
  static final class SeatInventory {
    private final Lock lock;
    private int free;

    SeatInventory(RedisLockFactory locks, String concert, int seats) {
      // Before: this.lock = new ReentrantLock();
      this.lock = locks.getLock("seats:" + concert);
      this.free = seats;
    }

    /** Reserves {@code count} seats if that many are free; waits up to a second for the lock. */
    boolean reserve(int count) throws InterruptedException {
      if (!lock.tryLock(1, TimeUnit.SECONDS)) {
        throw new IllegalStateException("the inventory stayed locked for a second");
      }
      try {
        if (freeSeats() < count) { // reentrant: freeSeats() takes the lock again
          return false;
        }
        free -= count;
        return true;
      } finally {
        lock.unlock();
      }
    }

    int freeSeats() {
      lock.lock();
      try {
        return free;
      } finally {
        lock.unlock();
      }
    }
  }

  /**
   * What happened.
   *
   * @param seats the seats on sale
   * @param requests the reservation requests made
   * @param reserved the requests that got a seat
   * @param refused the requests refused because the concert was sold out
   * @param free the seats still free at the end
   */
  public record Result(int seats, int requests, int reserved, int refused, int free) {}

  private ReentrantLockDropIn() {}

  /**
   * Sells {@code 20} seats to 8 threads asking for one seat 5 times each.
   *
   * @param redisUri the Redis to lock on
   * @return what happened
   * @throws Exception if a reservation failed
   */
  public static Result run(String redisUri) throws Exception {
    int seats = 20;
    int threads = 8;
    int requestsPerThread = 5;
    try (RedisLockFactory locks = RedisLockFactory.builder().standalone(redisUri).build()) {
      SeatInventory inventory = new SeatInventory(locks, "examples-concert", seats);

      ExecutorService pool = Executors.newFixedThreadPool(threads);
      List<Future<Integer>> reservedByThread = new ArrayList<>();
      try {
        for (int t = 0; t < threads; t++) {
          reservedByThread.add(
              pool.submit(
                  () -> {
                    int reserved = 0;
                    for (int i = 0; i < requestsPerThread; i++) {
                      if (inventory.reserve(1)) {
                        reserved++;
                      }
                    }
                    return reserved;
                  }));
        }
        int reserved = 0;
        for (Future<Integer> f : reservedByThread) {
          reserved += f.get();
        }
        int requests = threads * requestsPerThread;
        Result result =
            new Result(seats, requests, reserved, requests - reserved, inventory.freeSeats());
        System.out.printf(
            "%d threads asked for %d seats of %d: %d reserved, %d refused (sold out), %d left%n",
            threads, result.requests(), seats, result.reserved(), result.refused(), result.free());
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
      ok = result.reserved() == result.seats() && result.free() == 0;
      System.out.println(ok ? "OK: every seat sold exactly once" : "WRONG: " + result);
    }
    if (!ok) {
      System.exit(1);
    }
  }
}
