package io.github.redislock.internal.transport;

/**
 * How one request reaches every node of a multi-node lock at once, and how the replies come back.
 * The nodes are fixed when a transport is made, so that what it learns about each node (its
 * connections, whether it answers) can stay with it.
 *
 * <p>Two implementations: {@link FanOut} hands each node to a thread, so the caller can stop
 * waiting as soon as it has seen enough to decide; {@link Pipelined} writes the command to every
 * node from the calling thread and then reads each reply in turn, which wakes no thread, and skips
 * a node that stopped answering until it answers again.
 */
public interface Transport {

  /**
   * Sends {@code request} to every node.
   *
   * @param request what to ask each node
   * @param deadlineNanos when the caller stops waiting, on the transport's {@code Ticker}: replies
   *     that have not come by then count as missing (a transport that reads replies itself stops
   *     reading then)
   * @param <T> the parsed reply type
   * @return the replies, as they come
   */
  <T> Round<T> send(Request<T> request, long deadlineNanos);

  /** Releases what the transport holds (connections, background work); it is not used again. */
  void close();
}
