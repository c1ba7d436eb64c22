package io.github.redislock.internal;

import io.github.redislock.LockLostException;
import io.github.redislock.internal.backend.ReadWriteOps;
import io.github.redislock.internal.backend.Release;
import io.github.redislock.internal.kind.ReadKind;

/**
 * The shared mode of a family of locks: the read locks of a factory's read-write locks, on the
 * names of their write locks ({@link Mutexes}). A thread acquires through the family's {@link
 * Acquisitions} a share of its own ({@link NameState.Share}, a {@link Hold} of a {@link ReadKind}),
 * renewed by the {@link LeaseRenewer} and revoked when lost ({@link LostHolds}) like every hold.
 * Shares do not exclude each other, so readers do not queue locally, and the round trips of several
 * readers of one JVM run in parallel; only the first acquisition and the last release of a thread
 * reach Redis.
 */
public final class Shares {
  private final ReadWriteOps ops;
  private final NameRegistry states;
  private final Acquisitions acquisitions;
  private final Releases releases;
  private final Lifecycle lifecycle;
  private final LostHolds lost;

  public Shares(
      ReadWriteOps ops,
      NameRegistry states,
      Acquisitions acquisitions,
      Releases releases,
      Lifecycle lifecycle) {
    this.ops = ops;
    this.states = states;
    this.acquisitions = acquisitions;
    this.releases = releases;
    this.lifecycle = lifecycle;
    this.lost = new LostHolds(states, true);
  }

  /**
   * Acquires a share of {@code name} for the calling thread.
   *
   * @param mode how to wait; {@link Mode#ONCE} with {@code barge} is {@code tryLock()}, which takes
   *     a share whatever writers wait
   * @param writeHold the calling thread's write hold of the name (a downgrade), or {@code null}
   * @return whether the read lock was acquired
   */
  public boolean acquire(LockName name, Mode mode, long timeoutNanos, boolean barge, Hold writeHold)
      throws InterruptedException {
    return acquire(name, mode, timeoutNanos, barge, writeHold, 0);
  }

  /**
   * As {@link #acquire(LockName, Mode, long, boolean, Hold)}, with a lease of {@code leaseNanos}
   * given with the call, not renewed (0: the factory's); a reentrant acquisition keeps its share's.
   */
  public boolean acquire(
      LockName name, Mode mode, long timeoutNanos, boolean barge, Hold writeHold, long leaseNanos)
      throws InterruptedException {
    ReadWriteOps leased =
        leaseNanos == 0 ? ops : ops.withLease(Math.max(1, (leaseNanos + 999_999) / 1_000_000));
    ReadKind kind = new ReadKind(leased, writeHold == null ? "" : writeHold.token, barge);
    return acquisitions.acquireShared(name, mode, timeoutNanos, kind, lost, leaseNanos);
  }

  /** Releases one hold of the calling thread's share; the last gives the share back in Redis. */
  public void unlock(LockName name) {
    Thread thread = Thread.currentThread();
    NameState state = states.get(name.name);
    NameState.Share share = state == null ? null : state.shareOf(thread);
    if (share == null) {
      throw lost.lostOrNotHeld(name.name, true);
    }
    Hold hold = share.hold;
    if (hold.isLost()) {
      throw lost.dropShare(state, share);
    }
    if (share.count > 1) {
      share.count--;
      return;
    }
    if (!state.removeShare(thread, share)) {
      throw lost.lostOrNotHeld(name.name, true); // revoked meanwhile
    }
    states.exit(state);
    if (!hold.beginRelease()) {
      throw new LockLostException(name.name, hold.lostReason());
    }
    Release release = releases.byOwner(hold, null);
    if (!release.released()) {
      throw new LockLostException(name.name, "the read share expired or was removed before unlock");
    }
  }

  // ---- queries ----

  /** The calling thread's holds of its share of {@code name}; 0 once its share was lost. */
  public int holdCount(LockName name) {
    NameState state = states.get(name.name);
    NameState.Share share = state == null ? null : state.shareOf(Thread.currentThread());
    return share != null && share.hold.isValid() ? share.count : 0;
  }

  /**
   * Whether the calling thread holds a share of {@code name}, or held one and was not told yet that
   * it lost it.
   */
  public boolean isRecorded(LockName name) {
    NameState state = states.get(name.name);
    return (state != null && state.shareOf(Thread.currentThread()) != null)
        || lost.hasLoss(name.name);
  }

  /** The live shares of {@code name} in Redis, in every process. */
  public int readers(LockName name) {
    lifecycle.checkOpen();
    return ops.readers(name.keys);
  }
}
