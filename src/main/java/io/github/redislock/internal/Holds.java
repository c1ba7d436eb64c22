package io.github.redislock.internal;

import io.github.redislock.internal.backend.Acquisition;
import io.github.redislock.internal.kind.LockKind;
import io.github.redislock.internal.util.Ticker;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * The making of a factory's holds: a {@link Hold} for what an acquisition got, its lease counted
 * from the attempt that got it and its holder's maximum hold time; its renewal started once it is
 * published; its holder described beside the lock key (when enabled).
 */
public final class Holds {
  private final Ticker ticker;
  private final long validNanos;
  private final long maxHoldNanos;
  private final LeaseRenewer renewer;
  private final Releases releases;
  private final Lifecycle lifecycle;
  private final HolderDescriptions holders;

  /** Whether the backend allows for clock drift (Redlock): then so do leases given per call. */
  private final boolean drifts;

  /** Reports a given lease's end when it comes; {@code null}: the renewer's next tick does. */
  private Timer timer;

  private LossReporter losses;

  /**
   * @param validNanos how long a hold counts as held after its acquisition or renewal started: the
   *     lease less the backend's drift allowance
   * @param maxHoldNanos the factory's maximum hold time, 0 for none
   */
  public Holds(
      Ticker ticker,
      long validNanos,
      long maxHoldNanos,
      LeaseRenewer renewer,
      Releases releases,
      Lifecycle lifecycle,
      HolderDescriptions holders,
      boolean drifts) {
    this.ticker = ticker;
    this.validNanos = validNanos;
    this.maxHoldNanos = maxHoldNanos;
    this.renewer = renewer;
    this.releases = releases;
    this.lifecycle = lifecycle;
    this.holders = holders;
    this.drifts = drifts;
  }

  /**
   * How long a hold of a lease of {@code leaseNanos} given with a call counts as held after the
   * attempt that set it started: the lease, less the backend's allowance for clock drift where it
   * has one (Redlock's: 1% of the lease and 2 ms).
   */
  long validNanos(long leaseNanos) {
    if (leaseNanos == 0) {
      return validNanos;
    }
    return drifts ? leaseNanos - leaseNanos / 100 - TimeUnit.MILLISECONDS.toNanos(2) : leaseNanos;
  }

  /**
   * Gives {@code hold} a lease of {@code leaseNanos} from now, set in Redis by {@code leased} (its
   * kind for that lease), not renewed from then on. Waits for a renewal in flight to end first, so
   * that its lease does not overwrite this one.
   *
   * @return {@code false} when the hold is not ours any more (the caller reports the loss)
   * @throws io.github.redislock.RedisLockException when Redis failed: the hold is renewed as before
   */
  boolean relet(Hold hold, LockKind leased, long leaseNanos) {
    while (!hold.beginRenewal()) {
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
    }
    try {
      long start = ticker.read();
      if (!leased.extend(hold.keys, hold.token)) {
        return false;
      }
      boolean watched = hold.isLeaseGiven();
      hold.leaseGiven(start, leaseNanos);
      hold.extendedUntil(start, start + validNanos(leaseNanos));
      if (!watched) {
        watchGivenLease(hold); // a watch already set reschedules itself for the new end
      }
      return true;
    } finally {
      hold.endRenewal();
    }
  }

  /**
   * Reports the holds whose lease was given with a call as lost when it ends, on {@code timer}, as
   * soon as it does, rather than at the renewer's next tick (up to a sixth of the factory's lease
   * later). Set once, before any hold is made.
   */
  public void reportGivenLeasesOn(Timer timer, LossReporter losses) {
    this.timer = timer;
    this.losses = losses;
  }

