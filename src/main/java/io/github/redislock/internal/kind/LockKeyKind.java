package io.github.redislock.internal.kind;

import io.github.redislock.internal.backend.Acquisition.Grant;
import io.github.redislock.internal.backend.LockBackend;
import io.github.redislock.internal.backend.LockKeys;
import io.github.redislock.internal.backend.Release;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A kind whose hold is the lock key itself, holding the owner's token: renewed, released and fenced
 * as the plain lock's ({@link ExclusiveKind}, and {@link WriteKind}, the write lock of a read-write
 * lock). Its subclasses say how the key is taken.
 */
public abstract class LockKeyKind implements FencedKind, Attempts {
  final LockBackend backend;

  /**
   * Whether anyone asked this factory for a fencing token: from then on every acquisition issues
   * its token at once, in the same script, rather than at the first request, which would cost a
   * round trip more. Until then acquisitions are a plain {@code SET NX PX} where the kind allows.
   * One flag for a kind and the kinds made from it for other leases ({@link #withLease}).
   */
  final AtomicBoolean fencing;

  LockKeyKind(LockBackend backend) {
    this(backend, new AtomicBoolean());
  }

  /** A kind on {@code backend} that shares {@code fencing} with the kind it was made from. */
  LockKeyKind(LockBackend backend, AtomicBoolean fencing) {
    this.backend = backend;
    this.fencing = fencing;
  }

  /** Whether acquisitions issue fencing tokens (see {@link #fencing}). */
  final boolean fenced() {
    return fencing.get();
  }

  /** A {@code tryLock()}, or a wait that keeps nothing in Redis: the kind's own attempts. */
  @Override
  public Attempts forWait(boolean barge) {
    return this;
  }

  @Override
  public final void fencingWanted() {
    if (!fencing.get()) {
      fencing.set(true);
    }
  }

  @Override
  public final boolean extend(LockKeys keys, String token) {
    return backend.extend(keys, token);
  }

  @Override
  public final Release release(LockKeys keys, String token, long fencingToken, Grant grant) {
    return backend.release(keys, token, fencingToken, grant);
  }

  @Override
  public final void releaseToken(LockKeys keys, String token) {
    backend.release(keys, token, 0, null);
  }

  @Override
  public final long reissueFence(LockKeys keys, String token, Grant grant) {
    return backend.reissueFence(keys, token, grant);
  }

  @Override
  public final boolean confirmFence(LockKeys keys, String token, long fencingToken) {
    return backend.confirmFence(keys, token, fencingToken);
  }
}
