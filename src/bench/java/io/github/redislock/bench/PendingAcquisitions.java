package io.github.redislock.bench;

import io.github.redislock.LockHandle;
import io.github.redislock.RedisDistributedLock;
import io.github.redislock.RedisLockFactory;
import java.lang.management.ManagementFactory;
import java.lang.ref.Reference;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * What N acquisitions waiting for held locks cost the waiting JVM: N pending {@code
 * acquireHoldAsync()} futures beside N platform threads parked in {@code lock()}, in one run, each
 * on a fresh server with fresh factories. A first factory (standing for another process) holds the
 * lock(s); a second, measured one makes the N acquisitions, on one name (they queue in the JVM) or
 * on N names (each its own registration for its lock's wake-up). Once they settle, the live threads
 * of the JVM ({@code ThreadMXBean.getThreadCount()}) and its live heap ({@link
 * HeapFootprint#liveHeap()}: used heap after a full collection, the least of three readings) are
 * read, and compared with the readings taken after the measured factory was built and had made one
 * acquisition and release of each name (so that its lock objects, connections and subscription
 * thread exist before). Then the holder releases and every acquisition must complete: each pending
 * future's handle is released by the stage that receives it, each thread unlocks and ends; the
 * number completed within {@value #BOUND_SECONDS} s and the time the last one took are reported.
 */
final class PendingAcquisitions {
  static final int BOUND_SECONDS = 60;

  /**
   * One row.
   *
   * @param form {@code acquireHoldAsync()} or {@code lock() on a platform thread}
   * @param names 1 (every acquisition on one name) or as many as acquisitions
   * @param count acquisitions waiting
   * @param threadsAdded live JVM threads added while they waited
   * @param heapAdded live heap added while they waited, bytes
   * @param completed acquisitions that completed after the release, within the bound
   * @param drainMillis from the holder's release to the last completion
   * @param note remarks, empty when none
   */
  record Result(
      String form,
      int names,
      int count,
      long threadsAdded,
      long heapAdded,
      int completed,
      long drainMillis,
      String note) {
    double threadsPerAcquisition() {
      return threadsAdded / (double) count;
    }

    double heapPerAcquisition() {
      return heapAdded / (double) count;
    }
  }

  private PendingAcquisitions() {}

  /** The four rows: futures and threads, on one name and on N names. */
  static List<Result> measure(BenchSettings settings) throws InterruptedException {
    int n = settings.waiters();
    List<Result> results = new ArrayList<>();
    for (int names : new int[] {1, n}) {
      results.add(measure(n, names, true, settings));
      results.add(measure(n, names, false, settings));
    }
    return results;
  }

  private static Result measure(int n, int nameCount, boolean async, BenchSettings settings)
      throws InterruptedException {
    String form = async ? "acquireHoldAsync()" : "lock() on a platform thread";
    String[] names = new String[nameCount];
    for (int i = 0; i < nameCount; i++) {
      names[i] = "bench:pending:" + i;
    }
    try (LocalRedis redis = LocalRedis.start(1);
        RedisLockFactory other =
            RedisLockFactory.builder().standalone(redis.uris().get(0)).build();
        RedisLockFactory measured =
            RedisLockFactory.builder().standalone(redis.uris().get(0)).build()) {
      RedisDistributedLock[] locks = new RedisDistributedLock[nameCount];
      for (int i = 0; i < nameCount; i++) {
        locks[i] = measured.getLock(names[i]);
        locks[i].acquireHoldAsync().join().release(); // lock objects, connections, subscriber
      }
      // Where the stages that receive the handles run (release calls Redis: not on the factory's
      // own threads); started before the first reading.
      ThreadPoolExecutor pool =
          new ThreadPoolExecutor(
              2,
              2,
              1,
              TimeUnit.MINUTES,
              new LinkedBlockingQueue<>(),
              r -> {
                Thread t = new Thread(r, "bench-pending-stage");
                t.setDaemon(true);
                return t;
              });
      pool.prestartAllCoreThreads();
      try {
        return measure(n, nameCount, async, settings, form, other, locks, measured, pool);
      } finally {
        pool.shutdownNow();
      }
    }
  }

  private static Result measure(
      int n,
      int nameCount,
      boolean async,
      BenchSettings settings,
      String form,
      RedisLockFactory other,
      RedisDistributedLock[] locks,
      RedisLockFactory measured,
      ExecutorService pool)
      throws InterruptedException {
    List<LockHandle> held = new ArrayList<>();
    for (RedisDistributedLock lock : locks) {
      held.add(other.getLock(lock.getName()).acquireHold());
    }
    long heapBefore = HeapFootprint.liveHeap();
    int threadsBefore = ManagementFactory.getThreadMXBean().getThreadCount();

    AtomicInteger completed = new AtomicInteger();
    AtomicReference<String> error = new AtomicReference<>("");
    CountDownLatch done = new CountDownLatch(n);
    List<CompletableFuture<Void>> futures = new ArrayList<>();
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      RedisDistributedLock lock = locks[i % nameCount];
      if (async) {
        futures.add(
            lock.acquireHoldAsync()
                .thenAcceptAsync(
                    hold -> {
                      hold.release();
                      completed.incrementAndGet();
                    },
                    pool)
                .whenComplete(
                    (v, e) -> {
                      if (e != null) {
                        error.compareAndSet("", e.toString());
                      }
                      done.countDown();
                    }));
      } else {
        Thread t =
            new Thread(
                () -> {
                  try {
                    RedisDistributedLock own = measured.getLock(lock.getName());
                    own.lock();
                    own.unlock();
                    completed.incrementAndGet();
                  } catch (RuntimeException e) {
                    error.compareAndSet("", e.toString());
                  } finally {
                    done.countDown();
                  }
                },
                "bench-pending-" + i);
        t.setDaemon(true);
        t.start();
        threads.add(t);
      }
    }
    settle(async ? null : threads, settings);
    int threadsDuring = ManagementFactory.getThreadMXBean().getThreadCount();
    long heapDuring = HeapFootprint.liveHeap();
    String note = "";
    long pendingNow = futures.stream().filter(f -> !f.isDone()).count();
    if (async && pendingNow != n) {
      note = (n - pendingNow) + " completed before the release; ";
    }

    long released = System.nanoTime();
    for (LockHandle h : held) {
      h.release();
    }
    boolean all = done.await(BOUND_SECONDS, TimeUnit.SECONDS);
    long drain = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - released);
    if (!all) {
      note += "not all completed within " + BOUND_SECONDS + " s; ";
    }
    note += error.get();
    Reference.reachabilityFence(futures);
    Reference.reachabilityFence(threads);
    Reference.reachabilityFence(locks);
    return new Result(
        form,
        nameCount,
        n,
        threadsDuring - threadsBefore,
        heapDuring - heapBefore,
        completed.get(),
        drain,
        note.trim());
  }

  /**
   * Lets the acquisitions settle: the threads all parked (bounded), then as long again as it took,
   * and at least a second (the futures register in the background), so that no reading catches one
   * in flight.
   */
  private static void settle(List<Thread> threads, BenchSettings settings)
      throws InterruptedException {
    long start = System.nanoTime();
    long deadline = start + TimeUnit.SECONDS.toNanos(30);
    if (threads != null) {
      while (System.nanoTime() - deadline < 0
          && !threads.stream()
              .allMatch(
                  t ->
                      t.getState() == Thread.State.WAITING
                          || t.getState() == Thread.State.TIMED_WAITING)) {
        Thread.sleep(20);
      }
    }
    long took = System.nanoTime() - start;
    Thread.sleep(Math.max(settings.quick() ? 300 : 1000, TimeUnit.NANOSECONDS.toMillis(took)));
  }
}
