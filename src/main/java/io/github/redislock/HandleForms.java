package io.github.redislock;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The forms of {@link RedisLock} that acquire handles, written once for every lock: each lock says
 * only how it starts an acquisition ({@link #acquireHandle}); the blocking forms wait for it, and
 * the arguments are checked before anything reaches Redis.
 */
abstract class HandleForms implements RedisLock {

  /**
   * Starts an acquisition of a handle of this lock.
   *
   * @param waitNanos how long it may wait: {@code Long.MAX_VALUE} for ever, 0 or less one attempt
   * @param leaseNanos a lease given with the call, not renewed; 0 for the factory's, renewed
   */
  abstract CompletableFuture<Optional<LockHandle>> acquireHandle(long waitNanos, long leaseNanos);

  @Override
  public LockHandle acquireHold() {
    return HoldForms.acquire(this::acquireHandle, 0);
  }

  @Override
  public LockHandle acquireHold(Duration lease) {
    return HoldForms.acquire(this::acquireHandle, HoldForms.lease(lease));
  }

  @Override
  public Optional<LockHandle> tryAcquireHold() {
    return HoldForms.tryAcquireOnce(this::acquireHandle);
  }

  @Override
  public Optional<LockHandle> tryAcquireHold(Duration wait) throws InterruptedException {
    return HoldForms.tryAcquire(this::acquireHandle, HoldForms.wait(wait), 0);
  }

  @Override
  public Optional<LockHandle> tryAcquireHold(Duration wait, Duration lease)
      throws InterruptedException {
    long leaseNanos = HoldForms.lease(lease);
    return HoldForms.tryAcquire(this::acquireHandle, HoldForms.wait(wait), leaseNanos);
  }

  @Override
  public CompletableFuture<LockHandle> acquireHoldAsync() {
    return HoldForms.acquireAsync(this::acquireHandle, 0);
  }

  @Override
  public CompletableFuture<LockHandle> acquireHoldAsync(Duration lease) {
    return HoldForms.acquireAsync(this::acquireHandle, HoldForms.lease(lease));
  }

  @Override
  public CompletableFuture<Optional<LockHandle>> tryAcquireHoldAsync(Duration wait) {
    return acquireHandle(HoldForms.wait(wait), 0);
  }

  @Override
  public CompletableFuture<Optional<LockHandle>> tryAcquireHoldAsync(
      Duration wait, Duration lease) {
    long leaseNanos = HoldForms.lease(lease);
    return acquireHandle(HoldForms.wait(wait), leaseNanos);
  }
}
