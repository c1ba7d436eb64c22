package io.github.redislock.internal;

import io.github.redislock.LockLostException;
import io.github.redislock.internal.Waits.RedisWait;
import io.github.redislock.internal.backend.Acquisition;
import io.github.redislock.internal.kind.Attempts;
import io.github.redislock.internal.kind.LockKind;
import java.util.function.Consumer;

/**
 * How a thread of one family of locks ({@link Mutexes}) comes to hold a name, in either mode. In
 * the exclusive mode: by reentry, through the name's local queue and then a hold handed over
 * locally or an acquisition in Redis ({@link RedisWait}), or, after an await, by taking the hold a
 * signal's release handed it in Redis. In the shared mode (read locks): by reentry of the thread's
 * share, or an acquisition in Redis of a share of its own, without a local queue (shares do not
 * exclude each other; Redis orders them with the exclusive holds). Each way ends with the hold
 * published for its thread, renewed, and counted; the kind of lock ({@link LockKind}) is all that
 * differs in Redis.
 */
public final class Acquisitions {
  private final LockKind kind;
  private final NameRegistry states;
  private final LostHolds lost;
  private final Holds holds;
  private final Waits waits;
  private final LocalHandoff handoff;
  private final Turns turns;
  private final Telemetry telemetry;

  /** The kind for a lease given per call. */
  private final java.util.function.LongFunction<LockKind> leasedKinds;

  /**
   * The acquisitions of one family of locks.
   *
   * @param kind what the family's exclusive holds are in Redis
   * @param states the family's names
   * @param lost the losses of its exclusive holds
   */
  public Acquisitions(
      LockKind kind,
      NameRegistry states,
      LostHolds lost,
      Holds holds,
      Waits waits,
      LocalHandoff handoff,
      Turns turns,
      Telemetry telemetry,
      java.util.function.LongFunction<LockKind> leasedKinds) {
    this.kind = kind;
    this.leasedKinds = leasedKinds;
    this.states = states;
    this.lost = lost;
    this.holds = holds;
    this.waits = waits;
    this.handoff = handoff;
    this.turns = turns;
    this.telemetry = telemetry;
  }

  /**
   * After an await whose signal came with the lock (the release that signalled it handed the key to
   * {@code token}): the calling thread takes that hold, if it can take the local lock at once. Its
   * lease counts from {@code startNanos}, before the last call that renewed the awaiter's entry,
   * whose end the handed key keeps; its maximum hold time counts from now, when the thread gets it.
   *
   * @return {@code false} when another thread of this JVM owns the local lock (it may be waiting
   *     for Redis, where only a release would wake it) or the lease is gone: the caller gives the
   *     hold back and takes the lock as any thread does
   */
  boolean takeHanded(LockName name, String token, long startNanos) {
    turns.takeYieldNanos(name.name);
    if (holds.expired(startNanos)) {
      return false;
    }
    NameState state = states.enter(name);
    if (!state.local.tryLock()) {
      states.exit(state);
      return false; // not an acquisition: the caller's re-acquisition is recorded as one
    }
    Telemetry.Acquiring seen = telemetry.acquiring();
    boolean installed = false;
    try {
      // A hold passed on locally and not taken yet is stale: the key holds the handed token.
      Hold previous = handoff.take(state);
      if (previous != null) {
        holds.discard(previous);
      }
      install(state, name, token, Acquisition.acquired(0), startNanos, holds.now());
      installed = true;
    } finally {
      if (seen != null) {
        telemetry.acquisitionEnded(seen, name.name, kind, Mode.UNINTERRUPTIBLE, installed, null);
      }
      if (!installed && state.local.unlockAll()) {
        states.exit(state);
      }
    }
    return true;
  }

  /**
   * The calling thread acquires {@code name} in {@code mode} (within {@code timeoutNanos} when
   * {@code TIMED}): the {@code Lock} methods of {@link Mutexes} all come here.
   *
   * @return whether it holds the lock now
   */
  boolean acquire(LockName name, Mode mode, long timeoutNanos) throws InterruptedException {
    return acquire(name, mode, timeoutNanos, 0);
  }

