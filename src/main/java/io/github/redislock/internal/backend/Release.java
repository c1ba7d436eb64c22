package io.github.redislock.internal.backend;

/**
 * The answer to a release.
 *
 * @param released whether the hold was still ours and is released now (or was, by an earlier call
 *     whose reply was lost)
 * @param listeners how many connections were subscribed to the lock's wake-up channel when it was
 *     released (the most on any one node, under Redlock): other processes' waiters, and this
 *     factory's own subscription if it has one (see {@code LockEngine.othersWaited})
 */
public record Release(boolean released, long listeners) {
  public static final Release NOT_OURS = new Release(false, 0);
  public static final Release RELEASED = new Release(true, 0);
  private static final Release[] FEW_LISTENERS = {
    RELEASED, new Release(true, 1), new Release(true, 2), new Release(true, 3)
  };

  /** Released, with {@code listeners} waiting on the channel; shared instances for few. */
  static Release released(long listeners) {
    return listeners < FEW_LISTENERS.length
        ? FEW_LISTENERS[(int) listeners]
        : new Release(true, listeners);
  }
}
