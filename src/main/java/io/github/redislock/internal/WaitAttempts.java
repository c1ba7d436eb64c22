package io.github.redislock.internal;

import io.github.redislock.internal.backend.Acquisition.Grant;
import io.github.redislock.internal.backend.LockKeys;
import io.github.redislock.internal.backend.Release;

/**
 * One wait's view of a kind ({@link LockKind#forWait}): its own attempts, and whatever else the
 * wait needs (leaving a queue, withdrawing an intent); everything done to the hold it acquires is
 * the kind's own, forwarded here.
 */
abstract class WaitAttempts implements LockKind {
  private final LockKind kind;

  /**
   * The attempts of one wait for a lock of {@code kind}.
   *
   * @param kind the kind that renews, releases and fences the holds
   */
  WaitAttempts(LockKind kind) {
    this.kind = kind;
  }

  @Override
  public final boolean extend(LockKeys keys, String token) {
    return kind.extend(keys, token);
  }

  @Override
  public final Release release(LockKeys keys, String token, long fencingToken, Grant grant) {
    return kind.release(keys, token, fencingToken, grant);
  }

  @Override
  public final void releaseToken(LockKeys keys, String token) {
    kind.releaseToken(keys, token);
  }

  @Override
  public final long reissueFence(LockKeys keys, String token, Grant grant) {
    return kind.reissueFence(keys, token, grant);
  }

  @Override
  public final boolean confirmFence(LockKeys keys, String token, long fencingToken) {
    return kind.confirmFence(keys, token, fencingToken);
  }

  @Override
  public final String label() {
    return kind.label();
  }

  @Override
  public final void fencingWanted() {
    kind.fencingWanted();
  }
}
