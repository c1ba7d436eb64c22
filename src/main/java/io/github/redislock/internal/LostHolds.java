package io.github.redislock.internal;

import io.github.redislock.LockLostException;
import java.util.HashMap;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * What becomes of a lost hold in this JVM. The moment a hold is marked lost, its holder's {@link
 * LocalLock} is {@linkplain LocalLock#revoke revoked}: the next local waiter may take the lock
 * without the former owner's {@code unlock()} (which the common guard {@code if
 * (lock.isHeldByCurrentThread()) lock.unlock();} skips), and {@code isHeldByCurrentThread()}
 * answers {@code false}. The former owner's next {@code unlock()} or acquisition of the name throws
 * {@link LockLostException}, once: the loss is recorded by thread and name until then. Records are
 * kept by thread weakly, so that a thread that never calls again leaves nothing once it ends.
 *
 * <p>In the shared mode (read locks) a revocation forgets the holder's {@link NameState.Share}, and
 * the loss is recorded and learnt of the same way. A family's shares have a {@code LostHolds} of
 * their own: the loss of a read hold is told to the next call on the read lock.
 *
 * <p>A revocation and its record are one step under this object's monitor, and so is every look-up,
 * and the taking of a handed-off hold: a former owner that finds its local lock revoked always
 * finds the record, and a hold lost while it is being taken is either revoked or seen lost by its
 * taker, never neither.
 */
public final class LostHolds {
  private final NameRegistry states;

  /** Whether these are the losses of shares: what its errors call the lock. */
  private final boolean shared;

  /** By thread, the names whose loss it has to learn of, with the reason. Guarded by this. */
  private final Map<Thread, Map<String, String>> byThread = new WeakHashMap<>();

  /** How many records there are, give or take those of ended threads: the fast path's check. */
  private volatile int size;

  /** The losses of the exclusive holds of the names of {@code states}. */
  public LostHolds(NameRegistry states) {
    this(states, false);
  }

  /**
   * The losses of the holds of the names of {@code states}: their shares when {@code shared}, else
   * their exclusive holds.
   */
  public LostHolds(NameRegistry states, boolean shared) {
    this.states = states;
    this.shared = shared;
  }

  /** A hold was marked lost: its holder, if any, gives up the local lock now. */
  void revoke(Hold hold) {
    NameState state = states.get(hold.name);
    if (state != null && revoke(state, hold)) {
      states.exit(state); // for the former owner, who is done with the name
    }
  }

  private synchronized boolean revoke(NameState state, Hold hold) {
    long epoch = hold.localEpoch();
    Thread owner = state.local.ownerOf(epoch);
    if (state.hold != hold || owner == null || !state.local.revoke(epoch)) {
      return false; // not taken by anyone yet, or released by its owner first
    }
    record(owner, state.name, hold);
    return true;
  }

  /** A share of {@code owner} was marked lost: it is forgotten now, as a revoked lock is. */
  void revokeShare(Hold hold, Thread owner) {
    NameState state = states.get(hold.name);
    if (state != null && revokeShare(state, hold, owner)) {
      states.exit(state); // for the former holder, who is done with the name
    }
  }

  private synchronized boolean revokeShare(NameState state, Hold hold, Thread owner) {
    NameState.Share share = state.shareOf(owner);
    if (share == null || share.hold != hold || !state.removeShare(owner, share)) {
      return false; // not recorded yet, or given back by its holder first
    }
    record(owner, state.name, hold);
    return true;
  }

  private synchronized void record(Thread owner, String name, Hold hold) {
    byThread.computeIfAbsent(owner, t -> new HashMap<>()).put(name, hold.lostReason());
    size++;
  }

  /**
   * The calling thread found its share lost before it was revoked: it gives it up itself.
   *
   * @return the {@link LockLostException} to throw
   */
  IllegalMonitorStateException dropShare(NameState state, NameState.Share share) {
    if (state.removeShare(Thread.currentThread(), share)) {
      states.exit(state);
      return new LockLostException(state.name, share.hold.lostReason());
    }
    return lostOrNotHeld(state.name, true); // revoked meanwhile
  }

  /** Whether the calling thread has a loss of {@code name} to learn of, without learning it. */
  boolean hasLoss(String name) {
    return size != 0 && peek(name) != null;
  }

  /**
   * The calling thread, owner of {@code state.local}, takes {@code hold}: a hold handed to it, or
   * one it just acquired.
   *
   * @return whether it holds it now; {@code false} when the hold was lost first
   */
  synchronized boolean take(NameState state, Hold hold) {
    hold.takenBy(state.local);
    if (hold.isLost()) {
      return false;
    }
    state.hold = hold;
    return true;
  }

  /**
   * The owner found its hold lost before it was revoked: it gives up the local lock itself.
   *
   * @return the {@link LockLostException} to throw
   */
  IllegalMonitorStateException drop(NameState state, Hold hold) {
    if (states.drop(state)) {
      return new LockLostException(state.name, hold.lostReason());
    }
    return lostOrNotHeld(state.name, true); // revoked meanwhile
  }

  /**
   * What to throw at a thread that does not own {@code name} locally: {@link LockLostException}
   * when it lost its hold of it, else {@link IllegalMonitorStateException}.
   *
   * @param learn whether the thread learns of the loss now (unlock, acquisition), so that it is not
   *     told again
   */
  IllegalMonitorStateException lostOrNotHeld(String name, boolean learn) {
    // No fast path on size here: a revocation makes the local lock revoked and then records the
    // loss, both under the monitor, and an owner that already sees its lock revoked may still
    // read the size from before the record. Taking the monitor waits for the record. This is the
    // error path (the thread does not own the lock), so the monitor costs nothing on the way of
    // a held lock.
    String reason = learn ? take(name) : peek(name);
    if (reason != null) {
      return new LockLostException(name, reason);
    }
    return new IllegalMonitorStateException(
        shared
            ? "the current thread does not hold the read lock of '" + name + "'"
            : "the current thread does not hold lock '" + name + "'");
  }

  /** The calling thread's loss of {@code name}, taken, or {@code null}: for acquisitions. */
  String learn(String name) {
    return size == 0 ? null : take(name);
  }

  private synchronized String take(String name) {
    Map<String, String> names = byThread.get(Thread.currentThread());
    if (names == null) {
      recount(); // the records of ended threads went with them
      return null;
    }
    String reason = names.remove(name);
    if (reason != null) {
      size--;
      if (names.isEmpty()) {
        byThread.remove(Thread.currentThread());
      }
    }
    return reason;
  }

  private synchronized String peek(String name) {
    Map<String, String> names = byThread.get(Thread.currentThread());
    return names == null ? null : names.get(name);
  }

  private void recount() {
    int count = 0;
    for (Map<String, String> names : byThread.values()) {
      count += names.size();
    }
    size = count;
  }
}
