package io.github.redislock.bench;

import java.util.concurrent.locks.Lock;

/**
 * One lock implementation as the benchmark drives it: it hands out {@link Lock}s by name and is
 * closed at the end. Locks of the same name are the same lock, across threads, instances and
 * processes (for the floors: across everything that uses the same Redis key).
 *
 * <p>Every thread of a scenario asks for its own lock object of the shared name, as separate
 * processes would; implementations that cache lock objects per name (Spring) return the cached one.
 */
interface LockUnderTest extends AutoCloseable {

  /**
   * Returns a lock of the given name.
   *
   * @param name the lock's name
   * @return the lock; {@code lock}, {@code lockInterruptibly} and {@code unlock} are supported
   */
  Lock newLock(String name);

  /** Releases every connection and thread of this implementation. */
  @Override
  void close();
}
