package io.github.redislock.internal.kind;

import io.github.redislock.internal.backend.Acquisition;
import io.github.redislock.internal.backend.LockBackend;
import io.github.redislock.internal.backend.LockKeys;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The exclusive lock ({@code RedisDistributedLock}): one owner per name, on a {@link LockBackend}.
 */
public final class ExclusiveKind extends LockKeyKind {
  public ExclusiveKind(LockBackend backend) {
    super(backend);
  }

  private ExclusiveKind(LockBackend backend, AtomicBoolean fencing) {
    super(backend, fencing);
  }

  @Override
  public String label() {
    return "lock";
  }

  @Override
  public Acquisition tryAcquire(LockKeys keys, String token, boolean expectBusy) {
    return backend.tryAcquire(keys, token, fenced(), expectBusy);
  }

  /** The plain lock over {@code backend.withLease(leaseMillis)}, sharing its fencing flag. */
  @Override
  public ExclusiveKind withLease(long leaseMillis) {
    return new ExclusiveKind(backend.withLease(leaseMillis), fencing);
  }
}
