package io.github.redislock;

import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReadWriteLock;

/**
 * A distributed {@link ReadWriteLock}. Not provided yet: {@link RedisLockFactory#getReadWriteLock}
 * throws {@link UnsupportedOperationException}, and no instance can be created.
 */
public final class RedisReadWriteLock implements ReadWriteLock {
  private final Lock readLock;
  private final Lock writeLock;

  @SuppressWarnings("UnusedMethod") // the factory builds it once read-write locks exist (issue 10)
  private RedisReadWriteLock(Lock readLock, Lock writeLock) {
    this.readLock = readLock;
    this.writeLock = writeLock;
  }

  /**
   * Returns the lock used for reading.
   *
   * @return the lock used for reading
   */
  @Override
  public Lock readLock() {
    return readLock;
  }

  /**
   * Returns the lock used for writing.
   *
   * @return the lock used for writing
   */
  @Override
  public Lock writeLock() {
    return writeLock;
  }
}
