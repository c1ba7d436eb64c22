package io.github.redislock;

/**
 * Thrown by {@link RedisDistributedLock#unlock()} (and by an acquisition of the lock) when the
 * calling thread's hold was lost in Redis before it was released: the lease expired without
 * renewal, the key was deleted or taken over by another owner, or the factory was closed.
 *
 * <p>It is an {@link IllegalMonitorStateException} because the thread no longer owns the lock: a
 * lost hold is given up in the JVM at once, whatever its count, so that other threads may take the
 * lock. The former owner is told once, by whichever comes first of its next {@code unlock()} and
 * its next acquisition of the lock (a reentrant {@code lock()} included); after that it is a thread
 * that does not hold the lock. {@link RedisDistributedLock#getFencingToken()} throws it too,
 * without using up that once. Work done under the lost hold may have overlapped another holder's:
 * fencing tokens ({@link RedisDistributedLock#getFencingToken()}) let the protected resource reject
 * it.
 */
public class LockLostException extends IllegalMonitorStateException {
  private static final long serialVersionUID = 1L;

  /** The name of the lock whose hold was lost. */
  private final String lockName;

  /** Why the hold was lost. */
  private final String reason;

  /**
   * Creates an exception for the lost hold of a lock.
   *
   * @param lockName the lock's name
   * @param reason why the hold was lost
   */
  public LockLostException(String lockName, String reason) {
    super("the hold of lock '" + lockName + "' was lost before it was released: " + reason);
    this.lockName = lockName;
    this.reason = reason;
  }

  /**
   * Returns the name of the lock whose hold was lost.
   *
   * @return the lock's name
   */
  public String getLockName() {
    return lockName;
  }

  /**
   * Returns why the hold was lost.
   *
   * @return the reason, in words
   */
  public String getReason() {
    return reason;
  }
}
