package io.github.redislock.internal.backend;

import io.github.redislock.internal.transport.Round;

/**
 * The answer to one acquisition attempt.
 *
 * @param acquired whether the caller now holds the lock
 * @param fencingToken the hold's fencing token, when acquired
 * @param holderTtlMillis the current holder's remaining lease when not acquired; -1 when its key
 *     never expires
 * @param holderPublishes whether the current holder is known to publish on release (it is one of
 *     ours), so that waiters may rely on the wake-up rather than on re-checks
 * @param grant what the backend needs to know of this hold at its release (Redlock: which nodes
 *     granted it), or {@code null}
 */
public record Acquisition(
    boolean acquired,
    long fencingToken,
    long holderTtlMillis,
    boolean holderPublishes,
    Grant grant) {

  /** Acquired without a fencing token (one is issued when first asked for). */
  public static final Acquisition ACQUIRED_UNFENCED = new Acquisition(true, 0, 0, false, null);

  /** Acquired, with {@code fencingToken} (0: none issued yet). */
  public static Acquisition acquired(long fencingToken) {
    return acquired(fencingToken, null);
  }

  /** Acquired, with what the backend must know of the hold at its release. */
  static Acquisition acquired(long fencingToken, Grant grant) {
    return new Acquisition(true, fencingToken, 0, false, grant);
  }

  /** Held by another owner, for {@code holderTtlMillis} more (-1: its key never expires). */
  public static Acquisition busy(long holderTtlMillis, boolean holderPublishes) {
    return new Acquisition(false, 0, holderTtlMillis, holderPublishes, null);
  }

  /**
   * What a backend must know of a hold at its release and when it issues it a fencing token: under
   * Redlock, the acquisition round whose masters granted it. One node needs nothing, and its holds
   * have none ({@code null}). The engine keeps it with the hold and hands it back, never reading
   * it.
   *
   * @param round the acquisition round that granted the hold: its replies tell which masters
   *     granted it, and keep arriving from masters that answer late; a release is sent behind them
   */
  public record Grant(Round<Acquisition> round) {}
}
