package io.github.redislock.internal.kind;

import io.github.redislock.internal.backend.Acquisition;
import io.github.redislock.internal.backend.LockKeys;

/**
 * What one wait does in Redis ({@link LockKind#forWait}): its attempts, and the entry it may keep
 * there while it waits (a place in a fair queue, a writer's intent). A kind whose waits keep
 * nothing in Redis is its own attempts. Every method throws {@code RedisLockException} when Redis
 * fails.
 */
public interface Attempts extends TokenRelease {
  /**
   * One attempt to acquire with a fresh {@code token}.
   *
   * @param expectBusy whether the last attempt found the lock busy and no release was announced
   *     since
   */
  Acquisition tryAcquire(LockKeys keys, String token, boolean expectBusy);

  /**
   * The wait gave up without acquiring: its entry in Redis, if any, goes before this returns, with
   * a lock handed to it meanwhile.
   */
  default void leave(LockKeys keys) {}

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

  /** The longest a waiter may wait between attempts (each attempt renews its entry, if any). */
  default long maxWaitNanos() {
    return Long.MAX_VALUE;
  }
}
