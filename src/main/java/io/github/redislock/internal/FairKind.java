package io.github.redislock.internal;

import io.github.redislock.internal.backend.Acquisition;
import io.github.redislock.internal.backend.FairQueue;
import io.github.redislock.internal.backend.FairQueue.Turn;
import io.github.redislock.internal.backend.LockBackend;
import io.github.redislock.internal.backend.LockKeys;
import io.github.redislock.internal.backend.Release;
import io.github.redislock.internal.util.Tokens;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fair lock ({@code RedisLockFactory.getFairLock}): waiters of every process queue in Redis and
 * acquire in the order they reached it. Each wait holds a place ({@link #forWait}): its attempts
 * renew the place's lease, which the wait keeps short enough ({@link #maxWaitNanos}), so that the
 * place of a waiter whose process died is skipped once it runs out; giving up leaves the queue at
 * once; a release hands the lock to the first waiter and wakes it alone ({@link
 * LockKind#handedToken}). The lock key, its renewal and fencing are the plain lock's.
 */
final class FairKind implements LockKind {
  private static final Logger log = LoggerFactory.getLogger(FairKind.class);

  /** How long a closing factory waits for its waiters' places to leave their queues. */
  static final long LEAVE_AT_CLOSE_MILLIS = 1000;

  private final LockBackend backend;
  private final FairQueue queue;
  private final Executor io;
  private final long maxWaitNanos;
  private final LockKind inTurn = new InTurn();

  /** The places of waits not over yet: acquired or left, a place goes. */
  private final Set<Place> places = ConcurrentHashMap.newKeySet();

  private volatile boolean fencingWanted;

  /**
   * The fair locks of {@code backend}.
   *
   * @param io runs the leaving of a queue in the background
   * @param leaseNanos the lease of holds and of places in the queue
   * @throws UnsupportedOperationException where the backend has no fair locks (Redlock)
   */
  FairKind(LockBackend backend, Executor io, long leaseNanos) {
    this.backend = backend;
    this.queue = backend.fairQueue();
    this.io = io;
    this.maxWaitNanos = leaseNanos / 3;
  }

  @Override
  public LockKind forWait(boolean barge) {
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
    List<CompletableFuture<Void>> leaving = new ArrayList<>();
    for (Place place : places) {
      LockKeys keys = place.leaveAtClose();
      if (keys != null) {
        try {
          leaving.add(CompletableFuture.runAsync(() -> place.leaveQuietly(keys), io));
        } catch (RejectedExecutionException e) {
          place.leaveQuietly(keys);
        }
      }
    }
    try {
      CompletableFuture.allOf(leaving.toArray(CompletableFuture[]::new))
          .get(LEAVE_AT_CLOSE_MILLIS, TimeUnit.MILLISECONDS);
    } catch (TimeoutException | ExecutionException e) {
      log.debug("places in fair queues not all left at close; they expire with their leases", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public LockKind forAttemptInTurn() {
    return inTurn;
  }

  /** A {@code tryLock()}: takes a free lock, whoever queues. */
  @Override
  public Acquisition tryAcquire(LockKeys keys, String token, boolean expectBusy) {
    return queue.tryAcquire(keys, token, "", fencingWanted, Turn.BARGE);
  }

  @Override
  public boolean extend(Hold hold) {
    return backend.extend(hold.keys, hold.token);
  }

  @Override
  public Release release(Hold hold) {
    return queue.release(hold.keys, hold.token);
  }

  @Override
  public void releaseToken(LockKeys keys, String token) {
    queue.release(keys, token);
  }

  @Override
  public long reissueFence(Hold hold) {
    return backend.reissueFence(hold.keys, hold.token, hold.grant);
  }

  @Override
  public boolean confirmFence(Hold hold, long fencingToken) {
    return backend.confirmFence(hold.keys, hold.token, fencingToken);
  }

  @Override
  public void fencingWanted() {
    if (!fencingWanted) {
      fencingWanted = true;
    }
  }

  /**
   * The attempts of one {@code tryLock(0, unit)}: a free lock is taken only if nobody waits, and
   * nothing is queued.
   */
  private final class InTurn extends WaitAttempts {
    InTurn() {
      super(FairKind.this);
    }

    @Override
    public Acquisition tryAcquire(LockKeys keys, String token, boolean expectBusy) {
      return queue.tryAcquire(keys, token, "", fencingWanted, Turn.IF_NOBODY_WAITS);
    }
  }

  /**
   * One waiter's place in the queue: its attempts, and its leaving. An attempt may still be on its
   * way when the wait gives up (a timed attempt runs on the I/O executor, and its caller stops
   * waiting for it at the deadline); one that was not granted and ends after the leaving takes the
   * place it may have queued out again.
   */
  private final class Place extends WaitAttempts {
    private final String waiterId;
    private volatile boolean left;

    /** The keys of the queue its attempts reached, once they did. */
    private volatile LockKeys queued;

    Place(String waiterId) {
      super(FairKind.this);
      this.waiterId = waiterId;
    }

    @Override
    public Acquisition tryAcquire(LockKeys keys, String token, boolean expectBusy) {
      queued = keys;
      Acquisition attempt = null;
      try {
        attempt = queue.tryAcquire(keys, token, waiterId, fencingWanted, Turn.QUEUE);
        if (attempt.acquired()) {
          places.remove(this);
        } else if (!left) {
          places.add(this); // again, after a hand-over that came too late to be taken
        }
        return attempt;
      } finally {
        if (left && (attempt == null || !attempt.acquired())) {
          leaveQuietly(keys); // a grant is released by whoever abandoned the attempt
        }
      }
    }

    @Override
    public void leave(LockKeys keys) {
      left = true;
      places.remove(this);
      try {
        io.execute(() -> leaveQuietly(keys));
      } catch (RejectedExecutionException e) {
        log.debug("factory closed; the place of a waiter of '{}' expires with its lease", keys);
      }
    }

    /** Marks the wait left, for the factory's close: the queue's keys, or null if none. */
    LockKeys leaveAtClose() {
      left = true;
      places.remove(this);
      return queued;
    }

    void leaveQuietly(LockKeys keys) {
      try {
        queue.leave(keys, waiterId);
      } catch (RuntimeException e) {
        log.debug("could not leave the queue of '{}'; the place expires", keys.lock(), e);
      }
    }

    @Override
    public String waiterId() {
      return waiterId;
    }

    /** A release handed the lock to this waiter: the key holds its id. */
    @Override
    public String handedToken() {
      places.remove(this);
      return waiterId;
    }

    @Override
    public long maxWaitNanos() {
      return maxWaitNanos;
    }
  }
}
