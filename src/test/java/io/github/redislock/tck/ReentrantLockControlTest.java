package io.github.redislock.tck;

/**
 * The control: the port of the TCK's {@code ReentrantLockTest} on the JDK's {@code ReentrantLock},
 * which must pass it as it passes the TCK. A failure here is a fault of the port, not of the
 * library.
 */
class ReentrantLockControlTest extends ReentrantLockPort {
  @Override
  protected LockMaker newMaker() {
    return new JdkLocks();
  }
}
