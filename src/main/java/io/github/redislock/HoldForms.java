package io.github.redislock;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * The forms of {@link RedisLock} written once for every lock: the checks of their arguments, and
 * the blocking acquisitions of handles as waits for the asynchronous one.
 */
final class HoldForms {
  /** The shortest lease a call may give. */
  static final Duration MIN_LEASE = Duration.ofMillis(1);

  /** The longest lease a call may give, as the factory's. */
  static final Duration MAX_LEASE = Duration.ofDays(1);

  /** What a lock does to acquire a handle: the one method each lock implements. */
  @FunctionalInterface
  interface Acquirer {
    /**
     * Starts an acquisition.
     *
     * @param waitNanos how long it may wait: {@code Long.MAX_VALUE} for ever, 0 or less for one
     *     attempt
     * @param leaseNanos the lease given with the call, 0 for the factory's, renewed
     */
    CompletableFuture<Optional<LockHandle>> acquire(long waitNanos, long leaseNanos);
  }

  private HoldForms() {}

  /** The lease given with a call, in nanoseconds, checked. */
  static long lease(Duration lease) {
    Objects.requireNonNull(lease, "lease");
    if (lease.compareTo(MIN_LEASE) < 0 || lease.compareTo(MAX_LEASE) > 0) {
      throw new IllegalArgumentException(
          "lease must be between " + MIN_LEASE + " and " + MAX_LEASE + ", got " + lease);
    }
    return lease.toNanos();
  }

  /** A wait in nanoseconds, saturated (a {@code Duration} can exceed a {@code long}). */
  static long wait(Duration wait) {
    Objects.requireNonNull(wait, "wait");
    return wait.compareTo(Duration.ofDays(365 * 100)) > 0 ? Long.MAX_VALUE - 1 : wait.toNanos();
  }

  /** A handle's acquisition as long as it takes: uninterruptible, as {@code lock()}. */
  static LockHandle acquire(Acquirer acquirer, long leaseNanos) {
    return awaitUninterruptibly(acquirer.acquire(Long.MAX_VALUE, leaseNanos)).orElseThrow();
  }

  /** One attempt to acquire a handle, with the factory's lease. */
  static Optional<LockHandle> tryAcquireOnce(Acquirer acquirer) {
    return awaitUninterruptibly(acquirer.acquire(0, 0));
  }

  private static Optional<LockHandle> awaitUninterruptibly(
      CompletableFuture<Optional<LockHandle>> pending) {
    boolean interrupted = false;
    try {
      while (true) {
        try {
          return outcome(pending);
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** A handle's acquisition within {@code waitNanos}; an interrupt withdraws it. */
  static Optional<LockHandle> tryAcquire(Acquirer acquirer, long waitNanos, long leaseNanos)
      throws InterruptedException {
    if (Thread.interrupted()) {
      throw new InterruptedException();
    }
    CompletableFuture<Optional<LockHandle>> pending = acquirer.acquire(waitNanos, leaseNanos);
    try {
      return outcome(pending);
    } catch (InterruptedException e) {
      // Withdrawn: a grant after this is released at once. A grant that landed after the
      // interrupt woke this thread and before the cancel is in the future, and nobody else will
      // have it: released here, or its hold would be renewed with no one to release it.
      if (!pending.cancel(false) && !pending.isCompletedExceptionally()) {
        pending.join().ifPresent(HoldForms::releaseUnwanted);
      }
      throw e;
    }
  }

  /** The outcome of {@code pending}, waited for, with its failure thrown as it was. */
  private static Optional<LockHandle> outcome(CompletableFuture<Optional<LockHandle>> pending)
      throws InterruptedException {
    try {
      return pending.get();
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof RuntimeException runtime) {
        runtime.addSuppressed(new Exception("the acquisition failed here"));
        throw runtime;
      }
      if (cause instanceof Error error) {
        throw error;
      }
      throw new RedisLockException("acquiring a hold failed", cause);
    } catch (CancellationException e) {
      throw new IllegalStateException("the acquisition was cancelled", e);
    }
  }

  /** An acquisition as long as it takes, in a future of the handle itself. */
  static CompletableFuture<LockHandle> acquireAsync(Acquirer acquirer, long leaseNanos) {
    CompletableFuture<Optional<LockHandle>> pending = acquirer.acquire(Long.MAX_VALUE, leaseNanos);
    CompletableFuture<LockHandle> handle = new CompletableFuture<>();
    var unusedGrant =
        pending.whenComplete(
            (granted, failure) -> {
              if (failure != null) {
                handle.completeExceptionally(failure);
              } else if (!handle.complete(granted.orElseThrow())) {
                releaseUnwanted(granted.get()); // completed otherwise meanwhile: nobody uses it
              }
            });
    // Cancelling (or completing) the returned future withdraws the acquisition.
    var unusedCancel = handle.whenComplete((granted, failure) -> pending.cancel(false));
    return handle;
  }

  /**
   * Releases a handle nobody will use; what fails is the release's own affair, not the caller's.
   */
  static void releaseUnwanted(LockHandle handle) {
    try {
      handle.close();
    } catch (RuntimeException e) {
      // lost or unconfirmed: the key expires with its lease either way
    }
  }

  /** Nanoseconds of {@code unit}, for messages. */
  static long millis(long nanos) {
    return TimeUnit.NANOSECONDS.toMillis(nanos);
  }
}
