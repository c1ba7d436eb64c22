package io.github.redislock.internal;

import io.github.redislock.internal.backend.Acquisition;
import io.github.redislock.internal.backend.LockBackend;
import io.github.redislock.internal.backend.LockKeys;
import io.github.redislock.internal.backend.Release;

/**
 * The exclusive lock ({@code RedisDistributedLock}): one owner per name, on a {@link LockBackend}.
 */
final class ExclusiveKind implements LockKind {
  private final LockBackend backend;

  /**
   * Whether anyone asked this factory for a fencing token: from then on every acquisition issues
   * its token at once, in the same script, rather than at the first request, which would cost a
   * round trip more. Until then acquisitions are a plain {@code SET NX PX}.
   */
  private volatile boolean fencingWanted;

  ExclusiveKind(LockBackend backend) {
    this.backend = backend;
  }

  @Override
  public void fencingWanted() {
    if (!fencingWanted) {
      fencingWanted = true;
    }
  }

  @Override
  public Acquisition tryAcquire(LockKeys keys, String token, boolean expectBusy) {
    return backend.tryAcquire(keys, token, fencingWanted, expectBusy);
  }

  @Override
  public boolean extend(Hold hold) {
    return backend.extend(hold.keys, hold.token);
  }

  @Override
  public Release release(Hold hold) {
    return backend.release(hold.keys, hold.token, hold.lastIssuedToken(), hold.grant);
  }

  @Override
  public void releaseToken(LockKeys keys, String token) {
    backend.release(keys, token, 0, null);
  }

  @Override
  public long reissueFence(Hold hold) {
    return backend.reissueFence(hold.keys, hold.token, hold.grant);
  }

  @Override
  public boolean confirmFence(Hold hold, long fencingToken) {
    return backend.confirmFence(hold.keys, hold.token, fencingToken);
  }
}
