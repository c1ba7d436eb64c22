package io.github.redislock.internal;

import io.github.redislock.LockHandle;
import io.github.redislock.LockLostException;
import io.github.redislock.RedisLockException;
import io.github.redislock.internal.backend.Release;
import io.github.redislock.internal.kind.FencedKind;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A hold that a handle owns: one {@link Hold} in Redis, released, re-leased and asked for its token
 * through this object by any thread. It moves once from held to released ({@link #ended}), by
 * whichever of {@code release}, {@code releaseAfter} and {@code close} comes first; a loss marks
 * its hold lost (the renewer, a fencing call, {@code extend}, close) and is told by the first of
 * them, once.
 */
final class HandleHold implements LockHandle {
  private static final Duration MAX_LEASE = Duration.ofDays(1);

  /** What a handle asks of the holds it belongs to. */
  interface Owner {
    void lose(Hold hold, String reason);

    /** Gives the hold a lease, not renewed; {@code false} when it is not ours. */
    boolean relet(Hold hold, long leaseNanos);

    /** Keeps a released hold in Redis a while; {@code false} when it is not ours. */
    boolean reletReleased(Hold hold, long delayNanos);

    Release releaseByOwner(Hold hold);

    /** The handle is done with its hold: released, or lost. */
    void forget(HandleHold handle);
  }

  private final Owner owner;
  final Hold hold;
  private final AtomicBoolean ended = new AtomicBoolean();

  HandleHold(Owner owner, Hold hold) {
    this.owner = owner;
    this.hold = hold;
  }

  @Override
  public String name() {
    return hold.name;
  }

  @Override
  public boolean isHeld() {
    return !ended.get() && hold.isValid();
  }

  @Override
  public synchronized long fencingToken() {
    if (ended.get()) {
      throw released();
    }
    if (!(hold.kind instanceof FencedKind fenced)) {
      throw new UnsupportedOperationException("a read lock's hold has no fencing token");
    }
    if (!hold.isValid()) {
      throw new LockLostException(hold.name, hold.lostReason());
    }
    fenced.fencingWanted();
    long token = hold.fencingToken(fenced);
    if (token < 0) {
      owner.lose(hold, LossReporter.NOT_OURS);
      throw new LockLostException(hold.name, hold.lostReason());
    }
    return token;
  }

  @Override
  public synchronized boolean extend(Duration lease) {
    long leaseNanos = checkLease(lease, "lease", 1);
    if (ended.get() || !hold.isHeld()) {
      return false;
    }
    if (!owner.relet(hold, leaseNanos)) {
      owner.lose(hold, LossReporter.NOT_OURS);
      return false;
    }
    return true;
  }

  @Override
  public void release() {
    if (!ended.compareAndSet(false, true)) {
      throw released();
    }
    if (!hold.beginRelease()) {
      owner.forget(this);
      throw new LockLostException(hold.name, hold.lostReason());
    }
    Release release;
    try {
      release = owner.releaseByOwner(hold);
    } finally {
      owner.forget(this);
    }
    if (!release.released()) {
      throw new LockLostException(hold.name, LossReporter.NOT_OURS + " before release");
    }
  }

  @Override
  public void releaseAfter(Duration delay) {
    Objects.requireNonNull(delay, "delay");
    if (delay.isNegative() || delay.isZero()) {
      release();
      return;
    }
    long delayNanos = checkLease(delay, "delay", 0);
    if (!ended.compareAndSet(false, true)) {
      throw released();
    }
    // Releasing: the renewer leaves it alone, and its expiry is no loss.
    if (!hold.beginRelease()) {
      owner.forget(this);
      throw new LockLostException(hold.name, hold.lostReason());
    }
    boolean ours;
    try {
      ours = owner.reletReleased(hold, delayNanos);
    } catch (RedisLockException e) {
      throw new RedisLockException(
          "the handle of lock '"
              + hold.name
              + "' was released in this JVM, but Redis could not keep the lock for "
              + TimeUnit.NANOSECONDS.toMillis(delayNanos)
              + " ms more; its key expires with the lease it had",
          e);
    } finally {
      owner.forget(this);
    }
    if (!ours) {
      throw new LockLostException(hold.name, LossReporter.NOT_OURS + " before releaseAfter");
    }
  }

  @Override
  public void close() {
    if (!ended.get()) {
      try {
        release();
      } catch (IllegalMonitorStateException e) {
        if (e instanceof LockLostException) {
          throw e;
        }
        // released by another thread meanwhile: closing a released handle does nothing
      }
    }
  }

  /** Whether the handle was released (or is being released). */
  boolean isEnded() {
    return ended.get();
  }

  private IllegalMonitorStateException released() {
    return new IllegalMonitorStateException(
        "this handle of lock '" + hold.name + "' was released already");
  }

  /** {@code lease} in nanoseconds, checked: at least {@code minMillis}, at most one day. */
  static long checkLease(Duration lease, String what, long minMillis) {
    Objects.requireNonNull(lease, what);
    if (lease.compareTo(Duration.ofMillis(minMillis)) < 0 || lease.compareTo(MAX_LEASE) > 0) {
      throw new IllegalArgumentException(
          what
              + " must be between "
              + Duration.ofMillis(minMillis)
              + " and "
              + MAX_LEASE
              + ", got "
              + lease);
    }
    return lease.toNanos();
  }

  @Override
  public String toString() {
    return "LockHandle[" + hold.name + (isHeld() ? ", held]" : ", not held]");
  }
}
