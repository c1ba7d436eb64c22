package io.github.redislock.tck;

/**
 * The control: the port of the TCK's {@code ReentrantReadWriteLockTest} on the JDK's {@code
 * ReentrantReadWriteLock}, plain and fair, which must pass it as it passes the TCK. A failure here
 * is a fault of the port, not of the library.
 */
class ReentrantReadWriteLockControlTest extends ReentrantReadWriteLockPort {
  @Override
  protected LockMaker newMaker() {
    return new JdkLocks();
  }
}
