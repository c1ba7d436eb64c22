package io.github.redislock.internal.transport;

import io.github.redislock.internal.util.Ticker;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.exceptions.JedisConnectionException;

/**
 * A connection of the {@link Pipelined} transport still being opened when its caller stopped
 * waiting: what carries the caller's request to its node (as a {@link Link} carries a late reply).
 * The request, and any request written behind it meanwhile ({@link #appendIfOwing}), are written in
 * order once the connection opens, and their replies left to the node's drainer; if it cannot be
 * opened, they fail, but for an undo, which waits for the node. Thread-safe.
 */
final class Opening {
  private final Endpoint endpoint;
  private final Ticker ticker;
  private final long nodeTimeoutNanos;

  /** The requests to write once open, in order; guarded by this, as are the fields below. */
  private final List<Carried> requests = new ArrayList<>(2);

  private Link link;
  private boolean failed;

  private record Carried(CommandArguments command, Late<?> late) {}

  private Opening(Endpoint endpoint, Ticker ticker, long nodeTimeoutNanos) {
    this.endpoint = endpoint;
    this.ticker = ticker;
    this.nodeTimeoutNanos = nodeTimeoutNanos;
  }

  /**
   * Sends {@code command}, whose reply goes to {@code late}, on the connection {@code opening}
   * brings, once it opens.
   */
  static Opening carry(
      Endpoint endpoint,
      CompletableFuture<Link> opening,
      CommandArguments command,
      Late<?> late,
      Ticker ticker,
      long nodeTimeoutNanos) {
    Opening carrier = new Opening(endpoint, ticker, nodeTimeoutNanos);
    carrier.requests.add(new Carried(command, late));
    CompletableFuture<Void> unused = opening.handle(carrier::opened);
    return carrier;
  }

  /**
   * Writes {@code command} behind the requests this connection carries.
   *
   * @return false when it carries none any more (their replies came, or it could not be opened):
   *     the caller may use any connection
   */
  boolean appendIfOwing(CommandArguments command, Late<?> late) {
    Link open;
    synchronized (this) {
      if (failed) {
        return false;
      }
      if (link == null) {
        requests.add(new Carried(command, late));
        return true;
      }
      open = link;
    }
    return open.appendIfOwing(command, late);
  }

  /** The connection opened, or could not be: writes what it carries, or fails it. */
  private Void opened(Link opened, Throwable failure) {
    List<Carried> carried;
    JedisConnectionException broken = null;
    synchronized (this) {
      carried = List.copyOf(requests);
      requests.clear();
      failed = opened == null;
      link = opened;
      try { // under this lock: a request appended meanwhile goes behind these
        for (Carried request : opened == null ? List.<Carried>of() : carried) {
          opened.owe(request.late());
          opened.write(request.command());
        }
        if (opened != null) {
          opened.flush();
        }
      } catch (JedisConnectionException e) {
        broken = e;
      }
    }
    if (opened == null) {
      for (Carried request : carried) {
        Late<?> late = request.late();
        if (!late.undo() || !endpoint.queueWhileDown(request.command(), late)) {
          late.fail(new JedisConnectionException("no connection could be opened", failure));
        }
      }
    } else if (broken != null) {
      endpoint.failed(opened, broken);
    } else {
      String cause = "no reply within " + Link.millis(nodeTimeoutNanos) + " ms";
      endpoint.drainLater(opened, cause, ticker.read() + nodeTimeoutNanos);
    }
    return null;
  }
}
