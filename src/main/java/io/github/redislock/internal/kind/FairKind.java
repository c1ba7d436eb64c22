package io.github.redislock.internal.kind;

import io.github.redislock.internal.backend.Acquisition;
import io.github.redislock.internal.backend.Acquisition.Grant;
import io.github.redislock.internal.backend.FairQueue;
import io.github.redislock.internal.backend.LockBackend;
import io.github.redislock.internal.backend.LockKeys;
import io.github.redislock.internal.backend.OrderedOps;
import io.github.redislock.internal.backend.Release;
import io.github.redislock.internal.backend.Turn;
import io.github.redislock.internal.util.Tokens;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The fair lock ({@code RedisLockFactory.getFairLock}): waiters of every process queue in Redis and
 * acquire in the order they reached it. Each wait holds a place ({@link #forWait}): its attempts
 * renew the place's lease, which the wait keeps short enough ({@link #maxWaitNanos}), so that the
 * place of a waiter whose process died is skipped once it runs out; a wait that gives up leaves the
 * queue before its call returns ({@link WaitEntry}); a release hands the lock to the first waiter
 * and wakes it alone ({@link Attempts#handedToken}). The lock key, its renewal and fencing are the
 * plain lock's.
 */
public final class FairKind implements FencedKind, Attempts {
  /** How long a closing factory waits for its waiters' places to leave their queues. */
  public static final long LEAVE_AT_CLOSE_MILLIS = WaitEntries.LEAVE_AT_CLOSE_MILLIS;

  private final LockBackend backend;
  private final FairQueue queue;
  private final Executor io;
  private final long maxWaitNanos;
  private final Attempts inTurn = new InTurn();

  /** The places of waits not over yet: acquired or left, a place goes. */
  private final WaitEntries places;

  /** Whether acquisitions issue fencing tokens: one flag for this kind and its leased ones. */
  private final AtomicBoolean fencing;

  /**
   * The fair locks of {@code backend}.
   *
   * @param io takes places out of the queue at close, and in the background when a waiter could not
   * @param leaseNanos the lease of holds and of places in the queue
   * @throws UnsupportedOperationException where the backend has no fair locks (Redlock)
   */
  public FairKind(LockBackend backend, Executor io, long leaseNanos) {
    this.backend = backend;
    this.queue = OrderedOps.fairQueue(backend.orderedOps());
    this.io = io;
    this.places = new WaitEntries(io);
    this.maxWaitNanos = leaseNanos / 3;
    this.fencing = new AtomicBoolean();
  }

  /** {@code base} over its backend's view for {@code leaseMillis} (see {@link #withLease}). */
  private FairKind(FairKind base, long leaseMillis) {
    this.backend = base.backend.withLease(leaseMillis);
    this.queue = OrderedOps.fairQueue(backend.orderedOps());
    this.io = base.io;
    this.places = base.places;
    this.maxWaitNanos = TimeUnit.MILLISECONDS.toNanos(leaseMillis) / 3;
    this.fencing = base.fencing;
  }

  @Override
  public String label() {
    return "fair";
  }

  @Override
  public Attempts forWait(boolean barge) {
    if (barge) {
      return this;
    }
    Place place = new Place(Tokens.next());
    places.add(place);
    return place;
  }

  /** Every place still waiting leaves the queue, in parallel, for a bounded time. */
  @Override
  public void closing() {
    places.leaveAll();
  }

  @Override
  public Attempts forAttemptInTurn() {
    return inTurn;
  }

  /** A {@code tryLock()}: takes a free lock, whoever queues. */
  @Override
  public Acquisition tryAcquire(LockKeys keys, String token, boolean expectBusy) {
    return queue.tryAcquire(keys, token, "", fencing.get(), Turn.BARGE);
  }

  @Override
  public boolean extend(LockKeys keys, String token) {
    return backend.extend(keys, token);
  }

  @Override
  public Release release(LockKeys keys, String token, long fencingToken, Grant grant) {
    return queue.release(keys, token);
  }

  @Override
  public void releaseToken(LockKeys keys, String token) {
    queue.release(keys, token);
  }

  @Override
  public long reissueFence(LockKeys keys, String token, Grant grant) {
    return backend.reissueFence(keys, token, grant);
  }

  @Override
  public boolean confirmFence(LockKeys keys, String token, long fencingToken) {
    return backend.confirmFence(keys, token, fencingToken);
  }

  @Override
  public void fencingWanted() {
    if (!fencing.get()) {
      fencing.set(true);
    }
  }

  /**
   * The attempts of one {@code tryLock(0, unit)}: a free lock is taken only if nobody waits, and
   * nothing is queued.
   */
  private final class InTurn implements Attempts {
    @Override
    public Acquisition tryAcquire(LockKeys keys, String token, boolean expectBusy) {
      return queue.tryAcquire(keys, token, "", fencing.get(), Turn.IF_NOBODY_WAITS);
    }

    @Override
    public void releaseToken(LockKeys keys, String token) {
      FairKind.this.releaseToken(keys, token);
    }
  }

  /** One waiter's place in the queue: its attempts, and its leaving (see {@link WaitEntry}). */
  private final class Place extends WaitEntry {
    Place(String waiterId) {
      super(FairKind.this, places, io, waiterId);
    }

    @Override
    Acquisition attempt(LockKeys keys, String token) {
      return queue.tryAcquire(keys, token, id, fencing.get(), Turn.QUEUE);
    }

    @Override
    void takeOut(LockKeys keys, String unsettled) {
      queue.leave(keys, id, unsettled);
    }

    @Override
    public String waiterId() {
      return id;
    }

    /** A release handed the lock to this waiter: the key holds its id. */
    @Override
    public String handedToken() {
      acquiredByHandOver();
      return id;
    }

    @Override
    public long maxWaitNanos() {
      return maxWaitNanos;
    }
  }

  /**
   * {@inheritDoc}
   *
   * <p>Its places are this kind's: {@link #closing()} of either takes them all out; a wait attempts
   * at least every third of {@code leaseMillis}, which renews its place.
   */
  @Override
  public FairKind withLease(long leaseMillis) {
    return new FairKind(this, leaseMillis);
  }
}
