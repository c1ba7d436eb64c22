package io.github.redislock.internal.kind;

import io.github.redislock.internal.backend.Acquisition;
import io.github.redislock.internal.backend.LockBackend;
import io.github.redislock.internal.backend.LockKeys;

/**
 * The exclusive lock ({@code RedisDistributedLock}): one owner per name, on a {@link LockBackend}.
 */
public final class ExclusiveKind extends LockKeyKind {
  public ExclusiveKind(LockBackend backend) {
    super(backend);
  }

  @Override
  public String label() {
    return "lock";
  }

  @Override
  public Acquisition tryAcquire(LockKeys keys, String token, boolean expectBusy) {
    return backend.tryAcquire(keys, token, fencingWanted, expectBusy);
  }
}
