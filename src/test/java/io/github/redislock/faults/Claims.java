package io.github.redislock.faults;

import java.util.ArrayList;
import java.util.List;

/**
 * What may have kept a lock name busy, and when: the check behind "{@code tryLock()} returns false
 * only when someone holds the lock, or another thread of its JVM is acquiring it". Each hold claims
 * its name from the start of the call that took it to the end of its release; an acquisition that
 * did not acquire claims it from its start to a while after its end (its abandoned attempt may
 * still acquire and be released in the background, or, after a failure, leave its key for a lease).
 * A {@code tryLock()} that returned false is a refusal. A refusal that no claim of a conflicting
 * mode overlaps had no reason, unless another exclusive refusal of the same factory overlaps it:
 * that one held the name's local queue while it asked Redis, and a {@code tryLock()} returns false
 * at once while another thread of its JVM is acquiring (as its Javadoc says). Read attempts take no
 * local queue. Thread-safe.
 */
final class Claims {

  /** A time during which a name may have been held, in a mode. */
  record Claim(String name, boolean shared, long fromNanos, long toNanos, String what) {}

  /** A {@code tryLock()} that returned false, through {@code factory}. */
  record Refusal(
      String name, boolean shared, String factory, long fromNanos, long toNanos, String who) {

    /** Whether {@code other} may have held the local queue this refusal found taken. */
    boolean mayBeQueuedBehind(Refusal other) {
      return other != this
          && other.name.equals(name)
          && other.factory.equals(factory)
          && !shared
          && !other.shared
          && other.fromNanos < toNanos
          && other.toNanos > fromNanos;
    }
  }

  private final List<Claim> claims = new ArrayList<>(); // guarded by this
  private final List<Refusal> refusals = new ArrayList<>(); // guarded by this

  synchronized void claim(Claim c) {
    claims.add(c);
  }

  synchronized void refusal(Refusal r) {
    refusals.add(r);
  }

  /** The refusals that no conflicting claim overlaps; each is taken out of the record. */
  synchronized List<Refusal> takeUnexplained() {
    List<Refusal> unexplained = new ArrayList<>();
    for (Refusal r : refusals) {
      boolean explained = false;
      for (Claim c : claims) {
        if (c.name().equals(r.name())
            && !(c.shared() && r.shared())
            && c.fromNanos() < r.toNanos()
            && c.toNanos() > r.fromNanos()) {
          explained = true;
          break;
        }
      }
      for (int i = 0; !explained && i < refusals.size(); i++) {
        explained = r.mayBeQueuedBehind(refusals.get(i));
      }
      if (!explained) {
        unexplained.add(r);
      }
    }
    refusals.clear();
    return unexplained;
  }

  /**
   * The claims on {@code name} that end after {@code fromNanos} and start before {@code toNanos}.
   */
  synchronized List<Claim> near(String name, long fromNanos, long toNanos) {
    List<Claim> near = new ArrayList<>();
    for (Claim c : claims) {
      if (c.name().equals(name) && c.toNanos() > fromNanos && c.fromNanos() < toNanos) {
        near.add(c);
      }
    }
    return near;
  }
}
