package io.github.redislock;

/**
 * Told of each event that {@link LockStats} counts, as it is counted: the way to push a factory's
 * statistics to a metrics system (Micrometer, Prometheus, OpenTelemetry) instead of polling {@link
 * RedisLockFactory#stats()}. Given to {@link
 * RedisLockFactory.Builder#recordStats(LockStatsListener)}; every method does nothing by default.
 *
 * <p>Methods are called on the thread of the event: the acquiring or releasing thread, or a thread
 * of the factory (renewals, lost holds). They must be fast, thread-safe, and not call the factory's
 * locks; whatever they throw is logged and goes no further.
 */
public interface LockStatsListener {

  /**
   * A thread acquired a lock it did not hold.
   *
   * @param lockName the lock's name
   * @param waitNanos how long it waited, in nanoseconds
   * @param handoff whether the hold came from another thread of this JVM without a release in Redis
   */
  default void acquired(String lockName, long waitNanos, boolean handoff) {}

  /**
   * A lock call returned or threw without the lock.
   *
   * @param lockName the lock's name
   * @param waitNanos how long it tried, in nanoseconds
   * @param timedOut {@code true} for a timed attempt whose time elapsed, {@code false} for a
   *     failure (the lock busy, an interrupt, an error)
   */
  default void notAcquired(String lockName, long waitNanos, boolean timedOut) {}

  /**
   * A hold was released in Redis.
   *
   * @param lockName the lock's name
   * @param heldNanos how long it was held, from its acquisition in Redis, in nanoseconds
   */
  default void released(String lockName, long heldNanos) {}

  /**
   * A hold was lost before its release.
   *
   * @param lockName the lock's name
   * @param reason why, in words
   */
  default void lostHold(String lockName, String reason) {}

  /**
   * A Redis call failed.
   *
   * @param lockName the lock's name
   */
  default void redisError(String lockName) {}

  /**
   * A renewal of a hold's lease failed: Redis could not be reached or answered with an error. The
   * hold is kept while its lease lasts, and its renewal is tried again; {@link #redisError} is told
   * of the same failure.
   *
   * @param lockName the lock's name
   */
  default void renewalFailed(String lockName) {}

  /**
   * A lease was renewed.
   *
   * @param lockName the lock's name
   */
  default void renewed(String lockName) {}
}
