package io.github.redislock.examples;

import io.github.redislock.RedisLockFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.Lock;

/**
 * Existing code that takes a {@link Lock} parameter receives a distributed lock unchanged: the
 * {@link Legacy} methods below were written for a {@code ReentrantLock} and are not touched.
 *
 * <p>Run: {@code mvn -q test-compile exec:java
 * -Dexec.mainClass=io.github.redislock.examples.LockPassedToExistingCode}. It uses the Redis named
 * by {@code -Dredis.url} or {@code REDIS_URL}, else starts its own.
 */
public final class LockPassedToExistingCode {

  /** An account; its balance is guarded by whatever lock the caller passes to {@link Legacy}. */
  static final class Account {
    final String id;
    int balance;

    Account(String id, int balance) {
      this.id = id;
      this.balance = balance;
    }
  }

  /** Code written years ago against {@code java.util.concurrent.locks.Lock}. Not modified. */
  static final class Legacy {
    private Legacy() {}

    /** Moves {@code amount} from one account to another; refuses an overdraft. */
    static boolean transfer(Lock lock, Account from, Account to, int amount) {
      lock.lock();
      try {
        if (from.balance < amount) {
          return false;
        }
        from.balance -= amount;
        to.balance += amount;
        return true;
      } finally {
        lock.unlock();
      }
    }

    /** The sum of all balances, read under the lock. */
    static int total(Lock lock, List<Account> accounts) {
      lock.lock();
      try {
        return accounts.stream().mapToInt(a -> a.balance).sum();
      } finally {
        lock.unlock();
      }
    }
  }

  /**
   * What happened.
   *
   * @param totalBefore the sum of the balances before the transfers
   * @param totalAfter the sum after them
   * @param transfers the transfers attempted
   * @param refused the transfers refused for lack of funds
   * @param lowestBalance the lowest balance at the end: never negative, as no overdraft is allowed
   */
  public record Result(
      int totalBefore, int totalAfter, int transfers, int refused, int lowestBalance) {}

  private LockPassedToExistingCode() {}

  /**
   * Runs random transfers between three accounts on 4 threads, 50 each.
   *
   * @param redisUri the Redis to lock on
   * @return what happened
   * @throws Exception if a transfer failed
   */
  public static Result run(String redisUri) throws Exception {
    int threads = 4;
    int transfersPerThread = 50;
    List<Account> accounts =
        List.of(new Account("alice", 100), new Account("bob", 100), new Account("carol", 100));
    try (RedisLockFactory locks = RedisLockFactory.builder().standalone(redisUri).build()) {
      Lock lock = locks.getLock("examples:accounts"); // was: new ReentrantLock()
      int before = Legacy.total(lock, accounts);

      ExecutorService pool = Executors.newFixedThreadPool(threads);
      List<Future<Integer>> refusedByThread = new ArrayList<>();
      try {
        for (int t = 0; t < threads; t++) {
          refusedByThread.add(
              pool.submit(
                  () -> {
                    ThreadLocalRandom random = ThreadLocalRandom.current();
                    int refused = 0;
                    for (int i = 0; i < transfersPerThread; i++) {
                      Account from = accounts.get(random.nextInt(accounts.size()));
                      Account to = accounts.get(random.nextInt(accounts.size()));
                      if (!Legacy.transfer(lock, from, to, 1 + random.nextInt(50))) {
                        refused++;
                      }
                    }
                    return refused;
                  }));
        }
        int refused = 0;
        for (Future<Integer> f : refusedByThread) {
          refused += f.get();
        }
        int after = Legacy.total(lock, accounts);
        int lowest = accounts.stream().mapToInt(a -> a.balance).min().orElseThrow();
        Result result = new Result(before, after, threads * transfersPerThread, refused, lowest);
        StringBuilder balances = new StringBuilder();
        for (Account a : accounts) {
          balances
              .append(balances.length() == 0 ? "" : ", ")
              .append(a.id)
              .append(' ')
              .append(a.balance);
        }
        System.out.printf(
            "%d transfers on %d threads (%d refused for lack of funds): %s%n",
            result.transfers(), threads, result.refused(), balances);
        System.out.printf("total before %d, after %d%n", before, after);
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
      ok = result.totalAfter() == result.totalBefore() && result.lowestBalance() >= 0;
      System.out.println(ok ? "OK: no money created or lost, no overdraft" : "WRONG: " + result);
    }
    if (!ok) {
      System.exit(1);
    }
  }
}
