package io.github.redislock.internal;

/** Whether a factory is closed, shared by the engine pieces that must refuse work after close. */
public final class Lifecycle {
  private volatile boolean closed;

  /** Marks the factory closed; {@code false} if it was already. */
  public boolean close() {
    if (closed) {
      return false;
    }
    closed = true;
    return true;
  }

  boolean isClosed() {
    return closed;
  }

  /** Throws {@link IllegalStateException} once the factory is closed. */
  public void checkOpen() {
    if (closed) {
      throw new IllegalStateException("this RedisLockFactory is closed");
    }
  }

  /**
   * Throws {@link IllegalStateException} once the factory is closed, with {@code failure} (what the
   * closing may have made fail) suppressed: a call the factory's closing interrupted ends as every
   * call on a closed factory does.
   */
  public void checkOpen(Throwable failure) {
    if (closed) {
      IllegalStateException closedFactory =
          new IllegalStateException("this RedisLockFactory is closed");
      closedFactory.addSuppressed(failure);
      throw closedFactory;
    }
  }
}
