package io.github.redislock.internal;

import io.github.redislock.LockLostException;
import io.github.redislock.RedisLockException;
import io.github.redislock.internal.backend.LockKeys;
import io.github.redislock.internal.backend.ReadWriteOps;
import io.github.redislock.internal.backend.Release;
import io.github.redislock.internal.kind.FencedKind;
import io.github.redislock.internal.kind.LockKind;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The {@code Lock} operations of one family of mutually exclusive locks of a factory (the plain
 * locks, or the fair ones), written once for every backend: reentrancy counted in the JVM, a
 * JVM-local queue per name (only its head talks to Redis), and the names in use. A family's {@link
 * Policy} says what differs: the kind of lock in Redis, whether a hold may pass to the next local
 * waiter without a release, whether the local queue is first come, first served.
 *
 * <p>Everything here is keyed by lock name; {@code RedisDistributedLock} forwards to it with the
 * calling thread.
 */
public final class Mutexes {
  private static final long MAX_TIMEOUT_NANOS = Long.MAX_VALUE / 4;

  /**
   * What a family of locks does its own way.
   *
   * @param kind what its locks do in Redis
   * @param handOff whether an unlock may pass the hold to the next local waiter
   * @param firstComeFirstServed whether waiters are served in their order of arrival: the local
   *     queue (else it lets an arriving thread barge, as a non-fair {@code ReentrantLock} does),
   *     and a queue in Redis that gives turns between processes (else a release that others waited
   *     for makes this JVM's next attempt give way, see {@link Turns})
   */
  public record Policy(FencedKind kind, boolean handOff, boolean firstComeFirstServed) {}

  private final Policy policy;
  private final FencedKind kind;
  private final LockNames names;
  private final NameRegistry states;
  private final LostHolds lost;
  private final Acquisitions acquisitions;
  private final Releases releases;
  private final LocalHandoff handoff;
  private final Turns turns;
  private final LossReporter losses;
  private final ObjectHolds handles;

  /**
   * A family of locks.
   *
   * @param names the factory's lock names
   * @param states the family's names
   * @param lost the losses of the family's holds
   * @param acquisitions how the family's threads come to hold its names
   */
  public Mutexes(
      Policy policy,
      LockNames names,
      NameRegistry states,
      LostHolds lost,
      Acquisitions acquisitions,
      Releases releases,
      LocalHandoff handoff,
      Turns turns,
      LossReporter losses,
      ObjectHolds handles) {
    this.policy = policy;
    this.handles = handles;
    this.kind = policy.kind();
    this.names = names;
    this.states = states;
    this.lost = lost;
    this.acquisitions = acquisitions;
    this.releases = releases;
    this.handoff = handoff;
    this.turns = turns;
    this.losses = losses;
  }

  /**
   * The shared mode of this family's names (the read locks beside its write locks): on the same
   * names, and through the same acquisitions.
   */
  public Shares shares(ReadWriteOps ops, Lifecycle lifecycle) {
    return new Shares(ops, states, acquisitions, releases, lifecycle);
  }

  /**
   * Checks that {@code name} may name a lock: its key (the key prefix applied) must not be one that
   * another lock keeps beside its own ({@link LockKeys#checkLockKey}).
   *
   * @throws IllegalArgumentException if it may not
   */
  public void checkName(String name) {
    names.check(name);
  }

  /** The name {@code name} of this engine's locks, with its keys (the key prefix applied). */
  public LockName lockName(String name) {
    return names.of(name);
  }

  // ---- Lock ----

  public void lock(LockName name) {
    try {
      acquisitions.acquire(name, Mode.UNINTERRUPTIBLE, 0);
    } catch (InterruptedException e) {
      throw new AssertionError("lock() does not throw InterruptedException", e);
    }
  }

  public void lockInterruptibly(LockName name) throws InterruptedException {
    acquisitions.acquire(name, Mode.INTERRUPTIBLE, 0);
  }

  public boolean tryLock(LockName name) {
    try {
      return acquisitions.acquire(name, Mode.ONCE, 0);
    } catch (InterruptedException e) {
      throw new AssertionError("tryLock() does not throw InterruptedException", e);
    }
  }

