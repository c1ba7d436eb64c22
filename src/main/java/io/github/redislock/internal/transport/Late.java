package io.github.redislock.internal.transport;

import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisNoScriptException;

/**
 * A node's reply that did not come while its caller waited, or a request written behind such a
 * reply: where to record it when it comes. The {@link Link} that carries it is drained in the
 * background.
 *
 * <p>A request meant to undo an earlier one (a release) must reach the node until {@code
 * untilNanos}: if its connection fails before its reply comes, it is sent again on another
 * connection, and the copy's reply counts as the node's answer only if it proves the effect ({@link
 * Request#provesEffect}: a release that answers "released"), since the first may have run; any
 * other outcome of the copy records the failure of the first ({@link #proving}).
 *
 * @param round the round the reply belongs to
 * @param index the node's position in it
 * @param node the node
 * @param request the request, to parse the reply with
 * @param undo whether the request undoes an earlier one
 * @param untilNanos for an undo, until when it is sent again after a failed connection
 * @param unlessProven for a copy sent again: the failure of the first, recorded unless the copy's
 *     reply proves the effect; else {@code null}
 * @param <T> the parsed reply type
 */
record Late<T>(
    Round<T> round,
    int index,
    Node node,
    Request<T> request,
    boolean undo,
    long untilNanos,
    RuntimeException unlessProven) {

  /** Where the reply to an ordinary request goes. */
  Late(Round<T> round, int index, Node node, Request<T> request) {
    this(round, index, node, request, false, 0, null);
  }

  /** Where the reply to a request goes, the first copy sent. */
  Late(Round<T> round, int index, Node node, Request<T> request, boolean undo, long untilNanos) {
    this(round, index, node, request, undo, untilNanos, null);
  }

  /** Whether an undo is still to be sent again after a failed connection, at {@code now}. */
  boolean resendable(long now) {
    return undo && untilNanos - now > 0;
  }

  /**
   * The same undo, to send again after its connection failed with {@code failure}: its reply is
   * recorded only if it proves the effect; any other outcome records {@code failure} (or the
   * failure of the first copy, for a copy of a copy).
   */
  Late<T> proving(RuntimeException failure) {
    return new Late<>(
        round,
        index,
        node,
        request,
        true,
        untilNanos,
        unlessProven == null ? failure : unlessProven);
  }

  /** Records {@code reply}, the node's raw answer. */
  void complete(Object reply) {
    if (unlessProven == null) {
      recordReply(round, index, request, reply);
      return;
    }
    T parsed = null;
    try {
      parsed = request.parse(reply);
    } catch (RuntimeException e) {
      // not a reply that proves anything: the first copy's failure stands
    }
    recordIfProven(parsed);
  }

  /** Records an error reply (see {@link #recordError}). */
  void error(JedisDataException e) {
    if (unlessProven == null) {
      recordError(round, index, node, request, e);
      return;
    }
    T parsed = null;
    if (e instanceof JedisNoScriptException) { // the node forgot the script: run it with its source
      try {
        parsed = request.call(node.client());
      } catch (RuntimeException again) {
        // the first copy's failure stands
      }
    }
    recordIfProven(parsed);
  }

  /** A copy's answer: recorded when it proves the effect, else the first copy's failure. */
  private void recordIfProven(T parsed) {
    if (parsed != null && request.provesEffect(parsed)) {
      round.record(index, parsed, null);
    } else {
      round.record(index, null, unlessProven);
    }
  }

  /** Records an error reply as this node's failure, whatever it is. */
  void refuse(JedisDataException e) {
    round.record(index, null, unlessProven != null ? unlessProven : request.failure(e));
  }

  /** Records that the connection failed before the reply came. */
  void fail(JedisConnectionException e) {
    round.record(index, null, unlessProven != null ? unlessProven : request.failure(e));
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