  /**
   * As {@link #acquire(LockName, Mode, long)}, with a lease of {@code leaseNanos} given with the
   * call (0: the factory's): a new hold gets it, not renewed; a reentrant acquisition keeps its
   * hold's.
   */
  boolean acquire(LockName name, Mode mode, long timeoutNanos, long leaseNanos)
      throws InterruptedException {
    long deadline = begin(name, mode, timeoutNanos, lost);
    NameState current = states.get(name.name);
    if (current != null && current.local.isHeldByCurrentThread()) {
      return reenter(current);
    }
    Telemetry.Acquiring seen = telemetry.acquiring(); // null: nothing records it
    NameState state = states.enter(name);
    boolean owned = false;
    boolean acquired = false;
    Throwable failure = null;
    try {
      owned = queueLocally(state, mode, timeoutNanos);
      acquired =
          owned
              && (takeHandOff(state, name, leaseNanos)
                  || acquireInRedis(state, name, mode, deadline, seen, leaseNanos));
      return acquired;
    } catch (Throwable e) {
      failure = e;
      throw e;
    } finally {
      if (seen != null) {
        telemetry.acquisitionEnded(seen, name.name, kind, mode, acquired, failure);
      }
      if (!acquired) {
        // A hold published and then lost (the factory closing) was revoked, and exited for us.
        boolean exited = owned && !state.local.unlockAll();
        if (exited) {
          lost.learn(name.name); // nobody held it as far as the caller knows
        }
        handoff.releaseOrphan(state);
        if (!exited) {
          states.exit(state);
        }
      }
    }
  }

  /**
   * The calling thread acquires a share of {@code name} in {@code mode} (within {@code
   * timeoutNanos} when {@code TIMED}), taken in Redis as {@code shareKind} says: the read locks
   * come here.
   *
   * @param lostShares the losses of the family's shares
   * @return whether it holds a share now
   */
  boolean acquireShared(
      LockName name,
      Mode mode,
      long timeoutNanos,
      LockKind shareKind,
      LostHolds lostShares,
      long leaseNanos)
      throws InterruptedException {
    long deadline = begin(name, mode, timeoutNanos, lostShares);
    Thread thread = Thread.currentThread();
    NameState current = states.get(name.name);
    NameState.Share held = current == null ? null : current.shareOf(thread);
    if (held != null) {
      return reenterShare(current, held, lostShares);
    }
    Telemetry.Acquiring seen = telemetry.acquiring(); // null: nothing records it
    NameState state = states.enter(name);
    boolean acquired = false;
    Throwable failure = null;
    try {
      RedisWait wait =
          waits
              .wait(
                  state.name,
                  state.keys,
                  shareKind.forWait(mode == Mode.ONCE),
                  mode,
                  deadline,
                  holds.validNanos(leaseNanos))
              .watchedBy(seen);
      acquired =
          wait.run() && installShare(state, name, shareKind, wait, thread, lostShares, leaseNanos);
      return acquired;
    } catch (Throwable e) {
      failure = e;
      throw e;
    } finally {
      if (seen != null) {
        telemetry.acquisitionEnded(seen, name.name, shareKind, mode, acquired, failure);
      }
      if (!acquired) {
        states.exit(state);
      }
    }
  }

  /**
   * What every acquisition checks first: the factory is open, the thread not interrupted (when the
   * mode says so), and it has no loss of the name to learn of.
   *
   * @return the deadline
   */
  private long begin(LockName name, Mode mode, long timeoutNanos, LostHolds losses)
      throws InterruptedException {
    long deadline = waits.begin(mode, timeoutNanos);
    String lostReason = losses.learn(name.name);
    if (lostReason != null) {
      throw new LockLostException(name.name, lostReason);
    }
    return deadline;
  }

  private static boolean reenterShare(
      NameState state, NameState.Share share, LostHolds lostShares) {
    if (share.hold.isLost()) {
      throw lostShares.dropShare(state, share);
    }
    if (share.count == Integer.MAX_VALUE) {
      throw new Error("Maximum lock count exceeded");
    }
    share.count++;
    return true;
  }

  private boolean reenter(NameState state) {
    Hold hold = state.hold;
    if (hold.isLost()) {
      throw lost.drop(state, hold);
    }
    if (!state.local.reenter()) {
      throw lost.lostOrNotHeld(state.name, true);
    }
    return true;
  }

