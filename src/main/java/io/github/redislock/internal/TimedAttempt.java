package io.github.redislock.internal;

import io.github.redislock.internal.backend.Acquisition;
import io.github.redislock.internal.backend.LockKeys;
import io.github.redislock.internal.kind.Attempts;
import io.github.redislock.internal.util.Bulkhead;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One acquisition attempt run on a thread of its node for a caller that stops waiting for it at its
 * deadline. An attempt the caller gave up on before it started never starts (the node's threads are
 * bounded, so it may have queued behind calls to a stalled Redis); one that started is released
 * once it is done, if it acquired or failed (its command may have reached Redis). When the factory
 * closes, its caller stops waiting at once ({@link #abort()}).
 */
final class TimedAttempt implements Bulkhead.Abortable {
  private static final int NEW = 0;
  private static final int RUNNING = 1;
  private static final int SKIPPED = 2;

  private final Attempts kind;
  private final LockKeys keys;
  private final String token;
  private final boolean expectBusy;
  private final AtomicInteger state = new AtomicInteger(NEW);
  private final CompletableFuture<Acquisition> result = new CompletableFuture<>();

  TimedAttempt(Attempts kind, LockKeys keys, String token, boolean expectBusy) {
    this.kind = kind;
    this.keys = keys;
    this.token = token;
    this.expectBusy = expectBusy;
  }

  @Override
  public void run() {
    if (!state.compareAndSet(NEW, RUNNING)) {
      return;
    }
    try {
      result.complete(kind.tryAcquire(keys, token, expectBusy));
    } catch (Throwable e) {
      result.completeExceptionally(e);
    }
  }

  /** Waits for the attempt's outcome for at most {@code nanos}. */
  Acquisition get(long nanos) throws InterruptedException, ExecutionException, TimeoutException {
    return result.get(nanos, TimeUnit.NANOSECONDS);
  }

  /**
   * The caller stops waiting: the attempt does not start, or is released once done.
   *
   * @return whether it had not started (it never will)
   */
  @SuppressWarnings("FutureReturnValueIgnored") // the clean-up reports its own failure
  boolean abandon(Releases releases) {
    if (state.compareAndSet(NEW, SKIPPED)) {
      return true;
    }
    result.whenComplete(
        (attempt, failure) -> {
          if (failure != null || attempt.acquired()) {
            releases.releaseLater(kind, keys, token);
          }
        });
    return false;
  }

  /**
   * The factory closed before the attempt ran, or while it runs: its caller stops waiting, and
   * learns that the factory is closed. An attempt that still acquires afterwards expires with its
   * lease (the factory's clients are closed: nothing can release it).
   */
  @Override
  public void abort() {
    state.compareAndSet(NEW, SKIPPED);
    result.completeExceptionally(new IllegalStateException("this RedisLockFactory is closed"));
  }
}
