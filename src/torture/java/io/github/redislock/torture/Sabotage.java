package io.github.redislock.torture;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

/**
 * The checker's own test: with {@code -Dtorture.sabotage=P}, P in a thousand sections hold this
 * "lock" instead of the real one. It grants every call at once, always says it is held, and makes
 * its token from the local clock, as a broken lock would: the run must then report violations and
 * exit with 1.
 */
final class Sabotage implements Lock {

  static TortureKind.Target target() {
    return new TortureKind.Target(
        new Sabotage(), 'x', () -> History.nowMicros() * 10, () -> true, () -> 1);
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
}
