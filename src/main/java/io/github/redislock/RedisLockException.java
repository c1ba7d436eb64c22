package io.github.redislock;

/**
 * Thrown when Redis cannot be reached or answers with an error while a lock operation needs it.
 *
 * <p>This is never confused with contention: {@link RedisDistributedLock#tryLock()} returns {@code
 * false} only when another owner holds the lock, and throws this exception when it could not find
 * out. The {@linkplain #getCause() cause} is the Redis client's exception.
 */
public class RedisLockException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates an exception with a message naming the operation and the lock.
   *
   * @param message what failed
   */
  public RedisLockException(String message) {
    super(message);
  }

  /**
   * Creates an exception with a message naming the operation and the lock, and the client's failure
   * as its cause.
   *
   * @param message what failed
   * @param cause the Redis client's exception
   */
  public RedisLockException(String message, Throwable cause) {
    super(message, cause);
  }
}
