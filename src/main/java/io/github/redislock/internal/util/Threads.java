package io.github.redislock.internal.util;

import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** Daemon threads named {@code redis-lock-...}, so leaks are easy to spot. */
public final class Threads {
  private static final AtomicInteger SEQUENCE = new AtomicInteger();
  private static final long IDLE_SECONDS = 10;

  private Threads() {}

  /**
   * Daemon threads named {@code purpose-N}.
   *
   * @param purpose what the threads do, e.g. {@code redis-lock-io}
   * @return the factory
   */
  public static ThreadFactory daemon(String purpose) {
    return task -> {
      Thread thread = new Thread(task, purpose + "-" + SEQUENCE.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    };
  }

  /**
   * A pool of at most {@code maxThreads} daemon threads, which end after {@value #IDLE_SECONDS}
   * seconds idle; work beyond them queues, so that a stalled Redis, holding every thread in a call,
   * cannot make the pool grow.
   *
   * @param purpose what the threads do, e.g. {@code redis-lock-io}
   * @param maxThreads the bound
   * @return the pool
   */
  public static ThreadPoolExecutor boundedPool(String purpose, int maxThreads) {
    ThreadPoolExecutor pool =
        new ThreadPoolExecutor(
            maxThreads,
            maxThreads,
            IDLE_SECONDS,
            TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(),
            daemon(purpose));
    pool.allowCoreThreadTimeOut(true);
    return pool;
  }
}
