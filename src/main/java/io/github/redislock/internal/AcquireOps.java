package io.github.redislock.internal;

import io.github.redislock.internal.backend.Acquisition;
import io.github.redislock.internal.backend.LockKeys;

/**
 * What one kind of lock does in Redis to be acquired, for {@link RedisWait}, which does the waiting
 * between attempts the same way for every kind.
 */
interface AcquireOps {

  /**
   * One attempt with a fresh {@code token}.
   *
   * @param expectBusy whether the last attempt found the lock busy and no release was announced
   *     since
   */
  Acquisition tryAcquire(LockKeys keys, String token, boolean expectBusy);

  /**
   * Cleans up, in the background, an attempt nobody will use (it failed, or its caller gave up
   * before its reply): releases {@code token} if it was granted.
   */
  void abandon(LockKeys keys, String token);

  /** Like {@link #abandon}, in the calling thread, which is a background thread already. */
  void abandonNow(LockKeys keys, String token);
}
