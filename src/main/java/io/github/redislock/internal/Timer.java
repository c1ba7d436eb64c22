package io.github.redislock.internal;

import io.github.redislock.internal.util.Threads;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The factory's one timer thread, for the deadlines and re-checks of acquisitions that no thread
 * waits for. Started at the first task, it ends after 10 seconds without one; its tasks only hand
 * work to other threads, never call Redis.
 */
public final class Timer implements AutoCloseable {
  private final ScheduledThreadPoolExecutor executor;

  /** A timer whose thread starts with its first task. */
  public Timer() {
    executor = new ScheduledThreadPoolExecutor(1, Threads.daemon("redis-lock-timer"));
    executor.setRemoveOnCancelPolicy(true);
    executor.setKeepAliveTime(10, TimeUnit.SECONDS);
    executor.allowCoreThreadTimeOut(true);
  }

  /**
   * Runs {@code task} after {@code nanos}.
   *
   * @throws RejectedExecutionException once the timer is closed
   */
  ScheduledFuture<?> schedule(Runnable task, long nanos) {
    return executor.schedule(task, Math.max(0, nanos), TimeUnit.NANOSECONDS);
  }

  /** Stops the thread; tasks not run yet never run. */
  @Override
  public void close() {
    executor.shutdownNow();
  }
}
