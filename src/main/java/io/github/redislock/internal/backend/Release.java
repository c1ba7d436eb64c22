package io.github.redislock.internal.backend;

/**
 * The answer to a release.
 *
 * @param released whether the hold was still ours and is released now (or was, by an earlier call
 *     whose reply was lost)
 * @param listeners how many connections were subscribed to the lock's wake-up channel when it was
 *     released (the most on any one node, under Redlock): other processes' waiters, and this
 *     factory's own subscription if it has one (see {@code Turns.othersWaited})
 * @param server for an answer that it was not ours, the server that gave it ({@code host:port}),
 *     when known: a retry's "not ours" says nothing about an earlier attempt on another server
 */
public record Release(boolean released, long listeners, String server) {
  public static final Release NOT_OURS = new Release(false, 0);
  public static final Release RELEASED = new Release(true, 0);
  private static final Release[] FEW_LISTENERS = {
    RELEASED, new Release(true, 1), new Release(true, 2), new Release(true, 3)
  };

  /** An answer from a server that is not named. */
  public Release(boolean released, long listeners) {
    this(released, listeners, null);
  }

  /** Released, with {@code listeners} waiting on the channel; shared instances for few. */
  static Release released(long listeners) {
    return listeners < FEW_LISTENERS.length
        ? FEW_LISTENERS[(int) listeners]
        : new Release(true, listeners);
  }

  /** Not ours, as {@code server} answered. */
  static Release notOurs(String server) {
    return server == null ? NOT_OURS : new Release(false, 0, server);
  }
}
