package io.github.redislock.internal.transport;

import io.github.redislock.internal.util.Ticker;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.function.Predicate;
import redis.clients.jedis.exceptions.JedisException;

/**
 * The thread transport: each node's call runs on a thread of an executor, through the node's
 * client, so the caller can stop waiting as soon as a majority decides, and a slow or frozen node
 * holds only its own threads (until its socket times out). Works with every kind of client.
 *
 * <p>Each node has a {@link Lane}: at most {@value Lane#MAX_IN_FLIGHT} of its calls run at once,
 * the others wait for a free thread, so the threads a frozen node holds are bounded however many
 * callers ask it. A node whose calls in flight have all run longer than the node timeout is skipped
 * at once (a failure), except by a release, which waits for a thread (within the late-reply bound).
 */
public final class FanOut implements Transport {
  /** How many calls to one node run at once, each on a thread of its own. */
  public static final int MAX_CALLS_PER_NODE = Lane.MAX_IN_FLIGHT;

  private final List<Node> nodes;
  private final Lane[] lanes;
  private final Ticker ticker;
  private final long lateBoundNanos;

  /**
   * A transport to {@code nodes} on {@code executor}'s threads.
   *
   * @param nodes the nodes
   * @param executor runs the calls, at most {@value Lane#MAX_IN_FLIGHT} per node at once; it must
   *     not queue them behind each other (a call waits for a node's reply), and whoever made it
   *     shuts it down
   * @param ticker the clock of every deadline
   * @param nodeTimeoutNanos how long a call may run before it counts as stuck
   * @param lateBoundNanos how long a release waits for a thread of a stuck node
   */
  public FanOut(
      List<Node> nodes,
      Executor executor,
      Ticker ticker,
      long nodeTimeoutNanos,
      long lateBoundNanos) {
    this.nodes = List.copyOf(nodes);
    this.lanes = new Lane[nodes.size()];
    for (int i = 0; i < lanes.length; i++) {
      lanes[i] = new Lane(nodes.get(i).label(), executor, ticker, nodeTimeoutNanos);
    }
    this.ticker = ticker;
    this.lateBoundNanos = lateBoundNanos;
  }

  /**
   * {@inheritDoc}
   *
   * <p>Here the calls are not bounded by the deadline, only by each client's socket timeout: a
   * reply that comes after it is still recorded, for {@link Round#whenEachDone}. A call that has
   * not started by the deadline does not start.
   */
  @Override
  public <T> Round<T> send(
      Request<T> request, long deadlineNanos, Predicate<? super Round<T>> decided) {
    Round<T> round = new Round<>(nodes, ticker, deadlineNanos);
    for (int i = 0; i < nodes.size(); i++) {
      call(round, i, request, false, deadlineNanos);
    }
    return round;
  }

  /**
   * {@inheritDoc}
   *
   * <p>Here a node that has not answered {@code earlier} is asked once it has. A call that failed
   * by the client's socket timeout may still land on the node later (the client discards its
   * connection): a node this slow is beyond what this transport can order.
   */
  @Override
  public <T> Round<T> sendAfter(
      Round<?> earlier,
      Request<T> request,
      long deadlineNanos,
      Predicate<? super Round<T>> decided) {
    Round<T> round = new Round<>(nodes, ticker, deadlineNanos);
    after(earlier, null, round, request, false, deadlineNanos);
    return round;
  }

  /** {@inheritDoc} Here a stuck node gets it once one of its threads is free. */
  @Override
  public <T> Round<T> undo(
      Round<?> earlier,
      Request<T> request,
      long deadlineNanos,
      Predicate<? super Round<T>> decided) {
    Round<T> round = new Round<>(nodes, ticker, deadlineNanos);
    after(earlier, null, round, request, true, deadlineNanos);
    return round;
  }

  /** {@inheritDoc} Here it returns at once: the calls run on threads. */
  @Override
  public <E> void followUp(
      Round<E> earlier, Predicate<? super E> needed, Request<?> request, long deadlineNanos) {
    after(earlier, needed, new Round<>(nodes, ticker, deadlineNanos), request, true, deadlineNanos);
  }

  /** Nothing to release: the executor is the caller's. */
  @Override
  public void close() {}

  /**
   * Asks each node that {@code needed} lets through, once it has answered {@code earlier}; a call
   * not started by the deadline (for a release, the late-reply bound) does not start.
   */
  private <E, T> void after(
      Round<E> earlier,
      Predicate<? super E> needed,
      Round<T> round,
      Request<T> request,
      boolean undo,
      long deadlineNanos) {
    long deadline = undo ? ticker.read() + lateBoundNanos : deadlineNanos;
    boolean[] pending = new boolean[nodes.size()];
    boolean anyPending = false;
    for (int i = 0; i < pending.length; i++) {
      if (earlier != null && needed != null && !earlier.needs(i, needed)) {
        continue;
      }
      if (earlier == null || earlier.isDone(i)) {
        call(round, i, request, undo, deadline);
      } else {
        pending[i] = true;
        anyPending = true;
      }
    }
    if (anyPending) {
      // Runs once per node: now for those that answered meanwhile, later for the others.
      earlier.whenEachDone(
          (node, reply) -> {
            int i = nodes.indexOf(node);
            if (pending[i] && (needed == null || reply == null || needed.test(reply))) {
              call(round, i, request, undo, deadline);
            }
          });
    }
  }

  /**
   * Calls node {@code i} on a thread of its lane; a call that has not started by {@code startBy}
   * fails.
   */
  private <T> void call(Round<T> round, int i, Request<T> request, boolean undo, long startBy) {
    lanes[i].submit(
        new Lane.Call(
            new NodeCall<>(round, i, nodes.get(i), request),
            e -> round.record(i, null, e instanceof JedisException j ? request.failure(j) : e),
            startBy),
        undo);
  }

  /** One node's call, which records its outcome in the round. */
  private record NodeCall<T>(Round<T> round, int index, Node node, Request<T> request)
      implements Runnable {
    @Override
    public void run() {
      T reply;
      try {
        reply = request.call(node.client());
      } catch (RuntimeException e) {
        round.record(index, null, e);
        return;
      } catch (Error e) {
        round.record(index, null, new IllegalStateException(e));
        throw e;
      }
      round.record(index, reply, null);
    }
  }
}
