package io.github.redislock;

import java.time.Duration;
import java.util.Objects;

/**
 * Statistics about the locks of one factory, as a snapshot: what {@link RedisLockFactory#stats()}
 * returns when the factory was built with {@link RedisLockFactory.Builder#recordStats()}. Like
 * Caffeine's {@code CacheStats}, an immutable value: take two snapshots and {@linkplain
 * #minus(LockStats) subtract} them to see one interval.
 *
 * <p>An <em>acquisition</em> is a lock call ({@code lock}, {@code tryLock}, ..., of any lock, read
 * and write locks included) by a thread that did not hold the lock, which returned holding it;
 * reentrant acquisitions are not counted. A <em>failure</em> is such a call that returned or threw
 * without the lock, but for a timeout: {@code tryLock()} finding it busy, an interrupt, a Redis
 * error. A <em>timeout</em> is a timed {@code tryLock} whose time elapsed. The <em>wait</em> of an
 * acquisition runs from the call to the moment it held the lock. A <em>handoff</em> is an
 * acquisition whose hold came from another thread of this JVM without a release in Redis.
 *
 * <p>Instances are immutable and thread-safe.
 */
public final class LockStats {
  private static final LockStats EMPTY = new LockStats(0, 0, 0, 0, 0, 0, 0, 0, 0);

  private final long acquisitionCount;
  private final long failureCount;
  private final long timeoutCount;
  private final long totalWaitNanos;
  private final long maxWaitNanos;
  private final long handoffCount;
  private final long lostHoldCount;
  private final long redisErrorCount;
  private final long renewalCount;

  private LockStats(
      long acquisitionCount,
      long failureCount,
      long timeoutCount,
      long totalWaitNanos,
      long maxWaitNanos,
      long handoffCount,
      long lostHoldCount,
      long redisErrorCount,
      long renewalCount) {
    this.acquisitionCount = acquisitionCount;
    this.failureCount = failureCount;
    this.timeoutCount = timeoutCount;
    this.totalWaitNanos = totalWaitNanos;
    this.maxWaitNanos = maxWaitNanos;
    this.handoffCount = handoffCount;
    this.lostHoldCount = lostHoldCount;
    this.redisErrorCount = redisErrorCount;
    this.renewalCount = renewalCount;
  }

  /**
   * Returns statistics with the given counts.
   *
   * @param acquisitionCount the acquisitions
   * @param failureCount the attempts that returned or threw without the lock, but for timeouts
   * @param timeoutCount the timed attempts whose time elapsed
   * @param totalWaitNanos the total wait of the acquisitions, in nanoseconds
   * @param maxWaitNanos the longest wait of an acquisition, in nanoseconds
   * @param handoffCount the acquisitions by local handoff
   * @param lostHoldCount the holds lost before their release
   * @param redisErrorCount the Redis calls that failed
   * @param renewalCount the leases renewed
   * @return the statistics
   * @throws IllegalArgumentException if a count is negative
   */
  public static LockStats of(
      long acquisitionCount,
      long failureCount,
      long timeoutCount,
      long totalWaitNanos,
      long maxWaitNanos,
      long handoffCount,
      long lostHoldCount,
      long redisErrorCount,
      long renewalCount) {
    long[] all = {
      acquisitionCount,
      failureCount,
      timeoutCount,
      totalWaitNanos,
      maxWaitNanos,
      handoffCount,
      lostHoldCount,
      redisErrorCount,
      renewalCount
    };
    for (long count : all) {
      if (count < 0) {
        throw new IllegalArgumentException("counts must not be negative, got " + count);
      }
    }
    return new LockStats(
        acquisitionCount,
        failureCount,
        timeoutCount,
        totalWaitNanos,
        maxWaitNanos,
        handoffCount,
        lostHoldCount,
        redisErrorCount,
        renewalCount);
  }

  /**
   * Returns statistics with every count zero: those of a factory that does not record them.
   *
   * @return the empty statistics
   */
  public static LockStats empty() {
    return EMPTY;
  }

  /**
   * Returns the number of acquisitions: lock calls that returned holding a lock the thread did not
   * hold before.
   *
   * @return the number of acquisitions
   */
  public long acquisitionCount() {
    return acquisitionCount;
  }

  /**
   * Returns the number of attempts that returned or threw without the lock, timeouts aside: {@code
   * tryLock()} finding the lock busy, interrupts, Redis errors, a closed factory.
   *
   * @return the number of failed attempts
   */
  public long failureCount() {
    return failureCount;
  }

  /**
   * Returns the number of timed attempts ({@code tryLock(time, unit)}) whose time elapsed.
   *
   * @return the number of timed-out attempts
   */
  public long timeoutCount() {
    return timeoutCount;
  }

