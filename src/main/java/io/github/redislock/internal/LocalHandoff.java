package io.github.redislock.internal;

import io.github.redislock.internal.util.Ticker;
import java.util.concurrent.TimeUnit;

/**
 * Local handoff. When the last unlock finds other threads of this JVM queued for the name, the
 * Redis hold (its key, token and renewal) passes to the next of them without a release and a new
 * acquisition: two round trips saved per holder. It is bounded, so that other processes do not
 * starve: at most {@value #MAX_HANDOFFS} holders in a row and {@value #MAX_HANDOFF_MILLIS} ms after
 * the Redis acquisition; then a real release (after which {@link Turns} may give other processes
 * the next turn). For its new holder the hold is a new hold: it gets a new fencing token, issued
 * when first asked for (a token is only binding once the holder has seen it), and its own maximum
 * hold time, counted from the handoff (set by {@code Acquisitions} as it takes the hold). A handoff
 * that nobody takes (every queued thread gave up) is released by the last thread to leave the
 * queue.
 *
 * <p>The handoff itself lives in the name's state ({@link NameState#handoff}, {@link
 * NameState#handoffs}); this class is the only one that reads or writes those fields.
 */
public final class LocalHandoff {
  static final int MAX_HANDOFFS = 16;
  static final long MAX_HANDOFF_MILLIS = 20;
  private static final long MAX_HANDOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(MAX_HANDOFF_MILLIS);

  private final Ticker ticker;
  private final Releases releases;
  private final Lifecycle lifecycle;

  /**
   * @param lifecycle the factory's: once it is closed, nothing is handed off (the close reports
   *     every hold lost, and wakes the queued threads away)
   */
  public LocalHandoff(Ticker ticker, Releases releases, Lifecycle lifecycle) {
    this.ticker = ticker;
    this.releases = releases;
    this.lifecycle = lifecycle;
  }

  /** Whether the owner of {@code state}, releasing {@code hold}, may pass it on instead. */
  boolean mayHandOff(NameState state, Hold hold) {
    return !lifecycle.isClosed()
        && state.handoffs < MAX_HANDOFFS
        && state.local.hasQueuedThreads()
        && hold.isValid()
        && ticker.read() - hold.acquiredAtNanos < MAX_HANDOFF_NANOS;
  }

  /**
   * The owner passes {@code hold} on to the next thread queued for {@code state}.
   *
   * @return {@code false} when the owner's local lock was revoked meanwhile (the hold was lost)
   */
  boolean handOff(NameState state, Hold hold) {
    state.handoffs++;
    hold.handedOff();
    state.hold = null;
    state.handoff = hold;
    if (!state.local.unlockOnce()) {
      return false;
    }
    releaseOrphan(state);
    return true;
  }

  /**
   * The new owner of {@code state.local} takes the hold handed to it, if any and still good.
   *
   * @return the hold it now holds, or {@code null}
   */
  Hold take(NameState state) {
    Hold handed = state.handoff;
    if (handed == null) {
      return null;
    }
    state.handoff = null;
    if (handed.isValid()) {
      return handed;
    }
    if (handed.beginRelease()) { // its lease ran out unconfirmed: release it, and start over
      releases.releaseLater(handed);
    }
    return null;
  }

  /** A new hold was taken in Redis: the count of handoffs in a row starts again. */
  void acquiredInRedis(NameState state) {
    state.handoffs = 0;
  }

  /**
   * Releases a handed-off hold that no queued thread will take: called by every thread that leaves
   * the queue without the lock, and by the thread that handed it off. Once the factory is closed it
   * leaves the hold to the close, which reports it lost (its key expires with its lease).
   */
  void releaseOrphan(NameState state) {
    if (state.handoff == null
        || state.local.hasQueuedThreads()
        || !state.local.tryLockWhileOpen()) {
      return;
    }
    try {
      Hold orphan = state.handoff;
      if (orphan != null && !state.local.hasQueuedThreads()) {
        state.handoff = null;
        if (orphan.beginRelease()) {
          releases.releaseLater(orphan);
        }
      }
    } finally {
      state.local.unlockOnce();
    }
  }
}
