package io.github.redislock.internal.transport;

import io.github.redislock.internal.util.Ticker;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * The pipelined transport: one command to every node from the calling thread, without a thread per
 * node. The command is written and flushed on a connection of each node ({@link Link}, kept per
 * node by its {@link Endpoint}, without a pool), then the replies are read in turn, each bounded by
 * what is left of the node timeout. The nodes work in parallel, so a call costs about the slowest
 * node's round trip, at most the node timeout, and no thread is woken.
 *
 * <p>A node that does not answer in time costs the caller nothing more: its connection goes to a
 * background drainer, which records the late reply in the round when it comes (where {@link
 * Round#whenEachDone} sees it) and keeps the connection. The node counts as down until it answers:
 * later requests skip it at once (a failure), and it is reconnected in the background with a
 * backoff. A connection is never set up in the caller's thread: when a node has no idle one, it is
 * opened in the background while the caller writes to the other nodes, and used if it is ready
 * within the node timeout.
 *
 * <p>It needs each node's client to be a {@link RedisClient}, and Jedis's connection streams, which
 * Jedis keeps private; where either is missing, use {@link FanOut}.
 */
public final class Pipelined implements Transport {
  private final List<Node> nodes;
  private final Endpoint[] endpoints;
  private final Ticker ticker;
  private final long nodeTimeoutNanos;

  /**
   * A transport to {@code nodes}, which must be {@linkplain #supports supported}.
   *
   * @param nodes the nodes
   * @param ticker the clock of every deadline
   * @param nodeTimeoutNanos how long the caller waits for each node's reply; a release may wait
   *     longer for the replies it needs, which then come in the background
   * @param lateBoundNanos how long a late reply is waited for in the background: the longer of the
   *     lease and the command timeout (by then the keys are gone, and nobody waits); a connection
   *     silent that long is closed
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
      throw new IllegalArgumentException("pipelining needs a RedisClient per node");
    }
    this.nodes = List.copyOf(nodes);
    this.endpoints = new Endpoint[nodes.size()];
    for (int i = 0; i < endpoints.length; i++) {
      endpoints[i] =
          new Endpoint(nodes.get(i), executor, List.copyOf(greeting), ticker, lateBoundNanos);
    }
    this.ticker = ticker;
    this.nodeTimeoutNanos = nodeTimeoutNanos;
  }

  /**
   * Whether every node's client can be driven this way.
   *
   * @param nodes the nodes
   * @return whether Jedis's connection streams are accessible and every client is a {@link
   *     RedisClient} on a connection pool
   */
  public static boolean supports(List<Node> nodes) {
    return Link.available() && nodes.stream().allMatch(Pipelined::pooled);
  }

  /** Whether the node's client is a {@link RedisClient} on a pool, whose factory makes links. */
  private static boolean pooled(Node node) {
    try {
      return node.client() instanceof RedisClient client && client.getPool().getFactory() != null;
    } catch (RuntimeException e) { // a client on a connection provider of its own
      return false;
    }
  }

  /**
   * {@inheritDoc}
   *
   * <p>Here the call returns when every node has answered, failed, been skipped, or run out of the
   * node timeout (or the deadline, if sooner). A node whose script cache was flushed answers
   * through {@link Request#call}.
   */
  @Override
  public <T> Round<T> send(Request<T> request, long deadlineNanos) {
    return exchange(null, null, request, deadlineNanos);
  }

  /**
   * {@inheritDoc}
   *
   * <p>Here a node whose reply to {@code earlier} is late gets {@code request} written behind it on
   * the same connection, even while the node counts as down; its reply is recorded when it comes.
   */
  @Override
  public <T> Round<T> sendAfter(Round<?> earlier, Request<T> request, long deadlineNanos) {
    return exchange(earlier, null, request, deadlineNanos);
  }

  /** {@inheritDoc} Here it reads the replies of the nodes that answer in time. */
  @Override
  public <E> void followUp(
      Round<E> earlier, Predicate<? super E> needed, Request<?> request, long deadlineNanos) {
    exchange(earlier, needed, request, deadlineNanos);
  }

  @Override
  public void close() {
    for (Endpoint endpoint : endpoints) {
      endpoint.close();
    }
  }

  /** Writes to every node asked, then reads their replies. */
  private <T, E> Round<T> exchange(
      Round<E> earlier, Predicate<? super E> needed, Request<T> request, long deadlineNanos) {
    int n = endpoints.length;
    Round<T> round = new Round<>(nodes, ticker, deadlineNanos);
    CommandArguments command = request.command();
    long start = ticker.read();
    long readBy = Math.min(deadlineNanos, start + nodeTimeoutNanos);
    Link[] links = new Link[n];
    CompletableFuture<Link>[] opening = null;
    for (int i = 0; i < n; i++) {
      if (earlier != null
          && ((needed != null && !earlier.needs(i, needed))
              || behind(earlier, i, command, round, request))) {
        continue;
      }
      Endpoint endpoint = endpoints[i];
      if (endpoint.isDown()) {
        round.record(i, null, request.failure(endpoint.downFailure()));
        continue;
      }
      Link link = endpoint.take();
      if (link == null) {
        if (opening == null) {
          opening = newFutures(n);
        }
        opening[i] = endpoint.connect();
      } else if (write(i, link, command, round, request)) {
        links[i] = link;
      }
    }
    if (opening != null) {
      for (int i = 0; i < n; i++) {
        if (opening[i] != null) {
          Link link = await(i, opening[i], start, readBy, round, request);
          if (link != null && write(i, link, command, round, request)) {
            links[i] = link;
          }
        }
      }
    }
    for (int i = 0; i < n; i++) {
      if (links[i] != null) {
        read(i, links[i], start, readBy, round, request);
      }
    }
    return round;
  }

  /**
   * Writes {@code request} behind node {@code i}'s late reply to {@code earlier}, if it owes one.
   */
  private <T> boolean behind(
      Round<?> earlier, int i, CommandArguments command, Round<T> round, Request<T> request) {
    if (earlier.carrier(i) instanceof Link link
        && link.appendIfOwing(command, new Late<>(round, i, nodes.get(i), request))) {
      round.carry(i, link);
      return true;
    }
    return false;
  }

  /** Writes and flushes; a link that fails is dropped and the node's failure recorded. */
  private <T> boolean write(
      int i, Link link, CommandArguments command, Round<T> round, Request<T> request) {
    try {
      link.write(command);
      link.flush();
      return true;
    } catch (JedisConnectionException e) {
      endpoints[i].drop(link, e);
      round.record(i, null, request.failure(e));
      return false;
    }
  }

  /**
   * Reads node {@code i}'s reply until {@code readBy}; a reply that has not started to come by then
   * is left to the node's drainer.
   */
  private <T> void read(
      int i, Link link, long start, long readBy, Round<T> round, Request<T> request) {
    Endpoint endpoint = endpoints[i];
    Object reply;
    try {
      // Past readBy (a slow node was read first), replies that have come are still taken.
      if (!link.awaitReply(ceilMillis(readBy - ticker.read()))) {
        round.carry(i, link);
        endpoint.late(
            link,
            new Late<>(round, i, endpoint.node(), request),
            "no reply within " + ceilMillis(readBy - start) + " ms");
        return;
      }
      reply = link.read();
    } catch (JedisDataException e) {
      endpoint.giveBack(link);
      Late.recordError(round, i, endpoint.node(), request, e);
      return;
    } catch (JedisConnectionException e) {
      endpoint.drop(link, e);
      round.record(i, null, request.failure(e));
      return;
    } catch (RuntimeException e) {
      endpoint.drop(link, e);
      round.record(i, null, e);
      return;
    }
    endpoint.giveBack(link);
    Late.recordReply(round, i, request, reply);
  }

  /**
   * Waits until {@code readBy} for a link being opened for node {@code i}; if none comes, records
   * the failure, and a link that comes later is given back.
   */
  private <T> Link await(
      int i,
      CompletableFuture<Link> opening,
      long start,
      long readBy,
      Round<T> round,
      Request<T> request) {
    boolean interrupted = false;
    try {
      while (true) {
        try {
          return opening.get(Math.max(0, readBy - ticker.read()), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
          interrupted = true; // bounded: an unlock by an interrupted thread must still release
        } catch (ExecutionException e) {
          Throwable cause = e.getCause();
          round.record(
              i,
              null,
              request.failure(
                  cause instanceof JedisConnectionException c
                      ? c
                      : new JedisConnectionException(cause)));
          return null;
        } catch (TimeoutException e) {
          CompletableFuture<Void> unused = opening.thenAccept(endpoints[i]::giveBack);
          round.record(
              i,
              null,
              request.failure(
                  new JedisConnectionException(
                      "no connection within " + ceilMillis(readBy - start) + " ms")));
          return null;
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private static long ceilMillis(long nanos) {
    return Math.max(0, (nanos + 999_999) / 1_000_000);
  }

  @SuppressWarnings("unchecked")
  private static CompletableFuture<Link>[] newFutures(int n) {
    return (CompletableFuture<Link>[]) new CompletableFuture<?>[n];
  }
}
