package io.github.redislock.internal;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One acquisition of a lock in Redis, from the first {@code lock()} to the last {@code unlock()}
 * of the owning thread. Its status moves once, from held to either releasing (by the owner) or
 * lost (by the renewer or the factory's close); whichever comes first wins, so a release never
 * races a loss report.
 */
final class Hold {
  private static final int HELD = 0;
  private static final int RELEASING = 1;
  private static final int LOST = 2;

  final String name;
  final LockKeys keys;
  final String token;
  final long fencingToken;

  private final AtomicInteger status = new AtomicInteger(HELD);
  private volatile String lostReason;
  private volatile long leaseEndNanos;

  /** Whether {@link #fencingToken} was made binding (see {@code LockBackend.confirmFence}). */
  volatile boolean fenceConfirmed;

  /** The next renewal; guarded by this hold's monitor (see {@link LeaseRenewer}). */
  ScheduledFuture<?> renewal;

  Hold(String name, LockKeys keys, String token, long fencingToken, long leaseEndNanos) {
    this.name = name;
    this.keys = keys;
    this.token = token;
    this.fencingToken = fencingToken;
    this.leaseEndNanos = leaseEndNanos;
  }

  /** Whether the hold is held and its lease, as last confirmed by Redis, has not run out. */
  boolean isValid() {
    return status.get() == HELD && System.nanoTime() - leaseEndNanos < 0;
  }

  boolean isHeld() {
    return status.get() == HELD;
  }

  boolean isLost() {
    return status.get() == LOST;
  }

  /** The owner starts the release; {@code false} when the hold was lost first. */
  boolean beginRelease() {
    return status.compareAndSet(HELD, RELEASING);
  }

  /** Marks the hold lost; {@code true} only for the first caller, who reports it. */
  boolean markLost(String reason) {
    if (status.compareAndSet(HELD, LOST)) {
      lostReason = reason;
      return true;
    }
    return false;
  }

  /** Why the hold is not valid any more. */
  String lostReason() {
    String reason = lostReason;
    if (reason != null) {
      return reason;
    }
    return "its lease ran out before renewal could confirm it";
  }

  long leaseEndNanos() {
    return leaseEndNanos;
  }

  void extendedUntil(long nanos) {
    leaseEndNanos = nanos;
  }
}
