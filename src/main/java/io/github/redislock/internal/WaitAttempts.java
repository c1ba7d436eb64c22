package io.github.redislock.internal;

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
  public final boolean extend(Hold hold) {
    return kind.extend(hold);
  }

  @Override
  public final Release release(Hold hold) {
    return kind.release(hold);
  }

  @Override
  public final void releaseToken(LockKeys keys, String token) {
    kind.releaseToken(keys, token);
  }

  @Override
  public final long reissueFence(Hold hold) {
    return kind.reissueFence(hold);
  }

  @Override
  public final boolean confirmFence(Hold hold, long fencingToken) {
    return kind.confirmFence(hold, fencingToken);
  }

  @Override
  public final void fencingWanted() {
    kind.fencingWanted();
  }
}
