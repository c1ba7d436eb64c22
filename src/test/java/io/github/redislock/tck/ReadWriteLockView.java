package io.github.redislock.tck;

import io.github.redislock.RedisReadWriteLock;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * What the TCK's {@code ReentrantReadWriteLockTest} uses of a read-write lock: the queries that
 * {@link ReentrantReadWriteLock} and {@link RedisReadWriteLock} both have, under one type.
 */
interface ReadWriteLockView {
  Lock readLock();

  /** The write lock, whose {@code isLocked()} is {@link #isWriteLocked()}. */
  ReentrantLockView writeLock();

  boolean isWriteLocked();

  boolean isWriteLockedByCurrentThread();

  int getWriteHoldCount();

  int getReadLockCount();

  int getReadHoldCount();

  static ReadWriteLockView of(ReentrantReadWriteLock lock) {
    ReentrantReadWriteLock.WriteLock write = lock.writeLock();
    ReentrantLockView writeView =
        new ReentrantLockView.Delegate(write) {
          @Override
          public boolean isLocked() {
            return lock.isWriteLocked();
          }

          @Override
          public boolean isHeldByCurrentThread() {
            return write.isHeldByCurrentThread();
          }

          @Override
          public int getHoldCount() {
            return write.getHoldCount();
          }
        };
    return new ReadWriteLockView() {
      @Override
      public Lock readLock() {
        return lock.readLock();
      }

      @Override
      public ReentrantLockView writeLock() {
        return writeView;
      }

      @Override
      public boolean isWriteLocked() {
        return lock.isWriteLocked();
      }

      @Override
      public boolean isWriteLockedByCurrentThread() {
        return lock.isWriteLockedByCurrentThread();
      }

      @Override
      public int getWriteHoldCount() {
        return lock.getWriteHoldCount();
      }

      @Override
      public int getReadLockCount() {
        return lock.getReadLockCount();
      }

      @Override
      public int getReadHoldCount() {
        return lock.getReadHoldCount();
      }

      @Override
      public String toString() {
        return lock.toString();
      }
    };
  }

  static ReadWriteLockView of(RedisReadWriteLock lock) {
    RedisReadWriteLock.WriteLock write = lock.writeLock();
    ReentrantLockView writeView =
        new ReentrantLockView.Delegate(write) {
          @Override
          public boolean isLocked() {
            return lock.isWriteLocked();
          }

          @Override
          public boolean isHeldByCurrentThread() {
            return write.isHeldByCurrentThread();
          }

          @Override
          public int getHoldCount() {
            return write.getHoldCount();
          }
        };
    return new ReadWriteLockView() {
      @Override
      public Lock readLock() {
        return lock.readLock();
      }

      @Override
      public ReentrantLockView writeLock() {
        return writeView;
      }

      @Override
      public boolean isWriteLocked() {
        return lock.isWriteLocked();
      }

      @Override
      public boolean isWriteLockedByCurrentThread() {
        return lock.isWriteLockedByCurrentThread();
      }

      @Override
      public int getWriteHoldCount() {
        return lock.getWriteHoldCount();
      }

      @Override
      public int getReadLockCount() {
        return lock.getReadLockCount();
      }

      @Override
      public int getReadHoldCount() {
        return lock.getReadHoldCount();
      }

      @Override
      public String toString() {
        return lock.toString();
      }
    };
  }
}
