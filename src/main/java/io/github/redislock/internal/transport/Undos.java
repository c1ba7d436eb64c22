package io.github.redislock.internal.transport;

import io.github.redislock.internal.util.Ticker;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.exceptions.JedisConnectionException;

/**
 * The requests meant to undo earlier ones (releases) that wait for a node that is down: they are
 * sent, in order, once it answers again. Each waits until a bound (the lease: by then every key the
 * node may hold for it has expired), after which it fails; at most {@value #MAX} wait at once, and
 * a request beyond that fails at once. Not thread-safe: its {@link Endpoint} guards it.
 */
final class Undos {
  /** How many requests may wait for one node. */
  static final int MAX = 10_000;

  /** Why a request that could not wait any more fails. */
  static final String FULL =
      "not asked: "
          + MAX
          + " releases wait for this node already; the keys expire with their lease";

  /** Why a request whose bound passed fails. */
  static final String EXPIRED = "not sent: the node did not answer before the key expired";

  /** One waiting request: the command, and where its reply goes (and until when it waits). */
  record Undo(CommandArguments command, Late<?> late) {
    long expiresNanos() {
      return late.untilNanos();
    }
  }

  private final ArrayDeque<Undo> waiting = new ArrayDeque<>();

  /**
   * Adds {@code undo}, unless {@value #MAX} wait already.
   *
   * @return whether it waits now
   */
  boolean add(Undo undo) {
    if (waiting.size() >= MAX) {
      return false;
    }
    waiting.add(undo);
    return true;
  }

  /** Puts back, first and in their order, requests taken that could not be sent. */
  void putBack(List<Undo> undos) {
    for (int i = undos.size() - 1; i >= 0; i--) {
      waiting.addFirst(undos.get(i));
    }
  }

  /** Removes and returns every waiting request. */
  List<Undo> takeAll() {
    List<Undo> all = new ArrayList<>(waiting);
    waiting.clear();
    return all;
  }

  /**
   * Removes and returns the requests at the head of the line whose bound has passed at {@code now}:
   * they wait in the order they came, each as long as the others, so those are all of them but for
   * a few sent again after a failed connection, which go at the time they reach the head.
   */
  List<Undo> takeExpired(long now) {
    List<Undo> expired = new ArrayList<>(0);
    while (!waiting.isEmpty() && now - waiting.peekFirst().expiresNanos() >= 0) {
      expired.add(waiting.pollFirst());
    }
    return expired;
  }

  boolean isEmpty() {
    return waiting.isEmpty();
  }

  /**
   * Fails each of {@code lates}, whose connection failed, but the undos among them that are still
   * to reach their node, when {@code resend}: returns a copy of each of those, whose reply counts
   * only if it proves the effect (see {@link Late#proving}).
   */
  static List<Undo> failAll(
      List<Late<?>> lates, JedisConnectionException failure, boolean resend, Ticker ticker) {
    long now = ticker.read();
    List<Undo> again = new ArrayList<>(0);
    for (Late<?> late : lates) {
      if (resend && late.resendable(now)) {
        again.add(
            new Undo(late.request().command(), late.proving(late.request().failure(failure))));
      } else {
        late.fail(failure);
      }
    }
    return again;
  }

  /** Fails each of {@code undos} with {@code why}; call it without holding the endpoint's lock. */
  static void fail(List<Undo> undos, String why) {
    for (Undo undo : undos) {
      undo.late().fail(new JedisConnectionException(why));
    }
  }
}
