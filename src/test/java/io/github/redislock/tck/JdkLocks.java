package io.github.redislock.tck;

import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/** The control: the JDK's {@link ReentrantLock} and {@link ReentrantReadWriteLock}. */
final class JdkLocks implements LockMaker {

  @Override
  public Both<ReentrantLockView> lock(String name, boolean fair) {
    return Both.same(ReentrantLockView.of(new ReentrantLock(fair)));
  }

  @Override
  public Optional<Both<ReadWriteLockView>> readWriteLock(String name, boolean fair) {
    return Optional.of(Both.same(ReadWriteLockView.of(new ReentrantReadWriteLock(fair))));
  }

  @Override
  public boolean readersWaitForWaitingWriter(boolean fair) {
    return fair;
  }

  @Override
  public boolean readLockCountCountsHolds() {
    return true;
  }

  @Override
  public void checkClean(String name) {
    // A JDK lock leaves nothing outside the objects the test drops.
  }

  @Override
  public void close() {
    // Nothing to stop.
  }
}
