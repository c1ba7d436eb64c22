package io.github.redislock.internal.transport;

import io.github.redislock.internal.util.Ticker;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
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
      try {
        executor.execute(new NodeCall<>(round, i, nodes.get(i), request));
      } catch (RejectedExecutionException e) {
        round.record(i, null, e);
      }
    }
    return round;
  }

  /**
   * Sends {@code request} to one node on a thread of its own, and forgets it: for clean-up that
   * nobody waits for. A failure is logged at debug level.
   *
   * @param node the node
   * @param request what to ask it
   */
  public void sendAndForget(Node node, Request<?> request) {
    try {
      executor.execute(
          () -> {
            try {
              request.call(node.client());
            } catch (RuntimeException e) {
              log.debug("a background call to {} failed", node.label(), e);
            }
          });
    } catch (RejectedExecutionException e) {
      log.debug("closed; not calling {} in the background", node.label());
    }
  }

  /** Nothing to release: the executor is the caller's. */
  @Override
  public void close() {}

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
