package io.github.redislock.internal;

import io.github.redislock.internal.backend.Acquisition.Grant;
import io.github.redislock.internal.backend.LockKeys;
import io.github.redislock.internal.backend.Release;
import io.github.redislock.internal.kind.FencedKind;
import io.github.redislock.internal.kind.LockKind;
import io.github.redislock.internal.util.Ticker;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * One acquisition of a lock in Redis, from the first {@code lock()} to the last {@code unlock()} of
 * the owning thread (or of the threads it passed to by local handoff). Its status moves once, from
 * held to either releasing (by the owner) or lost (by the renewer or the factory's close);
 * whichever comes first wins, so a release never races a loss report.
 *
 * <p>It also owns its fencing token's state: issued with the acquisition or not yet, made binding
 * or not yet, and stale after a handoff (the new holder needs a token of its own). Only the thread
 * that holds the lock moves that state, through {@link #fencingToken}; other threads only read the
 * token for a loss report.
 */
public final class Hold {
  private static final int HELD = 0;
  private static final int RELEASING = 1;
  private static final int LOST = 2;

  /** The reason given when a hold outlived its maximum hold time and expired with its lease. */
  static final String MAX_HOLD_TIME =
      "max hold time reached: renewal stopped and the lease ran out";

  /** The reason given when a lease given with a call ran out. */
  static String leaseRanOut(long leaseNanos) {
    return "its lease of "
        + TimeUnit.NANOSECONDS.toMillis(leaseNanos)
        + " ms, given with the call, ran out (such a lease is not renewed)";
  }

  final LockKind kind;

  /**
   * Revokes the local lock (or share) of its holder when it is lost; {@code null} in unit tests.
   */
  private final Consumer<Hold> revokeLocally;

  public final String name;
  public final LockKeys keys;
  public final String token;
  final Grant grant;
  final long acquiredAtNanos;
  private final Ticker ticker;

  private final AtomicInteger status = new AtomicInteger(HELD);
  private final AtomicBoolean renewing = new AtomicBoolean();
  private volatile String lostReason;
  private volatile long renewedAtNanos;
  private volatile long leaseEndNanos;

  /** The current holder's fencing token, once {@link #fenceStale} is false. */
  private volatile long fencingToken;

  /**
   * Whether the current holder has no token of its own yet: none was issued with the acquisition
   * (tokens are issued when first asked for), or the hold passed to a new holder by a handoff.
   */
  private volatile boolean fenceStale;

  /**
   * The ownership of the name's {@link LocalLock} that holds this hold (see {@link
   * LocalLock#ownedEpoch()}): whoever takes the hold sets it, and a loss revokes that ownership.
   */
  private volatile long localEpoch = -1;

  /** Whether its holder was described beside the lock key (see {@link HolderDescriptions}). */
  private volatile boolean described;

  /** How long its current holder may keep it before renewal stops (see {@link #limitTo}). */
  private volatile Limit limit = Limit.NONE;

  /**
   * A holder's maximum hold time: renewal stops once it has held the hold {@code maxNanos} since
   * {@code sinceNanos}; {@code maxNanos} 0: no limit. One object, so that a reader never sees the
   * start of one holder's limit with the length of another's. {@code reason}: what a loss after it
   * is reported as.
   */
  private record Limit(long sinceNanos, long maxNanos, String reason) {
    static final Limit NONE = new Limit(0, 0, MAX_HOLD_TIME);
  }

  /** The lease given with the call that took it, not renewed; 0: the factory's, renewed. */
  private volatile long givenLeaseNanos;

  /** Whether {@link #fencingToken} was made binding (see {@code LockBackend.confirmFence}). */
  private volatile boolean fenceConfirmed;

  /** Signals given under this hold, sent with its release; the holding thread's alone. */
  private PendingSignals pendingSignals;

  public Hold(
      LockKind kind,
      Consumer<Hold> revokeLocally,
      String name,
      LockKeys keys,
      String token,
      long fencingToken,
      Grant grant,
      long acquiredAtNanos,
      long leaseEndNanos,
      Ticker ticker) {
    this.kind = kind;
    this.revokeLocally = revokeLocally;
    this.name = name;
    this.keys = keys;
    this.token = token;
    this.fencingToken = fencingToken;
    this.fenceStale = fencingToken == 0;
    this.grant = grant;
    this.acquiredAtNanos = acquiredAtNanos;
    this.renewedAtNanos = acquiredAtNanos;
    this.leaseEndNanos = leaseEndNanos;
    this.ticker = ticker;
  }

  /** Whether the hold is held and its lease, as last confirmed by Redis, has not run out. */
  boolean isValid() {
    return status.get() == HELD && ticker.read() - leaseEndNanos < 0;
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

  /** The calling thread, owner of {@code local}, holds this hold from now on. */
  void takenBy(LocalLock local) {
    localEpoch = local.ownedEpoch();
  }

  /** The hold was marked lost: its holder, if any, gives up the local lock now. */
  public void revokeLocally() {
    if (revokeLocally != null) {
      revokeLocally.accept(this);
    }
  }

  /** The ownership of the local lock that holds this hold; -1 before anyone took it. */
  long localEpoch() {
    return localEpoch;
  }

  /**
   * Limits how long this hold lasts: once it has been held {@code nanos} since its acquisition, it
   * is not renewed any more, and expires with its lease. Set before renewal starts.
   */
  void limitTo(long nanos) {
    limitTo(acquiredAtNanos, nanos);
  }

  /**
   * Limits how long the holder that got this hold at {@code sinceNanos} keeps it: once it has held
   * it {@code nanos}, it is not renewed any more (0: no limit). A thread that got the hold from
   * another (a local handoff, or a release that handed it the key) holds a new hold as far as it
   * can tell, so its own maximum counts from then, whatever its giver's was.
   */
  void limitTo(long sinceNanos, long nanos) {
    if (givenLeaseNanos == 0) {
      limit = new Limit(sinceNanos, nanos, MAX_HOLD_TIME);
    }
  }

  /**
   * From {@code sinceNanos} on, the hold is not renewed: it lasts the lease of {@code leaseNanos}
   * given with a call (an acquisition's, or a handle's {@code extend}), set in Redis from then, and
   * its loss when that runs out is reported as such. A limit set later ({@link #limitTo}, by a
   * handoff) does not undo it.
   */
  void leaseGiven(long sinceNanos, long leaseNanos) {
    givenLeaseNanos = leaseNanos;
    limit = new Limit(sinceNanos, 1, leaseRanOut(leaseNanos));
  }

  /** Whether its lease was given with a call, and is not renewed. */
  boolean isLeaseGiven() {
    return givenLeaseNanos != 0;
  }

  /** What a loss after the hold stopped being renewed is reported as. */
  String limitReason() {
    return limit.reason();
  }

  /** Whether this hold has lasted its maximum hold time at {@code nowNanos}: no more renewals. */
  boolean outlived(long nowNanos) {
    Limit current = limit;
    return current.maxNanos() > 0 && nowNanos - current.sinceNanos() - current.maxNanos() >= 0;
  }

  /** The signals its holder gave that travel with its release, or {@code null} when none. */
  public PendingSignals pendingSignals() {
    return pendingSignals;
  }

  /** The signals, made for {@code conditions} when the holder gives the first. */
  public PendingSignals pendingSignals(PendingSignals.Sender sender) {
    if (pendingSignals == null) {
      pendingSignals = new PendingSignals(sender);
    }
    return pendingSignals;
  }

  /** The pending signals, which the caller sends now: the hold has none afterwards. */
  public PendingSignals takePendingSignals() {
    PendingSignals taken = pendingSignals;
    pendingSignals = null;
    return taken;
  }

  /** Its holder was described beside the lock key. */
  void described() {
    described = true;
  }

  boolean isDescribed() {
    return described;
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

  // ---- fencing ----

  /**
   * The current holder's fencing token, binding: issued now if the holder has none of its own (it
   * was not issued with the acquisition, or the hold came by handoff), made binding now if it was
   * not yet. Called by the holding thread only.
   *
   * @param fencing the kind of the hold, which issues its tokens
   * @return the token, or {@code -1} when Redis says the hold is not ours any more
   */
  long fencingToken(FencedKind fencing) {
    if (fenceStale) {
      long fence = fencing.reissueFence(keys, token, grant);
      if (fence < 0) {
        return -1;
      }
      fencingToken = fence;
      fenceConfirmed = true;
      fenceStale = false;
    } else if (!fenceConfirmed) {
      if (!fencing.confirmFence(keys, token, fencingToken)) {
        return -1;
      }
      fenceConfirmed = true;
    }
    return fencingToken;
  }

  /** The hold passes to another thread of this JVM: that holder needs a token of its own. */
  void handedOff() {
    fenceStale = true;
  }

  /** Renews this hold's lease in Redis; {@code false} when it is not ours any more. */
  boolean extend() {
    return kind.extend(keys, token);
  }

  /** The owner's release of this hold in Redis; {@code released()} is false when not ours. */
  Release release() {
    return kind.release(keys, token, lastIssuedToken(), grant);
  }

  /** The token a release raises the counters to: the last one issued to this hold, or 0. */
  long lastIssuedToken() {
    return fencingToken;
  }

  /**
   * The token to report when the hold is lost: 0 when its current holder never got one. A token
   * issued with the acquisition but never asked for is not binding (under Redlock it may even be
   * above a later hold's), so it is not reported either.
   */
  long reportedToken() {
    return fenceStale || !fenceConfirmed ? 0 : fencingToken;
  }
}
