package io.github.redislock.internal;

import io.github.redislock.LockHandle;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/** The holds of one family of locks that handles own, not threads. */
public final class ObjectHolds {

  /**
   * Acquires a hold of {@code name} for a new handle.
   *
   * @param waitNanos how long it may wait: {@code Long.MAX_VALUE} for ever, 0 or less one attempt
   * @param leaseNanos a lease given with the call, not renewed; 0 for the factory's, renewed
   */
  public CompletableFuture<Optional<LockHandle>> acquire(
      LockName name, long waitNanos, long leaseNanos) {
    return CompletableFuture.failedFuture(new UnsupportedOperationException("not yet"));
  }
}
