package io.github.redislock.torture;

import java.util.Date;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.LockSupport;

/**
 * The checker's own test: with {@code -Dtorture.sabotage=P}, P in a thousand sections hold a broken
 * lock instead of the real one, and the run must then report violations and exit with 1. Each kind
 * gets the breakage its own checks must catch ({@link #of}):
 *
 * <ul>
 *   <li>an exclusive or write section: a "lock" that grants every call at once, always says it is
 *       held, and makes its token from the local clock (two valid holders, stale writes accepted,
 *       tokens out of order, losses not reported);
 *   <li>a read section of a read-write lock: a read lock that grants every call at once and always
 *       says it is held, whoever writes (a read beside a write);
 *   <li>a section with a condition: the real lock, whose {@code await} releases it, waits 30 ms and
 *       returns without re-acquiring it, while the section goes on believing it holds the lock with
 *       its old token (an await that kept its token, two holders after an await).
 * </ul>
 */
final class Sabotage implements Lock {

  /** The broken version of a section's target. */
  static TortureKind.Target of(TortureKind.Target real) {
    if (real.mode() == 'r') {
      return new TortureKind.Target(new Sabotage(), 'r', () -> 0L, () -> true, () -> 1);
    }
    if (real.condition() != null) {
      BrokenAwait broken = new BrokenAwait(real);
      return new TortureKind.Target(
          broken, real.mode(), broken::token, broken::held, broken::holdCount, () -> broken);
    }
    return new TortureKind.Target(
        new Sabotage(), real.mode(), () -> History.nowMicros() * 10, () -> true, () -> 1);
  }

  @Override
  public void lock() {}

  @Override
  public void lockInterruptibly() {}

  @Override
  public boolean tryLock() {
    return true;
  }

  @Override
  public boolean tryLock(long time, TimeUnit unit) {
    return true;
  }

  @Override
  public void unlock() {}

  @Override
  public Condition newCondition() {
    throw new UnsupportedOperationException();
  }

  /**
   * The real lock and condition until an await, which releases the lock for real and does not take
   * it again; from then on the target lies: held, with the token and hold count it had, and its
   * releases do nothing.
   */
  static final class BrokenAwait implements Lock, Condition {
    private final TortureKind.Target real;
    private boolean released;
    private long token;
    private int holds;

    BrokenAwait(TortureKind.Target real) {
      this.real = real;
    }

    long token() {
      return released ? token : real.token().getAsLong();
    }

    boolean held() {
      return released || real.heldByCurrentThread().getAsBoolean();
    }

    int holdCount() {
      return released ? holds : real.holdCount().getAsInt();
    }

    private boolean brokenAwait() throws InterruptedException {
      if (Thread.interrupted()) {
        throw new InterruptedException();
      }
      token = real.token().getAsLong();
      holds = real.holdCount().getAsInt();
      for (int i = 0; i < holds; i++) {
        real.lock().unlock();
      }
      released = true;
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(30));
      return true;
    }

    @Override
    public void await() throws InterruptedException {
      brokenAwait();
    }

    @Override
    public void awaitUninterruptibly() {
      try {
        brokenAwait();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }

    @Override
    public long awaitNanos(long nanosTimeout) throws InterruptedException {
      brokenAwait();
      return 1;
    }

    @Override
    public boolean await(long time, TimeUnit unit) throws InterruptedException {
      return brokenAwait();
    }

    @Override
    public boolean awaitUntil(Date deadline) throws InterruptedException {
      return brokenAwait();
    }

    @Override
    public void signal() {
      if (!released) {
        real.condition().get().signal();
      }
    }

    @Override
    public void signalAll() {
      if (!released) {
        real.condition().get().signalAll();
      }
    }

    @Override
    public void lock() {
      if (released) {
        holds++;
      } else {
        real.lock().lock();
      }
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
      if (released) {
        holds++;
      } else {
        real.lock().lockInterruptibly();
      }
    }

    @Override
    public boolean tryLock() {
      if (released) {
        holds++;
        return true;
      }
      return real.lock().tryLock();
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
      if (released) {
        holds++;
        return true;
      }
      return real.lock().tryLock(time, unit);
    }

    @Override
    public void unlock() {
      if (released) {
        holds = Math.max(0, holds - 1);
      } else {
        real.lock().unlock();
      }
    }

    @Override
    public Condition newCondition() {
      return this;
    }
  }
}
