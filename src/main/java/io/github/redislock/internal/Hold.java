package io.github.redislock.internal;

import io.github.redislock.internal.backend.LockKeys;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One acquisition of a lock in Redis, from the first {@code lock()} to the last {@code unlock()} of
 * the owning thread. Its status moves once, from held to either releasing (by the owner) or lost
 * (by the renewer or the factory's close); whichever comes first wins, so a release never races a
 * loss report.
 */
final class Hold {
  private static final int HELD = 0;
  private static final int RELEASING = 1;
  private static final int LOST = 2;

  final String name;
  final LockKeys keys;
  final String token;
  final Object grant;
  final long acquiredAtNanos;

  /** The current holder's fencing token; written by the holder (see {@link #fenceStale}). */
  volatile long fencingToken;

  /**
   * Whether the current holder has no token of its own yet: none was issued with the acquisition
   * (tokens are issued when first asked for), or the hold passed to a new holder by a handoff.
   */
  volatile boolean fenceStale;

  private final AtomicInteger status = new AtomicInteger(HELD);
  private final AtomicBoolean renewing = new AtomicBoolean();
  private volatile String lostReason;
  private volatile long renewedAtNanos;
  private volatile long leaseEndNanos;

  /** Whether {@link #fencingToken} was made binding (see {@code LockBackend.confirmFence}). */
  volatile boolean fenceConfirmed;

  Hold(
      String name,
      LockKeys keys,
      String token,
      long fencingToken,
      Object grant,
      long acquiredAtNanos,
      long leaseEndNanos) {
    this.name = name;
    this.keys = keys;
    this.token = token;
    this.fencingToken = fencingToken;
    this.fenceStale = fencingToken == 0;
    this.grant = grant;
    this.acquiredAtNanos = acquiredAtNanos;
    this.renewedAtNanos = acquiredAtNanos;
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

  /** Claims the hold's one renewal in flight; {@code false} while another is running. */
  boolean beginRenewal() {
    return renewing.compareAndSet(false, true);
  }

  void endRenewal() {
    renewing.set(false);
  }

  /** When the lease was last set: the acquisition's or the last renewal's start. */
  long renewedAtNanos() {
    return renewedAtNanos;
  }

  /** A renewal that started at {@code startNanos} extended the lease until {@code endNanos}. */
  void extendedUntil(long startNanos, long endNanos) {
    renewedAtNanos = startNanos;
    leaseEndNanos = endNanos;
  }
}
