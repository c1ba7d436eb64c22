package io.github.redislock.internal.backend;

import java.util.Optional;

/**
 * What only one Redis deployment can do: keep one order of waiters and record signals, which fair
 * locks, read-write locks and conditions need. A deployment of independent masters (Redlock) has
 * none of it: its masters can see waiters in different orders, decide on their own whether a reader
 * waits behind a writer, and lose a signal recorded on a majority with one restart. Asked of a
 * {@link LockBackend} once, when the first lock of such a kind is made.
 *
 * @param fairQueue the queues of fair locks
 * @param readWriteOps read shares and writers' intents
 * @param conditionQueue the queues and signals of conditions
 */
public record OrderedOps(
    FairQueue fairQueue, ReadWriteOps readWriteOps, ConditionQueue conditionQueue) {

  private static final String DOCS = "https://github.com/redislock/redis-lock/blob/main/docs/";

  /**
   * The fair queues of a deployment that has {@code ops}.
   *
   * @throws UnsupportedOperationException where there are none: under Redlock (see <a
   *     href="https://github.com/redislock/redis-lock/blob/main/docs/fair.md">docs/fair.md</a>)
   */
  public static FairQueue fairQueue(Optional<OrderedOps> ops) {
    return require(
            ops,
            "fair locks need one Redis deployment to order their waiters: Redlock's independent"
                + " masters can see waiters in different orders",
            "fair.md")
        .fairQueue();
  }

  /**
   * The read-write operations of a deployment that has {@code ops}.
   *
   * @throws UnsupportedOperationException where there are none: under Redlock (see <a
   *     href="https://github.com/redislock/redis-lock/blob/main/docs/read-write.md">docs/read-write.md</a>)
   */
  public static ReadWriteOps readWriteOps(Optional<OrderedOps> ops) {
    return require(
            ops,
            "read-write locks need one Redis deployment: under Redlock each master would decide on"
                + " its own whether a reader waits behind a writer, and count readers on its own",
            "read-write.md")
        .readWriteOps();
  }

  /**
   * The condition queues of a deployment that has {@code ops}.
   *
   * @throws UnsupportedOperationException where there are none: under Redlock (see <a
   *     href="https://github.com/redislock/redis-lock/blob/main/docs/conditions.md">docs/conditions.md</a>)
   */
  public static ConditionQueue conditionQueue(Optional<OrderedOps> ops) {
    return require(
            ops,
            "conditions need one Redis deployment to order their awaiters and record their signals:"
                + " Redlock's independent masters can see awaiters in different orders, and a"
                + " signal recorded on a majority can be lost with one restart",
            "conditions.md")
        .conditionQueue();
  }

  /**
   * {@code ops}, or an exception that gives {@code why} and the page of the docs that argues it.
   */
  private static OrderedOps require(Optional<OrderedOps> ops, String why, String page) {
    return ops.orElseThrow(
        () -> new UnsupportedOperationException(why + " (see " + DOCS + page + ")"));
  }

  /**
   * The same operations, on the same deployment, for holds and entries of {@code leaseMillis} (each
   * one's {@code withLease}).
   *
   * @throws IllegalArgumentException unless {@code leaseMillis} is from 1 ms to one day
   */
  public OrderedOps withLease(long leaseMillis) {
    return new OrderedOps(
        fairQueue.withLease(leaseMillis),
        readWriteOps.withLease(leaseMillis),
        conditionQueue.withLease(leaseMillis));
  }
}
