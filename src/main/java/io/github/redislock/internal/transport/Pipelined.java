package io.github.redislock.internal.transport;

import io.github.redislock.internal.util.Ticker;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.function.Predicate;
import redis.clients.jedis.CommandArguments;

/**
 * The pipelined transport: one command to every node from the calling thread, without a thread per
 * node. The command is written and flushed on a connection of each node ({@link Link}, kept per
 * node by its {@link Endpoint}, without a pool), then the replies are read as they come: in node
 * order while each starts to come within a slice (5 ms, or as long as the exchange has run), else
 * whichever has come ({@link Exchange}). The nodes work in parallel, so a call costs about the
 * round trip of the slowest node it needs, at most the node timeout, and no thread is woken.
 *
 * <p>Once the replies decide (the caller's predicate), the caller waits for the others no longer
 * than it took to decide, or until 10 ms after the start if that is later: a slow node costs a
 * caller that has its majority little more than the majority's round trip. A node that does not
 * answer by then costs the caller nothing more: its connection goes to a background drainer, which
 * records the reply in the round when it comes (where {@link Round#whenEachDone} sees it) and keeps
 * the connection. A node that has not answered within the node timeout counts as down until it
 * answers: later requests skip it at once (a failure), and it is reconnected in the background with
 * a backoff; a release for it waits until it answers, within the late-reply bound. A connection is
 * never set up in the caller's thread: when a node has no idle one, it is opened in the background
 * while the caller writes to the other nodes, and the request is written on it when it opens, if
 * need be after the caller stopped waiting (its reply is then read in the background).
 *
 * <p>It opens the connections itself, so it needs each node's address and client configuration
 * ({@link Node#dial}); for a node known only by its client, use {@link FanOut}.
 */
public final class Pipelined implements Transport {

  private final List<Node> nodes;
  private final Endpoint[] endpoints;
  private final Ticker ticker;
  private final long nodeTimeoutNanos;
  private final long lateBoundNanos;

  /**
   * A transport to {@code nodes}, which must be {@linkplain #supports supported}.
   *
   * @param nodes the nodes
   * @param ticker the clock of every deadline
   * @param nodeTimeoutNanos how long the caller waits for each node's reply; a release may wait
   *     longer for the replies it needs, which then come in the background
   * @param lateBoundNanos how long a late reply is waited for in the background, and a release for
   *     a node that is down: the longer of the lease and the command timeout (by then the keys are
   *     gone, and nobody waits); a connection silent that long is closed
   * @param executor runs the background work (opening connections, reading late replies, probing
   *     nodes that are down); it must not queue tasks behind each other, and whoever made it shuts
   *     it down after {@link #close()}
   * @param greeting commands every new connection runs before it is used, their error replies
   *     ignored: a backend loads its scripts, so that its {@code EVALSHA}s find them (a script run
   *     again after {@code NOSCRIPT} would run out of order with what was written behind it)
   */
  public Pipelined(
      List<Node> nodes,
      Ticker ticker,
      long nodeTimeoutNanos,
      long lateBoundNanos,
      Executor executor,
      List<CommandArguments> greeting) {
    if (!supports(nodes)) {
      throw new IllegalArgumentException("pipelining needs each node's address and configuration");
    }
    this.nodes = List.copyOf(nodes);
    this.endpoints = new Endpoint[nodes.size()];
    for (int i = 0; i < endpoints.length; i++) {
      endpoints[i] =
          new Endpoint(
              nodes.get(i),
              executor,
              List.copyOf(greeting),
              ticker,
              nodeTimeoutNanos,
              lateBoundNanos);
    }
    this.ticker = ticker;
    this.nodeTimeoutNanos = nodeTimeoutNanos;
    this.lateBoundNanos = lateBoundNanos;
  }

  /**
   * Whether every node can be driven this way.
   *
   * @param nodes the nodes
   * @return whether every node tells how to open connections to it ({@link Node#dial})
   */
  public static boolean supports(List<Node> nodes) {
    return nodes.stream().allMatch(node -> node.dial() != null);
  }

  /**
   * {@inheritDoc}
   *
   * <p>Here the call returns when every node has answered, failed or been skipped, when the replies
   * have decided and the others have had as long again (and 10 ms since the start), or when the
   * node timeout (or the deadline, if sooner) has passed. A node whose script cache was flushed
   * answers through {@link Request#call}.
   */
  @Override
  public <T> Round<T> send(
      Request<T> request, long deadlineNanos, Predicate<? super Round<T>> decided) {
    return exchange(null, null, false, request, deadlineNanos, decided);
  }

  /**
   * {@inheritDoc}
   *
   * <p>Here a node whose reply to {@code earlier} is late gets {@code request} written behind it on
   * the same connection, even while the node counts as down; its reply is recorded when it comes.
   */
  @Override
  public <T> Round<T> sendAfter(
      Round<?> earlier,
      Request<T> request,
      long deadlineNanos,
      Predicate<? super Round<T>> decided) {
    return exchange(earlier, null, false, request, deadlineNanos, decided);
  }

  /** {@inheritDoc} Here a node that is down gets the request once it answers again. */
  @Override
  public <T> Round<T> undo(
      Round<?> earlier,
      Request<T> request,
      long deadlineNanos,
      Predicate<? super Round<T>> decided) {
    return exchange(earlier, null, true, request, deadlineNanos, decided);
  }

  /** {@inheritDoc} Here it takes the replies that come at once, and leaves the others. */
  @Override
  public <E> void followUp(
      Round<E> earlier, Predicate<? super E> needed, Request<?> request, long deadlineNanos) {
    exchange(earlier, needed, true, request, deadlineNanos, Pipelined::nobodyWaits);
  }

  /** A follow-up's replies: nobody waits for them. */
  private static boolean nobodyWaits(Round<?> round) {
    return true;
  }

  @Override
  public void close() {
    for (Endpoint endpoint : endpoints) {
      endpoint.close();
    }
  }

  private <T, E> Round<T> exchange(
      Round<E> earlier,
      Predicate<? super E> needed,
      boolean undo,
      Request<T> request,
      long deadlineNanos,
      Predicate<? super Round<T>> decided) {
    return new Exchange<>(
            endpoints,
            nodes,
            ticker,
            nodeTimeoutNanos,
            lateBoundNanos,
            request,
            deadlineNanos,
            undo)
        .run(earlier, needed, decided);
  }
}
