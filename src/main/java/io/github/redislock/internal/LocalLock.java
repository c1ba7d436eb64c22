package io.github.redislock.internal;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.AbstractQueuedLongSynchronizer;
import java.util.concurrent.locks.LockSupport;

/**
 * The JVM-local queue of one lock name: a reentrant, non-fair mutual exclusion lock like {@link
 * java.util.concurrent.locks.ReentrantLock}, whose hold count is the lock's reentrancy count, with
 * two things a {@code ReentrantLock} cannot do. Its ownership can be {@linkplain #revoke revoked}
 * by another thread, when the owner's Redis hold is lost, so that the next waiter gets it without
 * the former owner's {@code unlock()}. And once its factory is closed it {@linkplain
 * #wakeQueuedAfterClose wakes} every queued thread with an {@link IllegalStateException}.
 *
 * <p>The state is one {@code long}: an epoch in the upper 32 bits, which grows each time the lock
 * passes from free to owned, and the hold count in the lower 32. Every change is a compare-and-set
 * of the whole word, so the owner's own changes and a revocation cannot interleave, and a
 * revocation aimed at one ownership (its epoch) can never take a later one. The owning thread is
 * written after the compare-and-set that makes it the owner, with the epoch it owns ({@link
 * #ownerEpoch}): a thread is the owner while the word has a hold count, the owner field names it
 * and its epoch is the word's.
 */
final class LocalLock extends AbstractQueuedLongSynchronizer {
  private static final long serialVersionUID = 1L;
  private static final long COUNT_MASK = 0xffff_ffffL;
  private static final long ONE_EPOCH = 1L << 32;
  private static final long MAX_COUNT = Integer.MAX_VALUE;
  private static final int MAX_WAKE_ROUNDS = 1000;

  /** No state word: a hold count never reaches {@code 0xffffffff}. */
  private static final long NOT_OWNED = -1;

  /** The argument of {@link #release} that only wakes the next waiter. */
  private static final long WAKE = 0;

  private final transient Lifecycle lifecycle;
  private final boolean firstComeFirstServed;
  private transient volatile Thread owner;
  private transient volatile long ownerEpoch;

  /**
   * A local lock of a factory whose closing it obeys.
   *
   * @param lifecycle the factory's: once it is closed, every acquisition throws
   */
  LocalLock(Lifecycle lifecycle, boolean firstComeFirstServed) {
    this.lifecycle = lifecycle;
    this.firstComeFirstServed = firstComeFirstServed;
  }

  // ---- the owner's side ----

  /** Acquires, waiting without interruption. */
  void lock() {
    acquire(1);
  }

  /** Acquires unless interrupted. */
  void lockInterruptibly() throws InterruptedException {
    acquireInterruptibly(1);
  }

  /** Acquires if free now, whoever is queued (as {@code ReentrantLock.tryLock()} does). */
  boolean tryLock() {
    return claim();
  }

  /**
   * As {@link #tryLock()} for bookkeeping that may run as the factory closes: {@code false} once it
   * is closed, where {@code tryLock()} throws.
   */
  boolean tryLockWhileOpen() {
    return !lifecycle.isClosed() && claimFree();
  }

  /** Acquires if free within {@code nanos}; {@code false} when the time ran out. */
  boolean tryLock(long nanos) throws InterruptedException {
    return tryAcquireNanos(1, nanos);
  }

  /**
   * The owner acquires once more; {@code false} when the calling thread does not own the lock (any
   * more: its ownership may have been revoked).
   */
  boolean reenter() {
    Thread current = Thread.currentThread();
    while (true) {
      long state = ownedState(current);
      if (state == NOT_OWNED) {
        return false;
      }
      if (count(state) == MAX_COUNT) {
        throw new Error("Maximum lock count exceeded");
      }
      if (compareAndSetState(state, state + 1)) {
        return true;
      }
    }
  }

  /**
   * The owner gives back one hold; the last wakes the next waiter. {@code false} when the calling
   * thread does not own the lock (any more).
   */
  boolean unlockOnce() {
    Thread current = Thread.currentThread();
    while (true) {
      long state = ownedState(current);
      if (state == NOT_OWNED) {
        return false;
      }
      if (compareAndSetState(state, state - 1)) {
        if (count(state) == 1) {
          release(WAKE);
        }
        return true;
      }
    }
  }