  private static boolean queueLocally(NameState state, Mode mode, long timeoutNanos)
      throws InterruptedException {
    return switch (mode) {
      case ONCE -> state.local.tryLock();
      case ONCE_IN_TURN -> state.local.tryLock(0);
      case TIMED -> state.local.tryLock(timeoutNanos);
      case INTERRUPTIBLE -> {
        state.local.lockInterruptibly();
        yield true;
      }
      case UNINTERRUPTIBLE -> {
        state.local.lock();
        yield true;
      }
    };
  }

  /**
   * Takes the hold the previous owner handed off, if any. For this thread it is a new hold (as its
   * fencing token is its own, see {@link Hold#handedOff}): the maximum hold time of the lock object
   * it acquires through applies, counted from now, set before the hold is published.
   */
  private boolean takeHandOff(NameState state, LockName name, long leaseNanos) {
    Hold handed = handoff.take(state);
    if (handed == null) {
      return false;
    }
    handed.limitTo(holds.now(), holds.maxHoldNanos(name));
    if (!lost.take(state, handed)) {
      return false;
    }
    if (leaseNanos > 0 && !holds.relet(handed, leasedKinds.apply(leaseNanos), leaseNanos)) {
      // The key was not the handed hold's any more: lost, as a renewal would have found it.
      throw lost.drop(state, handed);
    }
    return true;
  }

  private boolean acquireInRedis(
      NameState state,
      LockName name,
      Mode mode,
      long deadline,
      Telemetry.Acquiring seen,
      long leaseNanos)
      throws InterruptedException {
    LockKind holdKind = leaseNanos > 0 ? leasedKinds.apply(leaseNanos) : kind;
    Attempts waiting =
        mode == Mode.ONCE_IN_TURN
            ? holdKind.forAttemptInTurn()
            : holdKind.forWait(mode == Mode.ONCE);
    RedisWait wait =
        waits
            .wait(state.name, state.keys, waiting, mode, deadline, holds.validNanos(leaseNanos))
            .watchedBy(seen);
    if (!wait.run()) {
      return false;
    }
    long start = wait.attemptStart();
    if (leaseNanos > 0) {
      Hold hold =
          holds.newHold(
              holdKind, lost::revoke, name, wait.token(), wait.granted(), start, leaseNanos);
      publish(state, hold);
      return true;
    }
    install(state, name, wait.token(), wait.granted(), start, start);
    return true;
  }

  /**
   * Publishes a hold for the calling thread: its lease counts from {@code startNanos}, its maximum
   * hold time from {@code heldSinceNanos}.
   */
  private void install(
      NameState state,
      LockName name,
      String token,
      Acquisition granted,
      long startNanos,
      long heldSinceNanos) {
    publish(
        state,
        holds.newHold(kind, lost::revoke, state, name, token, granted, startNanos, heldSinceNanos));
  }

  /** Publishes {@code hold}, just acquired in Redis, for the calling thread, and renews it. */
  private void publish(NameState state, Hold hold) {
    handoff.acquiredInRedis(state);
    hold.takenBy(state.local); // before it is published, so that a loss can revoke it
    state.hold = hold;
    holds.renew(hold, () -> state.hold = null);
    holds.describe(hold);
  }

  /**
   * Publishes the share {@code wait} acquired for {@code thread}, and renews it. Shares are not
   * described beside the lock key: it describes the writer.
   *
   * @return {@code true}; throws {@link IllegalStateException} when the factory closed meanwhile
   */
  private boolean installShare(
      NameState state,
      LockName name,
      LockKind shareKind,
      RedisWait wait,
      Thread thread,
      LostHolds lostShares,
      long leaseNanos) {
    long start = wait.attemptStart();
    Consumer<Hold> revoke = h -> lostShares.revokeShare(h, thread);
    Hold hold =
        leaseNanos > 0
            ? holds.newHold(
                shareKind, revoke, name, wait.token(), wait.granted(), start, leaseNanos)
            : holds.newHold(
                shareKind, revoke, state, name, wait.token(), wait.granted(), start, start);
    NameState.Share share = new NameState.Share(hold);
    state.addShare(thread, share);
    holds.renew(hold, () -> state.removeShare(thread, share));
    return true;
  }
}
