package io.github.redislock.internal.kind;

import io.github.redislock.internal.backend.LockKeys;

/** The release of a token nobody will use: what the clean-ups of {@code Releases} call. */
public interface TokenRelease {
  /**
   * Releases {@code token} if it holds the lock: an attempt nobody will use (failed, or given up
   * before its reply), or a hold nobody took.
   */
  void releaseToken(LockKeys keys, String token);
}
