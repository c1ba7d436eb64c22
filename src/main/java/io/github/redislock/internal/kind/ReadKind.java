package io.github.redislock.internal.kind;

import io.github.redislock.internal.backend.Acquisition;
import io.github.redislock.internal.backend.Acquisition.Grant;
import io.github.redislock.internal.backend.LockKeys;
import io.github.redislock.internal.backend.ReadWriteOps;
import io.github.redislock.internal.backend.Release;

/**
 * A read share of a read-write lock ({@code RedisReadWriteLock.readLock()}): a member of the sorted
 * set beside the lock key, with a lease of its own, one per reading thread. One object per
 * acquisition, which knows whether its thread holds the write lock (a downgrade) and whether it
 * barges past waiting writers ({@code tryLock()}). Shares have no fencing tokens: a token orders
 * writes, and readers do not write.
 */
public final class ReadKind implements LockKind, Attempts {
  private final ReadWriteOps ops;
  private final String writeToken;
  private final boolean barge;

  /**
   * @param writeToken the token of the calling thread's write hold of the same lock, or {@code ""}
   * @param barge whether to take a share whatever writers wait
   */
  public ReadKind(ReadWriteOps ops, String writeToken, boolean barge) {
    this.ops = ops;
    this.writeToken = writeToken;
    this.barge = barge;
  }

  /**
   * Readers wait under an id that no message names, so that the wake-up meant for writers alone
   * ({@code to:writers}, when the last share goes) leaves them asleep; every other release wakes
   * them.
   */
  @Override
  public String label() {
    return "read";
  }

  @Override
  public boolean shared() {
    return true;
  }

  @Override
  public String waiterId() {
    return "readers";
  }

  @Override
  public Acquisition tryAcquire(LockKeys keys, String token, boolean expectBusy) {
    return ops.tryRead(keys, token, writeToken, barge);
  }

  @Override
  public boolean extend(LockKeys keys, String token) {
    return ops.extendShare(keys, token);
  }

  @Override
  public Release release(LockKeys keys, String token, long fencingToken, Grant grant) {
    return ops.releaseShare(keys, token);
  }

  @Override
  public void releaseToken(LockKeys keys, String token) {
    ops.releaseShare(keys, token);
  }

  /** One object per acquisition, which keeps nothing in Redis while it waits: its own attempts. */
  @Override
  public Attempts forWait(boolean barge) {
    return this;
  }

  /**
   * The same acquisition's share over {@code ops.withLease(leaseMillis)}: as {@code new
   * ReadKind(ops.withLease(leaseMillis), writeToken, barge)}, which makes one over leased
   * operations directly.
   */
  @Override
  public ReadKind withLease(long leaseMillis) {
    return new ReadKind(ops.withLease(leaseMillis), writeToken, barge);
  }
}
