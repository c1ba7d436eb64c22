package io.github.redislock.internal.transport;

import io.github.redislock.internal.util.Ticker;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The thread transport: each node's call runs on its own thread of an executor, through the node's
 * client, so the caller can stop waiting as soon as a majority decides, and a slow or frozen node
 * holds only its own thread (until its socket times out). Works with every kind of client.
 */
public final class FanOut implements Transport {
  private static final Logger log = LoggerFactory.getLogger(FanOut.class);

  private final List<Node> nodes;
  private final Executor executor;
  private final Ticker ticker;

  /**
   * A transport to {@code nodes} on {@code executor}'s threads.
   *
   * @param nodes the nodes
   * @param executor runs one task per node and request; it must not queue them behind each other (a
   *     task waits for a node's reply), and whoever made it shuts it down
   * @param ticker the clock of every deadline
   */
  public FanOut(List<Node> nodes, Executor executor, Ticker ticker) {
    this.nodes = List.copyOf(nodes);
    this.executor = executor;
    this.ticker = ticker;
  }

  /**
   * {@inheritDoc}
   *
   * <p>Here the calls are not bounded by the deadline, only by each client's socket timeout: a
   * reply that comes after it is still recorded, for {@link Round#whenEachDone}.
   */
  @Override
  public <T> Round<T> send(Request<T> request, long deadlineNanos) {
    Round<T> round = new Round<>(nodes, ticker, deadlineNanos);
    for (int i = 0; i < nodes.size(); i++) {
      call(round, i, request);
    }
    return round;
  }

  /**
   * {@inheritDoc}
   *
   * <p>Here a node that has not answered {@code earlier} is asked once it has, on a thread of its
   * own. A call that failed by the client's socket timeout may still land on the node later (the
   * client discards its connection): a node this slow is beyond what this transport can order.
   */
  @Override
  public <T> Round<T> sendAfter(Round<?> earlier, Request<T> request, long deadlineNanos) {
    Round<T> round = new Round<>(nodes, ticker, deadlineNanos);
    after(earlier, null, round, request);
    return round;
  }

  /** {@inheritDoc} Here it returns at once: the calls run on threads, their failures logged. */
  @Override
  public <E> void followUp(
      Round<E> earlier, Predicate<? super E> needed, Request<?> request, long deadlineNanos) {
    after(earlier, needed, new Round<>(nodes, ticker, deadlineNanos), request);
  }

  /** Nothing to release: the executor is the caller's. */
  @Override
  public void close() {}

  /** Asks each node that {@code needed} lets through, once it has answered {@code earlier}. */
  private <E, T> void after(
      Round<E> earlier, Predicate<? super E> needed, Round<T> round, Request<T> request) {
    boolean[] pending = new boolean[nodes.size()];
    boolean anyPending = false;
    for (int i = 0; i < pending.length; i++) {
      if (needed != null && !earlier.needs(i, needed)) {
        continue;
      }
      if (earlier.isDone(i)) {
        call(round, i, request);
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
              call(round, i, request);
            }
          });
    }
  }

  private <T> void call(Round<T> round, int i, Request<T> request) {
    try {
      executor.execute(new NodeCall<>(round, i, nodes.get(i), request));
    } catch (RejectedExecutionException e) {
      log.debug("closed; not calling {}", nodes.get(i).label());
      round.record(i, null, e);
    }
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
