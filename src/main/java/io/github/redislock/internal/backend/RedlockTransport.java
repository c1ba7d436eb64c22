package io.github.redislock.internal.backend;

import io.github.redislock.internal.transport.FanOut;
import io.github.redislock.internal.transport.Node;
import io.github.redislock.internal.transport.Pipelined;
import io.github.redislock.internal.transport.Transport;
import io.github.redislock.internal.util.Threads;
import io.github.redislock.internal.util.Ticker;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * How a Redlock backend reaches its masters, chosen by them: pipelined on the caller's thread when
 * every master allows it (which bounds each master by the node timeout, connection set-up included,
 * and skips a master that stopped answering until it answers again), else one thread per master and
 * call; and the threads of its background work.
 *
 * @param transport every operation's way to the masters
 * @param executor the threads of background work: late replies, connection set-up, the masters'
 *     identities
 * @param pipelined whether the transport pipelines
 */
record RedlockTransport(Transport transport, ExecutorService executor, boolean pipelined) {

  /**
   * The transport to {@code nodes}.
   *
   * @param nodeTimeoutNanos how long an operation waits for each master
   * @param lateBoundNanos how long a late reply is waited for, and a release for a master that does
   *     not answer
   */
  static RedlockTransport of(
      List<Node> nodes, Ticker ticker, long nodeTimeoutNanos, long lateBoundNanos) {
    boolean pipelined = Pipelined.supports(nodes);
    // Background work is bounded by the transport: the pipelined one's by its connections per
    // master (a drainer or an opening each, and one probe), the thread fan-out's calls by its lanes
    // per master, to which the pool holds it, with one thread per master that says who it is.
    ExecutorService executor =
        pipelined
            ? new ThreadPoolExecutor(
                0,
                Integer.MAX_VALUE,
                10,
                TimeUnit.SECONDS,
                new SynchronousQueue<>(),
                Threads.daemon("redis-lock-redlock"))
            : Threads.boundedPool(
                "redis-lock-redlock", nodes.size() * (FanOut.MAX_CALLS_PER_NODE + 1));
    Transport transport =
        pipelined
            ? new Pipelined(
                nodes, ticker, nodeTimeoutNanos, lateBoundNanos, executor, Script.loadAll())
            : new FanOut(nodes, executor, ticker, nodeTimeoutNanos, lateBoundNanos);
    return new RedlockTransport(transport, executor, pipelined);
  }
}
