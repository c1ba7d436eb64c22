package io.github.redislock.examples;

import io.github.redislock.LockHandle;
import io.github.redislock.RedisDistributedLock;
import io.github.redislock.RedisLockFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A {@code CompletableFuture} pipeline that takes a lock in one stage and releases it in another,
 * on other threads: the lock is held by a {@link LockHandle}, not by a thread. Twenty orders of one
 * account go through three stages each (reserve the balance, write the ledger, confirm) on two
 * thread pools; the account's lock is acquired asynchronously (no thread waits while another order
 * holds it) and released by whichever thread runs the last stage.
 *
 * <p>Run: {@code mvn -q test-compile exec:java
 * -Dexec.mainClass=io.github.redislock.examples.AsyncPipeline}. It uses the Redis named by {@code
 * -Dredis.url} or {@code REDIS_URL}, else starts its own.
 */
public final class AsyncPipeline {

  /**
   * What happened.
   *
   * @param orders the orders placed
   * @param balance the account's balance at the end (each order takes 1 from 1,000)
   * @param mostAtOnce the most orders inside the locked stages at once: 1 if the lock excludes
   * @param releasedElsewhere the orders whose lock was released on another thread than the one that
   *     got it
   */
  public record Result(int orders, int balance, int mostAtOnce, int releasedElsewhere) {}

  private AsyncPipeline() {}

  /**
   * Places twenty orders at once, each a pipeline of stages under the account's lock.
   *
   * @param redisUri the Redis to lock on
   * @return what happened
   */
  public static Result run(String redisUri) {
    int orders = 20;
    AtomicInteger balance = new AtomicInteger(1000);
    AtomicInteger inside = new AtomicInteger();
    AtomicInteger mostAtOnce = new AtomicInteger();
    AtomicInteger releasedElsewhere = new AtomicInteger();
    ExecutorService ledger = Executors.newFixedThreadPool(3);
    ExecutorService mail = Executors.newFixedThreadPool(3);
    try (RedisLockFactory locks = RedisLockFactory.builder().standalone(redisUri).build()) {
      RedisDistributedLock account = locks.getLock("examples-account-42");
      List<CompletableFuture<Void>> done = new ArrayList<>();
      for (int i = 0; i < orders; i++) {
        CompletableFuture<Void> order =
            account
                .acquireHoldAsync() // pending while another order holds the account
                .thenApplyAsync(
                    hold -> {
                      mostAtOnce.accumulateAndGet(inside.incrementAndGet(), Math::max);
                      int read = balance.get(); // a read-modify-write the lock must protect
                      balance.set(read - 1);
                      return new Step(hold, Thread.currentThread());
                    },
                    ledger)
                .thenApplyAsync(step -> step, mail) // confirm, on another pool
                .thenAccept(
                    step -> {
                      inside.decrementAndGet();
                      if (step.thread() != Thread.currentThread()) {
                        releasedElsewhere.incrementAndGet();
                      }
                      step.hold().release(); // any thread may: the handle owns the hold
                    });
        done.add(order);
      }
      CompletableFuture.allOf(done.toArray(CompletableFuture[]::new)).join();
    } finally {
      ledger.shutdown();
      mail.shutdown();
    }
    Result result = new Result(orders, balance.get(), mostAtOnce.get(), releasedElsewhere.get());
    System.out.printf(
        "%d orders: balance %d, at most %d order(s) in the locked stages at once,"
            + " %d released on another thread than the one that got the lock%n",
        result.orders(), result.balance(), result.mostAtOnce(), result.releasedElsewhere());
    return result;
  }

  /** A stage's result: the hold, and the thread that ran the stage that got it. */
  private record Step(LockHandle hold, Thread thread) {}

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
      ok = result.balance() == 1000 - result.orders() && result.mostAtOnce() == 1;
      System.out.println(ok ? "OK: every order counted, one at a time" : "WRONG: " + result);
    }
    if (!ok) {
      System.exit(1);
    }
  }
}
