package io.github.redislock.internal.backend;

import io.github.redislock.RedisLockException;
import java.util.List;
import redis.clients.jedis.UnifiedJedis;

/**
 * What differs between one Redis node and several: the {@link LockEngine} writes the {@code Lock}
 * logic (reentrancy, waiting, interrupts, renewal) once and talks to Redis only through this. Every
 * method throws {@link RedisLockException}, with the client's exception as its cause, when Redis
 * cannot be reached or answers with an error.
 */
public interface LockBackend extends AutoCloseable {

  /** How an acquisition attempt asks Redis. */
  enum Ask {
    /**
     * The lock is probably free and no fencing token is wanted: a plain {@code SET NX PX}, the
     * cheapest acquisition there is; only when that finds the lock busy, the acquire script, which
     * tells how long it stays busy. The hold's fencing token is 0 (issued when asked for).
     */
    PLAIN,
    /** The lock was just seen busy: the acquire script at once. The fencing token is 0. */
    PROBE,
    /** The acquire script, which also issues the hold's fencing token with the acquisition. */
    FENCED
  }

  /**
   * One attempt to take the lock with {@code token} for {@code leaseMillis}. The reply's fencing
   * token is 0 unless {@code ask} is {@link Ask#FENCED}.
   */
  Acquisition tryAcquire(LockKeys keys, String token, long leaseMillis, Ask ask);

  /** Renews the lease; {@code false} when the key no longer holds {@code token}. */
  boolean extend(LockKeys keys, String token, long leaseMillis);

  /**
   * Deletes the key if it holds {@code token} and wakes waiters; {@code false} when it did not hold
   * it (a repeated call after a lost reply answers {@code false} too: the caller tells the cases
   * apart by its lease). The fencing counter is raised to {@code fencingToken} (0: no token was
   * issued) where the key is released. {@code grant} is the {@link Acquisition#grant()} of the
   * hold, or {@code null} for an attempt that was not granted.
   */
  Release release(LockKeys keys, String token, long fencingToken, Object grant);

  /**
   * Makes {@code fencingToken} binding before anyone sees it: every later hold gets a greater
   * token. One node issues it atomically with the acquisition, so this is a no-op there; Redlock
   * raises a majority's counters. {@code false} when the hold is known not to be ours any more.
   */
  boolean confirmFence(LockKeys keys, String token, long fencingToken);

  /**
   * Issues a new, binding fencing token to a hold that passed to another thread without a release:
   * greater than every token issued before. {@code -1} when the hold is not ours any more.
   */
  long reissueFence(LockKeys keys, String token, Object grant);

  /**
   * How much sooner than the lease a hold must be taken to end, for the clock drift between this
   * process and the servers: zero on one node, Redlock's drift allowance otherwise.
   */
  long safetyMarginNanos(long leaseMillis);

  /** Whether anyone holds the lock. */
  boolean isLocked(LockKeys keys);

  /** The clients whose pub/sub channels carry wake-ups. */
  List<UnifiedJedis> wakeUpSources();

  /** Closes the clients this backend created; never a caller's. */
  @Override
  void close();
}
