package io.github.redislock;

/**
 * A lock held by the thread that acquired it, released by {@link #close()}: the form of a lock
 * acquisition for try-with-resources.
 *
 * <pre>{@code
 * try (LockHold hold = lock.acquire()) {
 *   storage.write(record, hold.fencingToken());
 * }
 * }</pre>
 *
 * <p>A hold is one acquisition, so one count of a reentrant lock: nested holds of the same lock by
 * the same thread count up, and each {@code close()} counts down once. Holds are obtained from
 * {@link RedisDistributedLock#acquire()}, {@link RedisDistributedLock#tryAcquire}, and the same
 * methods of a {@linkplain RedisReadWriteLock read-write lock}'s read and write locks. A hold
 * belongs to the thread that acquired it: only that thread may close it or ask for its token.
 */
public interface LockHold extends AutoCloseable {

  /**
   * Returns the fencing token of this hold: the lock's {@link
   * RedisDistributedLock#getFencingToken()}, strictly greater than the token of every earlier hold
   * of the lock's name, in every process.
   *
   * @return this hold's fencing token
   * @throws IllegalMonitorStateException if this hold was closed, or the calling thread is not the
   *     one that acquired it
   * @throws LockLostException if the hold was lost in Redis
   * @throws RedisLockException if Redis could not be reached to issue the token
   * @throws UnsupportedOperationException for a hold of a read lock, which has no fencing token
   */
  long fencingToken();

  /**
   * Releases this hold: unlocks the lock once, as {@link java.util.concurrent.locks.Lock#unlock()}
   * does. Closing a hold that was closed already has no effect.
   *
   * @throws IllegalMonitorStateException if the calling thread is not the one that acquired this
   *     hold; the hold stays held
   * @throws LockLostException if the hold was lost in Redis before this release (see {@link
   *     RedisDistributedLock#unlock()})
   * @throws RedisLockException if Redis could not confirm the release; the lock is released in this
   *     JVM all the same, and its key expires with its lease
   */
  @Override
  void close();
}
