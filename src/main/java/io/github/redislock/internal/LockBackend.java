package io.github.redislock.internal;

import io.github.redislock.RedisLockException;
import java.util.List;
import redis.clients.jedis.UnifiedJedis;

/**
 * What differs between one Redis node and several: the {@link LockEngine} writes the {@code Lock}
 * logic (reentrancy, waiting, interrupts, renewal) once and talks to Redis only through this.
 * Every method throws {@link RedisLockException}, with the client's exception as its cause, when
 * Redis cannot be reached or answers with an error.
 */
interface LockBackend extends AutoCloseable {

  /** One attempt to take the lock with {@code token} for {@code leaseMillis}. */
  Acquisition tryAcquire(LockKeys keys, String token, long leaseMillis);

  /** Renews the lease; {@code false} when the key no longer holds {@code token}. */
  boolean extend(LockKeys keys, String token, long leaseMillis);

  /**
   * Deletes the key if it holds {@code token} and wakes waiters; {@code false} when it did not
   * hold it. A repeated call after a lost reply still answers {@code true}. The fencing counter is
   * raised to {@code fencingToken} where the key is released. {@code grant} is the
   * {@link Acquisition#grant()} of the hold, or {@code null} for an attempt that was not granted.
   */
  Release release(LockKeys keys, String token, long fencingToken, Object grant);

  /**
   * Makes {@code fencingToken} binding before anyone sees it: every later hold gets a greater
   * token. One node issues it atomically with the acquisition, so this is a no-op there; Redlock
   * raises a majority's counters. {@code false} when the hold is known not to be ours any more.
   */
  boolean confirmFence(LockKeys keys, String token, long fencingToken);

  /**
   * Issues a new, binding fencing token to a hold that passed to another thread without a
   * release: greater than every token issued before. {@code -1} when the hold is not ours any
   * more.
   */
  long reissueFence(LockKeys keys, String token, Object grant);

  /**
   * How much sooner than the lease a hold must be taken to end, for the clock drift between
   * this process and the servers: zero on one node, Redlock's drift allowance otherwise.
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
