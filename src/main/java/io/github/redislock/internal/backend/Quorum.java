package io.github.redislock.internal.backend;

import io.github.redislock.internal.util.Ticker;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/**
 * Redlock's arithmetic over N nodes, apart from any I/O: what a majority is, when one is reached or
 * made impossible, how long a hold taken on one stays valid, when a busy lock may become free, and
 * what a release's replies say about the hold. Immutable.
 *
 * <p>Counts are of nodes, each reply counted once: a node that granted, refused, failed (an
 * exception) or is missing (no reply yet).
 */
final class Quorum {

  /** What a release's replies say about the hold it released. */
  enum ReleaseVerdict {
    /** A majority of the nodes that granted the hold confirmed its release. */
    RELEASED,
    /**
     * Released where it could be, but fewer than a majority confirmed: the other granting nodes
     * could not be reached, and expire the key with its lease. Not a lost hold (a node failure is
     * not a loss), and not a release either: the owner is told that Redis could not confirm it.
     */
    UNCONFIRMED,
    /** So many granting nodes no longer held it that no majority can have kept it: lost. */
    LOST
  }

  private final int nodes;
  private final int majority;
  private final long leaseNanos;
  private final long driftNanos;
  private final Ticker ticker;

  /**
   * The arithmetic for {@code nodes} nodes and holds of {@code leaseMillis}.
   *
   * @param nodes how many nodes, at least 1
   * @param leaseMillis the lease every acquisition sets
   * @param ticker the clock that validity is measured with
   */
  Quorum(int nodes, long leaseMillis, Ticker ticker) {
    if (nodes < 1) {
      throw new IllegalArgumentException("nodes: " + nodes);
    }
    this.nodes = nodes;
    this.majority = nodes / 2 + 1;
    this.leaseNanos = TimeUnit.MILLISECONDS.toNanos(leaseMillis);
    this.driftNanos = TimeUnit.MILLISECONDS.toNanos(leaseMillis / 100 + 2);
    this.ticker = ticker;
  }

  /** How many nodes there are. */
  int nodes() {
    return nodes;
  }

  /** How many nodes make a majority: N/2 + 1. */
  int majority() {
    return majority;
  }

  /** Whether {@code yes} nodes are a majority. */
  boolean reached(int yes) {
    return yes >= majority;
  }

  /** Whether {@code no} nodes answering no leave too few for a majority of yes. */
  boolean impossible(int no) {
    return no > nodes - majority;
  }

  /** Whether waiting for more replies can change the outcome no more: a majority either way. */
  boolean decided(int yes, int no) {
    return reached(yes) || impossible(no);
  }

  /**
   * The clock drift allowed for between this process and the nodes: 1% of the lease plus 2 ms. A
   * hold must be taken to end that much sooner than its lease.
   */
  long driftNanos() {
    return driftNanos;
  }

  /**
   * How long a hold granted by a majority stays valid: the lease, less the time the acquisition
   * took, less the drift. Not positive means no validity is left: the hold must not be used.
   *
   * @param startNanos when the acquisition's first request was sent, on this quorum's ticker
   * @return the validity left now, in nanoseconds
   */
  long validityNanos(long startNanos) {
    return leaseNanos - (ticker.read() - startNanos) - driftNanos;
  }

  /**
   * Whether an acquisition without a majority of grants is "busy" rather than a failure: another
   * owner holds a majority, or no more nodes failed or are missing than Redlock tolerates (a
   * minority), so what stood in the way is the other owner. Otherwise the failures are to blame.
   *
   * @param busy the nodes that answered held by another owner
   * @param failedOrMissing the nodes that failed or did not answer
   * @return whether to report the lock busy
   */
  boolean busyRatherThanFailed(int busy, int failedOrMissing) {
    return impossible(busy) || failedOrMissing <= nodes - majority;
  }

  /**
   * When a majority of nodes may become free: the holders' keys expire one by one, and the lock can
   * be taken once the nodes that are free now and those whose keys expired make a majority.
   *
   * @param busyTtlMillis the remaining lease of each node that answered busy (-1: never expires);
   *     read, not changed
   * @return milliseconds until then: 0 when a majority may be free now, -1 never
   */
  long freeInMillis(long[] busyTtlMillis) {
    int need = majority - (nodes - busyTtlMillis.length);
    if (need <= 0) {
      return 0;
    }
    long[] ttls = busyTtlMillis.clone();
    for (int i = 0; i < ttls.length; i++) {
      ttls[i] = ttls[i] < 0 ? Long.MAX_VALUE : ttls[i];
    }
    Arrays.sort(ttls);
    long ttl = ttls[Math.min(need, ttls.length) - 1];
    return ttl == Long.MAX_VALUE ? -1 : ttl;
  }

  /**
   * Whether a release's replies so far are enough to judge it: a majority confirmed it, or the
   * granting nodes that denied it make a majority of holders impossible.
   *
   * @param granted the nodes that granted the hold
   * @param confirmed the granting nodes that confirmed the release
   * @param denied the granting nodes that answered that the hold was not theirs any more
   * @return whether waiting for more replies can no longer change the verdict
   */
  boolean releaseDecided(int granted, int confirmed, int denied) {
    return reached(confirmed) || granted - denied < majority;
  }

  /**
   * What a release's replies say about the hold.
   *
   * @param granted the nodes that granted the hold
   * @param confirmed the granting nodes that confirmed the release
   * @param denied the granting nodes that answered that the hold was not theirs any more
   * @return {@link ReleaseVerdict#LOST} when fewer than a majority can still have held it, else
   *     {@link ReleaseVerdict#UNCONFIRMED} when fewer than a majority confirmed, else {@link
   *     ReleaseVerdict#RELEASED}
   */
  ReleaseVerdict release(int granted, int confirmed, int denied) {
    if (granted - denied < majority) {
      return ReleaseVerdict.LOST;
    }
    return reached(confirmed) ? ReleaseVerdict.RELEASED : ReleaseVerdict.UNCONFIRMED;
  }
}