  public boolean tryLock(LockName name, long timeoutNanos) throws InterruptedException {
    if (timeoutNanos <= 0) {
      if (Thread.interrupted()) {
        throw new InterruptedException();
      }
      return acquisitions.acquire(name, Mode.ONCE_IN_TURN, 0);
    }
    return acquisitions.acquire(name, Mode.TIMED, Math.min(timeoutNanos, MAX_TIMEOUT_NANOS));
  }

  /** {@code lock()} with a lease of {@code leaseNanos}, not renewed. */
  public void lock(LockName name, long leaseNanos) {
    try {
      acquisitions.acquire(name, Mode.UNINTERRUPTIBLE, 0, leaseNanos);
    } catch (InterruptedException e) {
      throw new AssertionError("lock() does not throw InterruptedException", e);
    }
  }

  /** {@code tryLock(timeout)} with a lease of {@code leaseNanos}, not renewed. */
  public boolean tryLock(LockName name, long timeoutNanos, long leaseNanos)
      throws InterruptedException {
    if (timeoutNanos <= 0) {
      if (Thread.interrupted()) {
        throw new InterruptedException();
      }
      return acquisitions.acquire(name, Mode.ONCE_IN_TURN, 0, leaseNanos);
    }
    return acquisitions.acquire(
        name, Mode.TIMED, Math.min(timeoutNanos, MAX_TIMEOUT_NANOS), leaseNanos);
  }

  /** The holds of this family that handles own. */
  public ObjectHolds handles() {
    return handles;
  }

  public void unlock(LockName lockName) {
    String name = lockName.name;
    NameState state = states.get(name);
    if (state == null || !state.local.isHeldByCurrentThread()) {
      throw lost.lostOrNotHeld(name, true);
    }
    Hold hold = state.hold;
    if (hold.isLost()) {
      throw lost.drop(state, hold);
    }
    if (state.local.getHoldCount() > 1) {
      if (!state.local.unlockOnce()) {
        throw lost.lostOrNotHeld(name, true);
      }
      return;
    }
    PendingSignals signals = hold.pendingSignals();
    if (signals != null) { // they go with the release: no local handoff
      release(state, hold, h -> signals.release(), "unlock");
      return;
    }
    if (policy.handOff() && !hold.isLeaseGiven() && handoff.mayHandOff(state, hold)) {
      if (!handoff.handOff(state, hold)) {
        throw lost.lostOrNotHeld(name, true);
      }
      states.exit(state);
      return;
    }
    release(state, hold, null, "unlock");
  }

  /**
   * The owner releases {@code hold}, whatever its count, in Redis ({@code how}, or when {@code
   * null} its kind's release, retried), and locally.
   */
  private void release(NameState state, Hold hold, Function<Hold, Release> how, String call) {
    if (!hold.beginRelease()) {
      throw lost.drop(state, hold);
    }
    Release release;
    try {
      release = releases.byOwner(hold, how);
    } catch (RedisLockException e) {
      states.drop(state);
      throw e;
    }
    // Recorded before the local queue moves on, so that the next local holder sees it. A family
    // whose waiters queue in Redis owes no yield: the queue gives the turns, and a waiter giving
    // way would not be queued meanwhile (a later waiter of another process would pass it).
    if (!policy.firstComeFirstServed()) {
      turns.released(state.name, state.keys, release);
    }
    states.drop(state);
    if (!release.released()) {
      throw new LockLostException(state.name, LossReporter.NOT_OURS + " before " + call);
    }
  }

  // ---- for conditions ----

  /**
   * For an await: the calling thread gives up every hold of {@code name}, in Redis by {@code how}
   * (which also enqueues it) and locally.
   *
   * @return the hold count it had, to {@linkplain #reacquire restore}
   */
  public int releaseAll(LockName name, Function<Hold, Release> how) {
    NameState state = states.get(name.name);
    if (state == null || !state.local.isHeldByCurrentThread()) {
      throw lost.lostOrNotHeld(name.name, true);
    }
    Hold hold = state.hold;
    if (hold.isLost()) {
      throw lost.drop(state, hold);
    }
    int holds = state.local.getHoldCount();
    release(state, hold, how, "await");
    return holds;
  }