  /** Reports {@code hold}, of a lease given with a call, lost once that lease has run out. */
  void watchGivenLease(Hold hold) {
    Timer reporter = timer;
    if (reporter == null || !hold.isLeaseGiven()) {
      return;
    }
    try {
      var unused =
          reporter.schedule(() -> givenLeaseDue(hold), hold.leaseEndNanos() - ticker.read());
    } catch (java.util.concurrent.RejectedExecutionException e) {
      // closing: the close reports every hold still held
    }
  }

  private void givenLeaseDue(Hold hold) {
    if (!hold.isHeld()) {
      return;
    }
    if (ticker.read() - hold.leaseEndNanos() >= 0) {
      losses.lose(hold, hold.limitReason());
    } else {
      watchGivenLease(hold); // given a new lease meanwhile
    }
  }

  Ticker ticker() {
    return ticker;
  }

  Releases releases() {
    return releases;
  }

  Lifecycle lifecycle() {
    return lifecycle;
  }

  /** Now, on the clock of leases. */
  long now() {
    return ticker.read();
  }

  /** Whether a lease that started at {@code startNanos} has run out (less the drift allowance). */
  boolean expired(long startNanos) {
    return ticker.read() - startNanos >= validNanos;
  }

  /**
   * A hold of {@code state}'s name as {@code kind}, revoked by {@code revoke} when lost: its lease
   * counts from {@code startNanos}, its maximum hold time (that of {@code name}'s lock object, else
   * the factory's) from {@code heldSinceNanos}.
   */
  Hold newHold(
      LockKind kind,
      Consumer<Hold> revoke,
      NameState state,
      LockName name,
      String token,
      Acquisition granted,
      long startNanos,
      long heldSinceNanos) {
    Hold hold =
        new Hold(
            kind,
            revoke,
            state.name,
            state.keys,
            token,
            granted.fencingToken(),
            granted.grant(),
            startNanos,
            startNanos + validNanos,
            ticker);
    hold.limitTo(heldSinceNanos, maxHoldNanos(name));
    return hold;
  }

  /**
   * A hold of {@code name} as {@code kind} for a handle, revoked by {@code revoke} when lost: its
   * lease ({@code leaseNanos} given with the call, not renewed; 0: the factory's, renewed) counts
   * from {@code startNanos}, as does its maximum hold time.
   */
  Hold newHold(
      LockKind kind,
      Consumer<Hold> revoke,
      LockName name,
      String token,
      Acquisition granted,
      long startNanos,
      long leaseNanos) {
    Hold hold =
        new Hold(
            kind,
            revoke,
            name.name,
            name.keys,
            token,
            granted.fencingToken(),
            granted.grant(),
            startNanos,
            startNanos + validNanos(leaseNanos),
            ticker);
    if (leaseNanos > 0) {
      hold.leaseGiven(startNanos, leaseNanos);
    } else {
      hold.limitTo(startNanos, maxHoldNanos(name));
    }
    return hold;
  }

  /** The maximum hold time of {@code name}'s holds: its lock object's, else the factory's. */
  long maxHoldNanos(LockName name) {
    return name.maxHoldNanos >= 0 ? name.maxHoldNanos : maxHoldNanos;
  }

  /**
   * Starts renewing {@code hold}, just published. When the factory closed meanwhile, {@code
   * unpublish} takes it back, it is released in the background, and the closed factory's {@link
   * IllegalStateException} is thrown.
   */
  void renew(Hold hold, Runnable unpublish) {
    if (!renewer.start(hold)) {
      unpublish.run();
      releases.releaseLater(hold);
      lifecycle.checkOpen();
    }
    watchGivenLease(hold);
  }

  /** A hold nobody will take: released in the background. */
  void discard(Hold hold) {
    releases.releaseLater(hold);
  }

  /** Describes the holder of {@code hold} beside the lock key, when the factory does. */
  void describe(Hold hold) {
    holders.acquired(hold);
  }

  /** Describes the holder of {@code hold}, a handle rather than a thread, when the factory does. */
  void describeHandle(Hold hold) {
    holders.acquired(hold, "LockHandle");
  }
}
