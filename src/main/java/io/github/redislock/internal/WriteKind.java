package io.github.redislock.internal;

import io.github.redislock.internal.backend.Acquisition;
import io.github.redislock.internal.backend.LockBackend;
import io.github.redislock.internal.backend.LockKeys;
import io.github.redislock.internal.backend.ReadWriteOps;
import io.github.redislock.internal.util.Tokens;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The write lock of a read-write lock ({@code RedisReadWriteLock.writeLock()}): the lock key, taken
 * only when no read share is live. Each wait leaves an intent ({@link #forWait}) that holds later
 * readers back, so that writers are not starved; its attempts renew the intent's lease, which the
 * wait keeps short enough ({@link #maxWaitNanos}), so that the intent of a writer whose process
 * died lapses; giving up withdraws it at once. The lock key's renewal, release and fencing are the
 * plain lock's.
 */
final class WriteKind extends LockKeyKind {
  private static final Logger log = LoggerFactory.getLogger(WriteKind.class);

  private final ReadWriteOps ops;
  private final Executor io;
  private final long maxWaitNanos;

  /**
   * The write locks of {@code backend}.
   *
   * @param io runs the withdrawal of an intent in the background
   * @param leaseNanos the lease of holds and of intents
   * @throws UnsupportedOperationException where the backend has no read-write locks (Redlock)
   */
  WriteKind(LockBackend backend, Executor io, long leaseNanos) {
    super(backend);
    this.ops = backend.readWriteOps();
    this.io = io;
    this.maxWaitNanos = leaseNanos / 3;
  }

  @Override
  public LockKind forWait(boolean barge) {
    return barge ? this : new Intent(Tokens.next());
  }

  /** A {@code tryLock()}: one attempt, which leaves no intent. */
  @Override
  public Acquisition tryAcquire(LockKeys keys, String token, boolean expectBusy) {
    return ops.tryWrite(keys, token, "", fencingWanted);
  }

  /** One waiting writer's intent: its attempts, and its withdrawal. */
  private final class Intent extends WaitAttempts {
    private final String writerId;

    Intent(String writerId) {
      super(WriteKind.this);
      this.writerId = writerId;
    }

    @Override
    public Acquisition tryAcquire(LockKeys keys, String token, boolean expectBusy) {
      return ops.tryWrite(keys, token, writerId, fencingWanted);
    }

    @Override
    public void leave(LockKeys keys) {
      try {
        io.execute(() -> leaveQuietly(keys));
      } catch (RejectedExecutionException e) {
        log.debug("factory closed; the intent of a writer of '{}' lapses with its lease", keys);
      }
    }

    private void leaveQuietly(LockKeys keys) {
      try {
        ops.leave(keys, writerId);
      } catch (RuntimeException e) {
        log.debug("could not withdraw a writer's intent on '{}'; it lapses", keys.lock(), e);
      }
    }

    /** Woken by every release, and by the last share's {@code to:writers} (rw_read_release.lua). */
    @Override
    public String waiterId() {
      return "writers";
    }

    @Override
    public long maxWaitNanos() {
      return maxWaitNanos;
    }
  }
}
