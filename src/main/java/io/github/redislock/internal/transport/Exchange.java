package io.github.redislock.internal.transport;

import io.github.redislock.internal.util.Ticker;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * One request of the {@link Pipelined} transport, in the calling thread: written to every node
 * asked, then its replies read as they come. In node order while each reply starts to come within a
 * slice (5 ms, or as long as the exchange has run; the uncontended case is the cheapest); else
 * whichever have come, so that a slow node does not hold up the replies that are there. A
 * connection being opened for a node gets the command once it is open.
 *
 * <p>It stops at the node timeout, or once the replies decide and the others have had as long
 * again, and at least 10 ms since the start; what is missing then is left to the background: a late
 * reply to the node's drainer (the node counts as down only if it has not answered within the node
 * timeout), and a connection still opening carries the request once it opens ({@link Opening}).
 * Used once.
 *
 * @param <T> the parsed reply type
 */
final class Exchange<T> {
  /**
   * How long the first node in line is waited for, at least, before the replies of the others are
   * taken; then as long as the exchange has run so far, so that slow replies cost few wake-ups and
   * a slow node delays the others' replies by at most as long as they took. A wait that runs out
   * costs two exceptions (the socket's timeout, and Jedis's around it) and a look at every other
   * connection: with 1 ms, a busy machine's replies ran past it often enough to cost 11% of the
   * throughput of 8 threads on their own keys over 5 masters (2 cores), against 5 ms.
   */
  private static final long SLICE_NANOS = TimeUnit.MILLISECONDS.toNanos(5);

  /**
   * How long after its start an exchange that has decided still reads the other replies itself, at
   * least: handing a reply to the node's drainer wakes a thread, which costs more than the wait for
   * a reply a busy machine is about to deliver (own keys on 8 threads, 5 masters, 2 cores: 18% of
   * the throughput with the rest handed over as soon as the decision allowed).
   */
  private static final long REST_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

  private final Endpoint[] endpoints;
  private final Ticker ticker;
  private final long nodeTimeoutNanos;
  private final long lateBoundNanos;
  private final Round<T> round;
  private final Request<T> request;
  private final CommandArguments command;
  private final boolean undo;
  private final long start;
  private final long readBy;
  private final Link[] links;
  private CompletableFuture<Link>[] opening;
  private int pending;
  private boolean interrupted;

  /**
   * An exchange of {@code request} with the nodes of {@code endpoints}.
   *
   * @param lateBoundNanos how long an undo keeps trying to reach a node
   * @param undo whether the request undoes an earlier one: a node that is down gets it once it
   *     answers again, and it is sent again after its connection failed
   */
  Exchange(
      Endpoint[] endpoints,
      List<Node> nodes,
      Ticker ticker,
      long nodeTimeoutNanos,
      long lateBoundNanos,
      Request<T> request,
      long deadlineNanos,
      boolean undo) {
    this.endpoints = endpoints;
    this.ticker = ticker;
    this.nodeTimeoutNanos = nodeTimeoutNanos;
    this.lateBoundNanos = lateBoundNanos;
    this.round = new Round<>(nodes, ticker, deadlineNanos);
    this.request = request;
    this.command = request.command();
    this.undo = undo;
    this.start = ticker.read();
    this.readBy = Math.min(deadlineNanos, start + nodeTimeoutNanos);
    this.links = new Link[endpoints.length];
  }