  /**
   * The owner gives back every hold at once, and wakes the next waiter. {@code false} when the
   * calling thread does not own the lock (any more).
   */
  boolean unlockAll() {
    Thread current = Thread.currentThread();
    while (true) {
      long state = ownedState(current);
      if (state == NOT_OWNED) {
        return false;
      }
      if (compareAndSetState(state, epoch(state))) {
        release(WAKE);
        return true;
      }
    }
  }

  // ---- queries ----

  boolean isHeldByCurrentThread() {
    return ownedState(Thread.currentThread()) != NOT_OWNED;
  }

  /** The calling thread's hold count, 0 when it does not own the lock. */
  int getHoldCount() {
    long state = ownedState(Thread.currentThread());
    return state == NOT_OWNED ? 0 : (int) count(state);
  }

  /**
   * The ownership epoch of the calling thread, to {@linkplain #revoke revoke} later, or -1 when it
   * does not own the lock.
   */
  long ownedEpoch() {
    long state = ownedState(Thread.currentThread());
    return state == NOT_OWNED ? -1 : epoch(state);
  }

  /** Whether some thread owns the lock. */
  boolean isLocked() {
    return count(getState()) > 0;
  }

  /** The thread owning epoch {@code epoch}, or {@code null} when that ownership has ended. */
  Thread ownerOf(long epoch) {
    long epochOwned = ownerEpoch; // read first: an acquirer writes it last
    Thread thread = owner;
    long state = getState();
    return count(state) > 0 && epoch(state) == epoch && epochOwned == epoch ? thread : null;
  }

  // ---- other threads ----

  /**
   * Ends the ownership of epoch {@code epoch}, whatever its hold count, and wakes the next waiter.
   *
   * @return whether it ended it now; {@code false} when it had ended already (released by its
   *     owner, or revoked)
   */
  boolean revoke(long epoch) {
    while (true) {
      long state = getState();
      if (count(state) == 0 || epoch(state) != epoch) {
        return false;
      }
      if (compareAndSetState(state, epoch(state))) {
        release(WAKE);
        return true;
      }
    }
  }

  /**
   * Wakes the queued threads after the factory was closed: each tries again, and throws. A thread
   * that queues later throws at its first try. Bounded, so that a close never hangs.
   */
  void wakeQueuedAfterClose() {
    for (int round = 0; round < MAX_WAKE_ROUNDS && hasQueuedThreads(); round++) {
      for (Thread waiter : getQueuedThreads()) {
        LockSupport.unpark(waiter);
      }
      LockSupport.parkNanos(this, TimeUnit.MILLISECONDS.toNanos(1));
    }
  }

  // ---- AbstractQueuedLongSynchronizer ----

  @Override
  protected boolean tryAcquire(long acquires) {
    if (firstComeFirstServed && hasQueuedPredecessors()) {
      lifecycle.checkOpen();
      return false;
    }
    return claim();
  }

  /** Takes the lock if it is free. */
  private boolean claim() {
    lifecycle.checkOpen();
    return claimFree();
  }

  /** Takes the lock if it is free, whether or not the factory is closed. */
  private boolean claimFree() {
    long state = getState();
    if (count(state) != 0) {
      return false;
    }
    long owned = epoch(state) + ONE_EPOCH + 1;
    if (!compareAndSetState(state, owned)) {
      return false;
    }
    owner = Thread.currentThread();
    ownerEpoch = epoch(owned);
    return true;
  }

  /** Only wakes the next waiter: every change of the state is made by the methods above. */
  @Override
  protected boolean tryRelease(long releases) {
    return true;
  }

  @Override
  protected boolean isHeldExclusively() {
    return isHeldByCurrentThread();
  }

  /**
   * The state word when {@code thread} owns the lock, else {@link #NOT_OWNED}. An acquirer writes
   * the state, then the owner, then the owned epoch; so this reads them in the opposite order: an
   * epoch that is the state's own was written after the owner that goes with it.
   */
  private long ownedState(Thread thread) {
    long epochOwned = ownerEpoch;
    if (owner != thread) {
      return NOT_OWNED;
    }
    long state = getState();
    return count(state) > 0 && epoch(state) == epochOwned ? state : NOT_OWNED;
  }

  private static long count(long state) {
    return state & COUNT_MASK;
  }

  private static long epoch(long state) {
    return state & ~COUNT_MASK;
  }
}
