package io.github.redislock.internal.transport;

import java.util.function.Predicate;

/**
 * How one request reaches every node of a multi-node lock at once, and how the replies come back.
 * The nodes are fixed when a transport is made, so that what it learns about each node (its
 * connections, whether it answers) can stay with it.
 *
 * <p>Two implementations: {@link FanOut} hands each node to a thread (at most a few calls per node
 * at once), so the caller can stop waiting as soon as it has seen enough to decide; {@link
 * Pipelined} writes the command to every node from the calling thread and then reads the replies as
 * they come, until they decide, which wakes no thread, and skips a node that stopped answering
 * until it answers again.
 *
 * <p>A request meant to undo an earlier one (a release after an acquisition) is sent with {@link
 * #undo} or {@link #followUp}: a node that has not answered the earlier request gets the later one
 * behind it, never before it, so that a delayed acquisition cannot land after its release; and a
 * node that the transport skips for now (it stopped answering) gets it once it answers again,
 * within a bound given when the transport is made (the lease: by then the key it would release has
 * expired).
 */
public interface Transport {

  /**
   * Sends {@code request} to every node.
   *
   * @param request what to ask each node
   * @param deadlineNanos when the caller stops waiting, on the transport's {@code Ticker}: replies
   *     that have not come by then count as missing, and may still be recorded later, where {@link
   *     Round#whenEachDone} sees them
   * @param decided whether the replies so far are enough for the caller, who then {@linkplain
   *     Round#await awaits} the round with it: the transport may stop waiting for the others, whose
   *     replies are recorded as they come
   * @param <T> the parsed reply type
   * @return the replies, as they come
   */
  <T> Round<T> send(Request<T> request, long deadlineNanos, Predicate<? super Round<T>> decided);

  /**
   * Sends {@code request} to every node, each after its part of {@code earlier}: a node that has
   * not answered {@code earlier} yet gets {@code request} behind it (on the same connection, or
   * once it answered), so that it runs it after, never before; its reply then comes after that one.
   * A node skipped for now is skipped, as by {@link #send}.
   *
   * @param earlier a round of this transport
   * @param request what to ask each node
   * @param deadlineNanos as for {@link #send}
   * @param decided as for {@link #send}
   * @param <T> the parsed reply type
   * @return the replies, as they come
   */
  <T> Round<T> sendAfter(
      Round<?> earlier,
      Request<T> request,
      long deadlineNanos,
      Predicate<? super Round<T>> decided);

  /**
   * Sends {@code request}, meant to undo {@code earlier} (or requests that have all been answered,
   * when {@code null}), to every node, each after its part of {@code earlier} as {@link #sendAfter}
   * does; a node skipped for now gets it once it answers again, and its reply is recorded then, or
   * a failure once the transport's bound for it has passed.
   *
   * @param earlier a round of this transport, or {@code null}
   * @param request what to ask each node
   * @param deadlineNanos as for {@link #send}
   * @param decided as for {@link #send}
   * @param <T> the parsed reply type
   * @return the replies, as they come
   */
  <T> Round<T> undo(
      Round<?> earlier,
      Request<T> request,
      long deadlineNanos,
      Predicate<? super Round<T>> decided);

  /**
   * Clean-up after {@code earlier}, whose replies nobody needs: sends {@code request}, as {@link
   * #undo} does, to each node whose part of {@code earlier} may need it, namely every node but
   * those whose reply {@code needed} rejects. It may return before the replies come.
   *
   * @param earlier a round of this transport
   * @param needed whether a node's reply to {@code earlier} calls for {@code request}
   * @param request what to send
   * @param deadlineNanos when to stop waiting for the replies
   * @param <E> the earlier round's reply type
   */
  <E> void followUp(
      Round<E> earlier, Predicate<? super E> needed, Request<?> request, long deadlineNanos);

  /** Releases what the transport holds (connections, background work); it is not used again. */
  void close();
}
