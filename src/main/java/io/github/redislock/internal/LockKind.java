package io.github.redislock.internal;

import io.github.redislock.internal.backend.Acquisition;
import io.github.redislock.internal.backend.Acquisition.Grant;
import io.github.redislock.internal.backend.LockKeys;
import io.github.redislock.internal.backend.Release;

/**
 * What one kind of lock (exclusive, and later read, write, fair) does in Redis. The engine's
 * machinery works through it and is the same for every kind: {@link RedisWait} acquires, {@link
 * LeaseRenewer} renews, {@link Releases} releases and cleans up, {@link Hold} asks for fencing
 * tokens. It knows holds by their keys and tokens only. Every method throws {@code
 * RedisLockException} when Redis fails.
 */
interface LockKind {
  /** What JFR events call this kind of lock: "lock", "fair", "read" or "write". */
  String label();

  /**
   * Whether its holds are shares, which do not exclude each other (a read lock's), rather than
   * exclusive holds.
   */
  default boolean shared() {
    return false;
  }

  /**
   * One attempt to acquire with a fresh {@code token}.
   *
   * @param expectBusy whether the last attempt found the lock busy and no release was announced
   *     since
   */
  Acquisition tryAcquire(LockKeys keys, String token, boolean expectBusy);

  /** Renews the lease of the hold of {@code token}; {@code false} when it is not ours any more. */
  boolean extend(LockKeys keys, String token);

  /**
   * The owner's release of the hold of {@code token}, which was given {@code fencingToken} (0: none
   * yet) and acquired with {@code grant}; {@code released()} is false when it was not ours.
   */
  Release release(LockKeys keys, String token, long fencingToken, Grant grant);

  /**
   * Releases {@code token} if it holds the lock: an attempt nobody will use (failed, or given up
   * before its reply), or a hold nobody took.
   */
  void releaseToken(LockKeys keys, String token);

  /**
   * A new, binding fencing token for the current holder of the hold of {@code token}, acquired with
   * {@code grant}; {@code -1} when not ours.
   */
  long reissueFence(LockKeys keys, String token, Grant grant);

  /**
   * A holder asked for a fencing token: a kind that can issue tokens with its acquisitions does so
   * from now on, which saves the holders that ask a round trip.
   */
  void fencingWanted();

  /**
   * What one wait (one call's attempts, until acquired or given up) uses: this kind itself, or, for
   * a kind whose waiters queue in Redis, an object that holds the waiter's place.
   *
   * @param barge whether the wait is a {@code tryLock()}: one attempt that takes a free lock
   *     whoever waits, and leaves no place behind
   */
  default LockKind forWait(boolean barge) {
    return this;
  }

  /**
   * What a {@code tryLock(0, unit)} uses: one attempt that, for a kind whose waiters queue in
   * Redis, takes a free lock only if nobody waits, and leaves no place behind; for other kinds,
   * {@code forWait(true)}.
   */
  default LockKind forAttemptInTurn() {
    return forWait(true);
  }

  /**
   * The wait gave up without acquiring: its entry in Redis, if any (a place in a queue, a writer's
   * intent), goes before this returns, with a lock handed to it meanwhile.
   */
  default void leave(LockKeys keys) {}

  /**
   * The factory is closing, before its clients: the places its waiters keep in Redis queues, if
   * any, go now (their waits end with the factory, and a place left behind would keep the waiters
   * of other processes behind it until its lease ran out).
   */
  default void closing() {}

  /**
   * The waiter's id, for wake-ups meant for it alone; {@code null} when any release concerns it.
   */
  default String waiterId() {
    return null;
  }

  /**
   * The token under which Redis handed the lock to this waiter, once a message named it ({@code
   * to:<id>}): for a kind whose releases hand the lock to the first waiter; {@code null} for
   * others.
   */
  default String handedToken() {
    return null;
  }

  /** The longest a waiter may wait between attempts (each attempt renews its place, if any). */
  default long maxWaitNanos() {
    return Long.MAX_VALUE;
  }

  /**
   * Makes {@code fencingToken} of the hold of {@code token} binding; {@code false} when the hold is
   * not ours any more.
   */
  boolean confirmFence(LockKeys keys, String token, long fencingToken);
}