  /**
   * After an await: acquires {@code name} again, uninterruptibly, with {@code holds} holds. It does
   * not give way to other processes for the await's release (see {@link Turns}): a signalled
   * awaiter was woken to take the lock, usually by the release that freed it, whose message it
   * would otherwise wait for in vain.
   */
  public void reacquire(LockName name, int holds) {
    turns.takeYieldNanos(name.name);
    lock(name);
    restoreHolds(name, holds);
  }

  /** The calling thread, holding {@code name} once, holds it {@code holds} times. */
  private void restoreHolds(LockName name, int holds) {
    NameState state = states.get(name.name);
    for (int i = 1; i < holds; i++) {
      if (!state.local.reenter()) {
        throw lost.lostOrNotHeld(name.name, true);
      }
    }
  }

  /**
   * After an await whose signal's release handed the lock to {@code token}: takes that hold, with
   * {@code holds} holds, if the calling thread can take the local lock at once (see {@link
   * Acquisitions#takeHanded}).
   */
  public boolean takeHanded(LockName name, int holds, String token, long startNanos) {
    if (!acquisitions.takeHanded(name, token, startNanos)) {
      return false;
    }
    restoreHolds(name, holds);
    return true;
  }

  /**
   * The calling thread's valid hold of {@code name}.
   *
   * @throws IllegalMonitorStateException if it holds none ({@code LockLostException}: it was lost)
   */
  public Hold heldHold(LockName lockName) {
    String name = lockName.name;
    NameState state = states.get(name);
    if (state == null || !state.local.isHeldByCurrentThread()) {
      throw lost.lostOrNotHeld(name, false);
    }
    Hold hold = state.hold;
    if (!hold.isValid()) {
      throw new LockLostException(name, hold.lostReason());
    }
    return hold;
  }

  /** What this family's locks do in Redis. */
  public LockKind kind() {
    return kind;
  }

  // ---- queries ----

  public boolean isHeldByCurrentThread(LockName name) {
    NameState state = states.get(name.name);
    if (state == null || !state.local.isHeldByCurrentThread()) {
      return false;
    }
    Hold hold = state.hold;
    return hold != null && hold.isValid();
  }

  public int getHoldCount(LockName name) {
    NameState state = states.get(name.name);
    return isHeldByCurrentThread(name) ? state.local.getHoldCount() : 0;
  }

  public boolean isLocked(LockName name) {
    return names.isLocked(name);
  }

  public long getFencingToken(LockName lockName) {
    Hold hold = heldHold(lockName);
    kind.fencingWanted();
    long token = hold.fencingToken(kind);
    if (token < 0) {
      losses.lose(hold, LossReporter.NOT_OURS);
      throw new LockLostException(lockName.name, hold.lostReason());
    }
    return token;
  }

  /** The calling thread's hold of {@code name}, or {@code null} when it holds none. */
  public Hold currentHold(LockName name) {
    NameState state = states.get(name.name);
    return state != null && state.local.isHeldByCurrentThread() ? state.hold : null;
  }

  /** Every hold of this family: held, handed off, or lost but not returned. */
  public void forEachHold(Consumer<Hold> action) {
    states.forEachHold(action);
    handles.forEachHold(action);
  }

  /**
   * Wakes the threads queued locally once the factory is closed, and gives up the places its
   * waiters keep in Redis queues.
   */
  public void wakeQueuedAfterClose() {
    states.all().forEach(state -> state.local.wakeQueuedAfterClose());
    handles.close();
    kind.closing();
  }

  /** Adds the names some thread of this JVM holds or waits to acquire to {@code names}. */
  public void namesInUse(Set<String> names) {
    states.all().forEach(state -> names.add(state.name));
    handles.namesInUse(names);
  }

  /**
   * Threads of this JVM waiting to acquire {@code name}: those queued locally, and the local
   * queue's owner while it has no hold yet (it waits for Redis). An estimate: no thread stops for
   * it.
   */
  public int getQueueLength(LockName name) {
    NameState state = states.get(name.name);
    if (state == null) {
      return 0;
    }
    int queued = state.local.getQueueLength();
    return state.local.isLocked() && state.hold == null ? queued + 1 : queued;
  }
}
