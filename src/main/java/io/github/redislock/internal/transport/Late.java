package io.github.redislock.internal.transport;

import io.github.redislock.internal.util.Ticker;
import java.util.List;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisNoScriptException;

/**
 * A node's reply that did not come while its caller waited, or a request written behind such a
 * reply: where to record it when it comes. The {@link Link} that carries it is drained in the
 * background.
 *
 * <p>A request meant to undo an earlier one (a release) must reach the node until {@code
 * untilNanos}: if its connection fails before its reply comes, it is recorded as failed and sent
 * again on another connection, blind (its reply recorded nowhere, since the first may have run).
 *
 * @param round the round the reply belongs to
 * @param index the node's position in it
 * @param node the node
 * @param request the request, to parse the reply with
 * @param undo whether the request undoes an earlier one
 * @param untilNanos for an undo, until when it is sent again after a failed connection
 * @param <T> the parsed reply type
 */
record Late<T>(
    Round<T> round, int index, Node node, Request<T> request, boolean undo, long untilNanos) {

  /** Where the reply to an ordinary request goes. */
  Late(Round<T> round, int index, Node node, Request<T> request) {
    this(round, index, node, request, false, 0);
  }

  /** Whether an undo is still to be sent again after a failed connection, at {@code now}. */
  boolean resendable(long now) {
    return undo && untilNanos - now > 0;
  }

  /** The same undo, whose reply goes to a round of its own that nobody reads. */
  Late<T> blind(Ticker ticker) {
    return new Late<>(
        new Round<>(List.of(node), ticker, untilNanos), 0, node, request, true, untilNanos);
  }

  /** Records {@code reply}, the node's raw answer. */
  void complete(Object reply) {
    recordReply(round, index, request, reply);
  }

  /** Records an error reply (see {@link #recordError}). */
  void error(JedisDataException e) {
    recordError(round, index, node, request, e);
  }

  /** Records an error reply as this node's failure, whatever it is. */
  void refuse(JedisDataException e) {
    round.record(index, null, request.failure(e));
  }

  /** Records that the connection failed before the reply came. */
  void fail(JedisConnectionException e) {
    round.record(index, null, request.failure(e));
  }

  /** Records node {@code index}'s raw {@code reply} in {@code round}, parsed. */
  static <T> void recordReply(Round<T> round, int index, Request<T> request, Object reply) {
    T parsed;
    try {
      parsed = request.parse(reply);
    } catch (RuntimeException e) {
      round.record(index, null, e);
      return;
    }
    round.record(index, parsed, null);
  }

  /**
   * Records node {@code index}'s error reply in {@code round}; a script the node has forgotten is
   * run again through the node's client, in the calling thread.
   */
  static <T> void recordError(
      Round<T> round, int index, Node node, Request<T> request, JedisDataException e) {
    if (!(e instanceof JedisNoScriptException)) {
      round.record(index, null, request.failure(e));
      return;
    }
    T parsed;
    try {
      parsed = request.call(node.client());
    } catch (RuntimeException again) {
      round.record(index, null, again);
      return;
    }
    round.record(index, parsed, null);
  }
}