  /**
   * Returns the total time the acquisitions waited, from the call to holding the lock.
   *
   * @return the total wait
   */
  public Duration totalWaitTime() {
    return Duration.ofNanos(totalWaitNanos);
  }

  /**
   * Returns the longest wait of one acquisition.
   *
   * @return the longest wait
   */
  public Duration maxWaitTime() {
    return Duration.ofNanos(maxWaitNanos);
  }

  /**
   * Returns the average wait of an acquisition: {@link #totalWaitTime()} divided by {@link
   * #acquisitionCount()}, or zero without acquisitions.
   *
   * @return the average wait
   */
  public Duration averageWaitTime() {
    return acquisitionCount == 0
        ? Duration.ZERO
        : Duration.ofNanos(totalWaitNanos / acquisitionCount);
  }

  /**
   * Returns the number of acquisitions whose hold came from another thread of this JVM without a
   * release in Redis (see {@link RedisDistributedLock#unlock()}).
   *
   * @return the number of local handoffs
   */
  public long handoffCount() {
    return handoffCount;
  }

  /**
   * Returns the number of holds lost before their release (see {@link LockLostEvent}).
   *
   * @return the number of lost holds
   */
  public long lostHoldCount() {
    return lostHoldCount;
  }

  /**
   * Returns the number of Redis calls of acquisitions, renewals and releases that failed: Redis
   * unreachable, timed out or answering with an error. Retried calls count once per failure.
   *
   * @return the number of Redis errors
   */
  public long redisErrorCount() {
    return redisErrorCount;
  }

  /**
   * Returns the number of leases renewed.
   *
   * @return the number of renewals
   */
  public long renewalCount() {
    return renewalCount;
  }

  /**
   * Returns the difference of these statistics and {@code other}, each count at least zero: the
   * statistics of the interval between two snapshots. The longest wait is this snapshot's, which
   * cannot be subtracted.
   *
   * @param other the earlier snapshot
   * @return the difference
   * @throws NullPointerException if {@code other} is null
   */
  public LockStats minus(LockStats other) {
    Objects.requireNonNull(other, "other");
    return new LockStats(
        Math.max(0, acquisitionCount - other.acquisitionCount),
        Math.max(0, failureCount - other.failureCount),
        Math.max(0, timeoutCount - other.timeoutCount),
        Math.max(0, totalWaitNanos - other.totalWaitNanos),
        maxWaitNanos,
        Math.max(0, handoffCount - other.handoffCount),
        Math.max(0, lostHoldCount - other.lostHoldCount),
        Math.max(0, redisErrorCount - other.redisErrorCount),
        Math.max(0, renewalCount - other.renewalCount));
  }

  /**
   * Returns the sum of these statistics and {@code other}, e.g. of two factories; the longest wait
   * is the longer of the two.
   *
   * @param other the other statistics
   * @return the sum
   * @throws NullPointerException if {@code other} is null
   */
  public LockStats plus(LockStats other) {
    Objects.requireNonNull(other, "other");
    return new LockStats(
        acquisitionCount + other.acquisitionCount,
        failureCount + other.failureCount,
        timeoutCount + other.timeoutCount,
        totalWaitNanos + other.totalWaitNanos,
        Math.max(maxWaitNanos, other.maxWaitNanos),
        handoffCount + other.handoffCount,
        lostHoldCount + other.lostHoldCount,
        redisErrorCount + other.redisErrorCount,
        renewalCount + other.renewalCount);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof LockStats s
        && acquisitionCount == s.acquisitionCount
        && failureCount == s.failureCount
        && timeoutCount == s.timeoutCount
        && totalWaitNanos == s.totalWaitNanos
        && maxWaitNanos == s.maxWaitNanos
        && handoffCount == s.handoffCount
        && lostHoldCount == s.lostHoldCount
        && redisErrorCount == s.redisErrorCount
        && renewalCount == s.renewalCount;
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        acquisitionCount,
        failureCount,
        timeoutCount,
        totalWaitNanos,
        maxWaitNanos,
        handoffCount,
        lostHoldCount,
        redisErrorCount,
        renewalCount);
  }

  @Override
  public String toString() {
    return "LockStats{acquisitionCount="
        + acquisitionCount
        + ", failureCount="
        + failureCount
        + ", timeoutCount="
        + timeoutCount
        + ", totalWaitTime="
        + totalWaitTime()
        + ", maxWaitTime="
        + maxWaitTime()
        + ", handoffCount="
        + handoffCount
        + ", lostHoldCount="
        + lostHoldCount
        + ", redisErrorCount="
        + redisErrorCount
        + ", renewalCount="
        + renewalCount
        + "}";
  }
}
