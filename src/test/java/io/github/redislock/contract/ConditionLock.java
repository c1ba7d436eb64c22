package io.github.redislock.contract;

import io.github.redislock.RedisDistributedLock;
import io.github.redislock.RedisReadWriteLock;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

/**
 * A lock whose conditions {@link ConditionContractTest} checks: a plain or fair {@link
 * RedisDistributedLock}, or the write lock of a {@link RedisReadWriteLock}. The methods the suite
 * calls beyond {@link Lock}'s, which the two classes have each.
 */
interface ConditionLock extends Lock {
  Condition newCondition(String name);

  long getFencingToken();

  boolean isHeldByCurrentThread();

  int getHoldCount();

  static ConditionLock of(RedisDistributedLock lock) {
    return new Forwarding(lock) {
      @Override
      public Condition newCondition(String name) {
        return lock.newCondition(name);
      }

      @Override
      public long getFencingToken() {
        return lock.getFencingToken();
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

  static ConditionLock of(RedisReadWriteLock.WriteLock lock) {
    return new Forwarding(lock) {
      @Override
      public Condition newCondition(String name) {
        return lock.newCondition(name);
      }

      @Override
      public long getFencingToken() {
        return lock.getFencingToken();
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

  /** The {@code Lock} methods, forwarded. */
  abstract class Forwarding implements ConditionLock {
    private final Lock lock;

    Forwarding(Lock lock) {
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
