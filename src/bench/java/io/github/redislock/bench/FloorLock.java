package io.github.redislock.bench;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

/**
 * Base of the hand-written floors: only {@code lock}, {@code lockInterruptibly} and {@code unlock}
 * are needed by the benchmark; the rest is unsupported.
 */
abstract class FloorLock implements Lock {

  @Override
  public boolean tryLock() {
    throw new UnsupportedOperationException("not needed by the benchmark");
  }

  @Override
  public boolean tryLock(long time, TimeUnit unit) {
    throw new UnsupportedOperationException("not needed by the benchmark");
  }

  @Override
  public Condition newCondition() {
    throw new UnsupportedOperationException("not needed by the benchmark");
  }
}