  /**
   * Writes to every node asked, then reads the replies until they decide.
   *
   * @param earlier the round this request must follow on each node, or {@code null}
   * @param needed which nodes' replies to {@code earlier} call for this request; {@code null}: all
   * @param decided whether the replies so far are enough for the caller
   * @return the round
   */
  <E> Round<T> run(
      Round<E> earlier, Predicate<? super E> needed, Predicate<? super Round<T>> decided) {
    // The JDK closes the socket a virtual thread uses when the thread is interrupted (at once if
    // the flag is set): the flag waits until the exchange ends, within the node timeout, so that
    // an interrupt does not close the factory's shared connections.
    interrupted = Thread.interrupted();
    try {
      for (int i = 0; i < links.length; i++) {
        if (earlier == null
            || !((needed != null && !earlier.needs(i, needed)) || behind(earlier, i))) {
          ask(i);
        }
      }
      if (pending > 0) {
        readUntil(decided);
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
    return round;
  }

  /** Writes to node {@code i}, or opens a connection for it; a node that is down is skipped. */
  private void ask(int i) {
    Endpoint endpoint = endpoints[i];
    if (endpoint.isDown()) {
      if (!undo) {
        round.record(i, null, request.failure(endpoint.downFailure()));
        return;
      }
      if (endpoint.queueWhileDown(command, late(i))) {
        return;
      }
    }
    Link link = endpoint.take();
    if (link == null) {
      if (opening == null) {
        opening = newFutures(links.length);
      }
      opening[i] = endpoint.connect();
      pending++;
    } else if (write(i, link, command)) {
      links[i] = link;
      pending++;
    }
  }

  /** Writes the request behind node {@code i}'s late reply to {@code earlier}, if it owes one. */
  private boolean behind(Round<?> earlier, int i) {
    Object carrier = earlier.carrier(i);
    if ((carrier instanceof Link link && link.appendIfOwing(command, late(i)))
        || (carrier instanceof Opening opening && opening.appendIfOwing(command, late(i)))) {
      round.carry(i, carrier);
      return true;
    }
    return false;
  }

  private void readUntil(Predicate<? super Round<T>> decided) {
    long stopAt = readBy;
    boolean undecided = true;
    int first = 0;
    while (pending > 0) {
      writeOpened();
      while (first < links.length && links[first] == null && !opening(first)) {
        first++;
      }
      if (first == links.length) {
        break;
      }
      long sliceStart = ticker.read();
      long wait = Math.min(stopAt - sliceStart, Math.max(SLICE_NANOS, sliceStart - start));
      if (wait > 0 && (links[first] != null ? readFirst(first, wait) : opened(first, wait))) {
        continue;
      }
      // The first in line is slow: take every reply that has come (past the time, too).
      for (int i = first; i < links.length; i++) {
        if (links[i] != null && read(i, links[i], 0)) {
          links[i] = null;
          pending--;
        }
      }
      long now = ticker.read();
      if (undecided && pending > 0 && decided.test(round)) {
        undecided = false;
        stopAt = Math.min(stopAt, Math.max(now + (now - start), start + REST_NANOS));
      }
      if (now - stopAt >= 0) {
        break;
      }
    }
    leaveTheRest();
  }

  private boolean opening(int i) {
    return opening != null && opening[i] != null;
  }

  private boolean readFirst(int i, long waitNanos) {
    if (!read(i, links[i], waitNanos)) {
      return false;
    }
    links[i] = null;
    pending--;
    return true;
  }

  /** Waits up to {@code waitNanos} for node {@code i}'s connection to open. */
  private boolean opened(int i, long waitNanos) {
    try {
      opening[i].get(waitNanos, TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      interrupted = true; // bounded: an unlock by an interrupted thread must still release
    } catch (ExecutionException | TimeoutException e) {
      // Seen by writeOpened, or not open yet.
    }
    return opening[i].isDone();
  }

  /** Writes the request on each connection that has opened; records a failure to open. */
  private void writeOpened() {
    for (int i = 0; opening != null && i < opening.length; i++) {
      if (opening[i] == null || !opening[i].isDone()) {
        continue;
      }
      Link link;
      try {
        link = opening[i].getNow(null);
      } catch (CompletionException e) {
        link = null;
        failToOpen(i, e.getCause());
      }
      opening[i] = null;
      if (link != null && write(i, link, command)) {
        links[i] = link;
      } else {
        pending--;
      }
    }
  }

  /** Node {@code i}'s connection could not be opened: it fails, or an undo waits for the node. */
  private void failToOpen(int i, Throwable cause) {
    if (!undo || !endpoints[i].queueWhileDown(command, late(i))) {
      round.record(
          i,
          null,
          request.failure(
              cause instanceof JedisConnectionException c
                  ? c
                  : new JedisConnectionException(cause)));
    }
  }

  /** Hands what is missing to the background. */
  private void leaveTheRest() {
    for (int i = 0; i < links.length; i++) {
      if (links[i] != null) {
        round.carry(i, links[i]);
        endpoints[i].late(
            links[i], late(i), "no reply within " + Link.millis(readBy - start) + " ms", readBy);
      } else if (opening(i)) { // its request is sent once it opens
        round.carry(
            i, Opening.carry(endpoints[i], opening[i], command, late(i), ticker, nodeTimeoutNanos));
      }
    }
  }

  private Late<T> late(int i) {
    return new Late<>(round, i, endpoints[i].node(), request, undo, start + lateBoundNanos);
  }

  /**
   * Node {@code i}'s connection failed with {@code failure}: an undo is sent again on another, and
   * its copy's reply is the node's answer only if it proves the effect (the first may have run);
   * any other request fails.
   */
  private void failOrResend(int i, RuntimeException failure) {
    if (undo && late(i).resendable(ticker.read())) {
      endpoints[i].resend(List.of(new Undos.Undo(command, late(i).proving(failure))));
    } else {
      round.record(i, null, failure);
    }
  }

  /** Writes and flushes; a link that fails is dropped and the node's failure recorded. */
  private boolean write(int i, Link link, CommandArguments what) {
    try {
      link.write(what);
      link.flush();
      return true;
    } catch (JedisConnectionException e) {
      failed(i, link, e);
      failOrResend(i, request.failure(e));
      return false;
    }
  }

  /**
   * Reads node {@code i}'s reply if it starts to come within {@code waitNanos} (0: only if it has
   * come), and records it, or the link's failure.
   *
   * @return whether node {@code i} is done with: false when its reply has not started to come
   */
  private boolean read(int i, Link link, long waitNanos) {
    Endpoint endpoint = endpoints[i];
    Object reply;
    try {
      if (waitNanos > 0 ? !link.awaitReply(Link.millis(waitNanos)) : !link.ready()) {
        return false;
      }
      reply = link.read(Link.millis(nodeTimeoutNanos));
    } catch (JedisDataException e) {
      endpoint.giveBack(link);
      Late.recordError(round, i, endpoint.node(), request, e);
      return true;
    } catch (JedisConnectionException e) {
      failed(i, link, e);
      failOrResend(i, request.failure(e));
      return true;
    } catch (RuntimeException e) {
      endpoint.drop(link, e);
      round.record(i, null, e);
      return true;
    }
    endpoint.giveBack(link);
    Late.recordReply(round, i, request, reply);
    return true;
  }

  /**
   * Node {@code i}'s link failed. If the calling thread was interrupted meanwhile, the JDK closed
   * the socket for the interrupt (a virtual thread's): the link is lost, and the node is not to
   * blame; else the node is down.
   */
  private void failed(int i, Link link, JedisConnectionException e) {
    if (Thread.interrupted()) {
      interrupted = true;
      endpoints[i].lose(link);
    } else {
      endpoints[i].drop(link, e);
    }
  }

  @SuppressWarnings("unchecked")
  private static CompletableFuture<Link>[] newFutures(int n) {
    return (CompletableFuture<Link>[]) new CompletableFuture<?>[n];
  }
}
