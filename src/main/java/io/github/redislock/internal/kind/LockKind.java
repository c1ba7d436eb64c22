package io.github.redislock.internal.kind;

import io.github.redislock.internal.backend.Acquisition.Grant;
import io.github.redislock.internal.backend.LockKeys;
import io.github.redislock.internal.backend.Release;

/**
 * What one kind of lock (plain, fair, read, write) does in Redis. The engine's machinery works
 * through it and is the same for every kind: a wait acquires through the kind's {@link Attempts},
 * {@code LeaseRenewer} renews, {@code Releases} releases and cleans up; a {@link FencedKind} also
 * issues fencing tokens. It knows holds by their keys and tokens only. Every method that calls
 * Redis throws {@code RedisLockException} when Redis fails.
 */
public interface LockKind extends TokenRelease {
  /** What JFR events call this kind of lock: "lock", "fair", "read" or "write". */
  String label();

  /**
   * Whether its holds are shares, which do not exclude each other (a read lock's), rather than
   * exclusive holds.
   */
  default boolean shared() {
    return false;
  }

  /** Renews the lease of the hold of {@code token}; {@code false} when it is not ours any more. */
  boolean extend(LockKeys keys, String token);

  /**
   * The owner's release of the hold of {@code token}, which was given {@code fencingToken} (0: none
   * yet) and acquired with {@code grant}; {@code released()} is false when it was not ours.
   */
  Release release(LockKeys keys, String token, long fencingToken, Grant grant);

  /**
   * What one wait (one call's attempts, until acquired or given up) uses: the kind's own attempts,
   * or, for a kind whose waiters keep an entry in Redis, an object that holds the waiter's entry.
   *
   * @param barge whether the wait is a {@code tryLock()}: one attempt that takes a free lock
   *     whoever waits, and leaves no entry behind
   */
  Attempts forWait(boolean barge);

  /**
   * What a {@code tryLock(0, unit)} uses: one attempt that, for a kind whose waiters queue in
   * Redis, takes a free lock only if nobody waits, and leaves no place behind; for other kinds,
   * {@code forWait(true)}.
   */
  default Attempts forAttemptInTurn() {
    return forWait(true);
  }

  /**
   * The factory is closing, before its clients: the entries its waiters keep in Redis, if any, go
   * now (their waits end with the factory, and an entry left behind would keep the waiters of other
   * processes behind it until its lease ran out).
   */
  default void closing() {}

  /**
   * The same kind over {@link io.github.redislock.internal.backend.LockBackend#withLease}: every
   * acquisition, renewal and entry in Redis of the returned kind sets {@code leaseMillis}. It
   * shares what must stay one per factory with this kind: the entries its waits keep (which {@link
   * #closing()} of either takes out) and whether fencing tokens are wanted.
   *
   * @param leaseMillis the lease, from 1 ms to one day
   */
  LockKind withLease(long leaseMillis);
}
