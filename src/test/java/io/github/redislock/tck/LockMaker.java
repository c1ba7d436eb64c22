package io.github.redislock.tck;

import java.util.Optional;

/**
 * Makes the locks a TCK port runs on, and checks that a test left nothing of them behind. One maker
 * per test class: the JDK's locks (the control, which must pass the port unchanged), or the
 * library's on one or two factories.
 */
interface LockMaker extends AutoCloseable {

  /**
   * The mutual exclusion lock of this name, plain or fair.
   *
   * @param name the lock's name, new for each test
   * @param fair whether the lock is fair ({@code new ReentrantLock(true)}, {@code getFairLock})
   * @return the lock as the test's thread sees it, and as its other threads do
   */
  Both<ReentrantLockView> lock(String name, boolean fair);

  /**
   * The read-write lock of this name, plain or fair, if the maker has one of that kind.
   *
   * @param name the lock's name, new for each test
   * @param fair whether the lock is fair
   * @return the lock as the test's thread sees it, and as its other threads do; empty if the maker
   *     has no such lock (the library has no fair read-write lock)
   */
  Optional<Both<ReadWriteLockView>> readWriteLock(String name, boolean fair);

  /**
   * Whether a thread asking for the read lock (without holding either lock) waits while a writer
   * waits, although only readers hold the lock: the fair {@code ReentrantReadWriteLock} does; the
   * library's read-write lock does ("writers are not starved", its Javadoc says); the non-fair JDK
   * lock does only when the writer happens to be first in its queue.
   *
   * @param fair whether the read-write lock is the fair one
   * @return whether readers wait behind a waiting writer
   */
  boolean readersWaitForWaitingWriter(boolean fair);

  /**
   * Whether {@code getReadLockCount()} counts every reentrant read hold, as {@code
   * ReentrantReadWriteLock} does, rather than the threads holding the read lock, as {@link
   * io.github.redislock.RedisReadWriteLock#getReadLockCount()} documents.
   *
   * @return {@code true} for holds, {@code false} for threads
   */
  boolean readLockCountCountsHolds();

  /**
   * After a test: nothing of the lock {@code name} is held, renewed or stored any more (waiting a
   * little for clean-up the library does in the background).
   *
   * @param name the test's lock name
   */
  void checkClean(String name);

  /** After the class: nothing of the maker's is left running or stored. */
  @Override
  void close();
}
