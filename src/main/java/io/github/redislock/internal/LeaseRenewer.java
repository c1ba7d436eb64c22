package io.github.redislock.internal;

import io.github.redislock.LockLostEvent;
import io.github.redislock.RedisLockException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Renews every hold of one factory about every third of the lease, on one daemon thread that ends
 * when nothing has been held for a few seconds. A renewal that finds the key gone or taken marks
 * the hold lost at once; one that fails is retried until the lease, as last confirmed, would have
 * run out, and then marks it lost. Each loss is reported once to the listener.
 */
final class LeaseRenewer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(LeaseRenewer.class);

  private final LockBackend backend;
  private final long leaseMillis;
  private final long validNanos;
  private final long periodMillis;
  private final long retryMillis;
  private final Consumer<LockLostEvent> listener;
  private final ScheduledThreadPoolExecutor scheduler;
  private final Set<Hold> active = ConcurrentHashMap.newKeySet();
  private volatile boolean closed;

  LeaseRenewer(
      LockBackend backend,
      long leaseMillis,
      long safetyMarginNanos,
      Consumer<LockLostEvent> listener) {
    this.backend = backend;
    this.leaseMillis = leaseMillis;
    this.validNanos = TimeUnit.MILLISECONDS.toNanos(leaseMillis) - safetyMarginNanos;
    this.periodMillis = Math.max(1, leaseMillis / 3);
    this.retryMillis = Math.max(1, Math.min(leaseMillis / 10, 500));
    this.listener = listener;
    this.scheduler = new ScheduledThreadPoolExecutor(1, Threads.daemon("redis-lock-renewal"));
    scheduler.setKeepAliveTime(5, TimeUnit.SECONDS);
    scheduler.allowCoreThreadTimeOut(true);
    scheduler.setRemoveOnCancelPolicy(true);
    scheduler.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
  }

  /** Starts renewing {@code hold}; {@code false} when the factory is closed. */
  boolean start(Hold hold) {
    active.add(hold);
    if (closed) {
      active.remove(hold);
      return false;
    }
    schedule(hold, periodMillis);
    return true;
  }

  /** Stops renewing {@code hold}, whose release has begun or which was lost. */
  void stop(Hold hold) {
    active.remove(hold);
    synchronized (hold) {
      if (hold.renewal != null) {
        hold.renewal.cancel(false);
        hold.renewal = null;
      }
    }
  }

  /** Number of holds being renewed: for tests that check nothing leaks. */
  int activeCount() {
    return active.size();
  }

  private void schedule(Hold hold, long delayMillis) {
    synchronized (hold) {
      if (hold.isHeld() && !closed) {
        hold.renewal = scheduler.schedule(() -> renew(hold), delayMillis, TimeUnit.MILLISECONDS);
      }
    }
  }

  private void renew(Hold hold) {
    if (!hold.isHeld()) {
      return;
    }
    long start = System.nanoTime();
    try {
      if (backend.extend(hold.keys, hold.token, leaseMillis)) {
        hold.extendedUntil(start + validNanos);
        schedule(hold, periodMillis);
      } else {
        lose(hold, "the lock key was deleted, expired or taken by another owner");
      }
    } catch (RedisLockException e) {
      if (System.nanoTime() - hold.leaseEndNanos() >= 0) {
        lose(hold, "renewal failed until the lease ran out: " + e.getMessage());
      } else {
        log.debug("renewal of lock '{}' failed; retrying", hold.name, e);
        schedule(hold, retryMillis);
      }
    }
  }

  /** Marks {@code hold} lost and reports it, unless it was released or reported already. */
  void lose(Hold hold, String reason) {
    stop(hold);
    if (hold.markLost(reason)) {
      log.warn("lost the hold of lock '{}': {}", hold.name, reason);
      try {
        listener.accept(new LockLostEvent(hold.name, hold.fencingToken, reason));
      } catch (RuntimeException e) {
        log.error("the onLockLost listener failed for lock '{}'", hold.name, e);
      }
    }
  }

  /** Stops every renewal; the holds still held are lost (their owners learn it on unlock). */
  @Override
  public void close() {
    closed = true;
    for (Hold hold : active) {
      lose(hold, "the lock factory was closed");
    }
    scheduler.shutdownNow();
  }
}
