package io.github.redislock.internal.kind;

import io.github.redislock.internal.backend.Acquisition;
import io.github.redislock.internal.backend.LockBackend;
import io.github.redislock.internal.backend.LockKeys;
import io.github.redislock.internal.backend.OrderedOps;
import io.github.redislock.internal.backend.ReadWriteOps;
import io.github.redislock.internal.util.Tokens;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * The write lock of a read-write lock ({@code RedisReadWriteLock.writeLock()}): the lock key, taken
 * only when no read share is live. Each wait leaves an intent ({@link #forWait}) that holds later
 * readers back, so that writers are not starved; its attempts renew the intent's lease, which the
 * wait keeps short enough ({@link #maxWaitNanos}), so that the intent of a writer whose process
 * died lapses; a wait that gives up withdraws it before its call returns ({@link WaitEntry}). The
 * lock key's renewal, release and fencing are the plain lock's.
 */
public final class WriteKind extends LockKeyKind {
  private final ReadWriteOps ops;
  private final Executor io;
  private final long maxWaitNanos;

  /** The intents of waits not over yet: acquired or withdrawn, an intent goes. */
  private final WaitEntries intents;

  /**
   * The write locks of {@code backend}.
   *
   * @param io withdraws intents at close, and in the background when a waiter could not
   * @param leaseNanos the lease of holds and of intents
   * @throws UnsupportedOperationException where the backend has no read-write locks (Redlock)
   */
  public WriteKind(LockBackend backend, Executor io, long leaseNanos) {
    super(backend);
    this.ops = OrderedOps.readWriteOps(backend.orderedOps());
    this.io = io;
    this.intents = new WaitEntries(io);
    this.maxWaitNanos = leaseNanos / 3;
  }

  /** {@code base} over its backend's view for {@code leaseMillis} (see {@link #withLease}). */
  private WriteKind(WriteKind base, long leaseMillis) {
    super(base.backend.withLease(leaseMillis), base.fencing);
    this.ops = OrderedOps.readWriteOps(backend.orderedOps());
    this.io = base.io;
    this.intents = base.intents;
    this.maxWaitNanos = TimeUnit.MILLISECONDS.toNanos(leaseMillis) / 3;
  }

  @Override
  public String label() {
    return "write";
  }

  @Override
  public Attempts forWait(boolean barge) {
    if (barge) {
      return this;
    }
    Intent intent = new Intent(Tokens.next());
    intents.add(intent);
    return intent;
  }

  /** Every intent of a wait still going is withdrawn, in parallel, for a bounded time. */
  @Override
  public void closing() {
    intents.leaveAll();
  }

  /** A {@code tryLock()}: one attempt, which leaves no intent. */
  @Override
  public Acquisition tryAcquire(LockKeys keys, String token, boolean expectBusy) {
    return ops.tryWrite(keys, token, "", fenced());
  }

  /** One waiting writer's intent: its attempts, and its withdrawal (see {@link WaitEntry}). */
  private final class Intent extends WaitEntry {
    Intent(String writerId) {
      super(WriteKind.this, intents, io, writerId);
    }

    @Override
    Acquisition attempt(LockKeys keys, String token) {
      return ops.tryWrite(keys, token, id, fenced());
    }

    @Override
    void takeOut(LockKeys keys, String unsettled) {
      ops.leave(keys, id, unsettled);
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

  /**
   * {@inheritDoc}
   *
   * <p>Its intents are this kind's: {@link #closing()} of either withdraws them all; a wait
   * attempts at least every third of {@code leaseMillis}, which renews its intent.
   */
  @Override
  public WriteKind withLease(long leaseMillis) {
    return new WriteKind(this, leaseMillis);
  }
}
