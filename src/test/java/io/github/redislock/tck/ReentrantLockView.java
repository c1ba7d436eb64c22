package io.github.redislock.tck;

import io.github.redislock.RedisDistributedLock;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;

/**
 * What the TCK's {@code ReentrantLockTest} uses of a lock besides {@link Lock}: the queries that
 * {@link ReentrantLock} and {@link RedisDistributedLock} both have, under one type.
 */
interface ReentrantLockView extends Lock {
  boolean isLocked();

  boolean isHeldByCurrentThread();

  int getHoldCount();

  static ReentrantLockView of(ReentrantLock lock) {
    return new Delegate(lock) {
      @Override
      public boolean isLocked() {
        return lock.isLocked();
      }

      @Override
      public boolean isHeldByCurrentThread() {
        return lock.isHeldByCurrentThread();
      }

      @Override
      public int getHoldCount() {
        return lock.getHoldCount();
      }
    };
  }

  static ReentrantLockView of(RedisDistributedLock lock) {
    return new Delegate(lock) {
      @Override
      public boolean isLocked() {
        return lock.isLocked();
      }

      @Override
      public boolean isHeldByCurrentThread() {
        return lock.isHeldByCurrentThread();
      }

      @Override
      public int getHoldCount() {
        return lock.getHoldCount();
      }
    };
  }

  /** Forwards the {@link Lock} methods. */
  abstract class Delegate implements ReentrantLockView {
    private final Lock lock;

    Delegate(Lock lock) {
      this.lock = lock;
    }

    @Override
    public void lock() {
      lock.lock();
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
      lock.lockInterruptibly();
    }

    @Override
    public boolean tryLock() {
      return lock.tryLock();
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
      return lock.tryLock(time, unit);
    }

    @Override
    public void unlock() {
      lock.unlock();
    }

    @Override
    public Condition newCondition() {
      return lock.newCondition();
    }

    @Override
    public String toString() {
      return lock.toString();
    }
  }
}
