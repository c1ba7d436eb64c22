package io.github.redislock.internal.transport;

import io.github.redislock.internal.util.Ticker;
import java.util.concurrent.TimeUnit;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * Reads the late replies a {@link Link} owes, in a background thread, as they come, records each in
 * its round, and tells the link's owner what it learns of the node: it answered, it is silent (no
 * reply by the time the node counts as down), the link failed, or it stayed silent for the
 * late-reply bound (the longer of the lease and the command timeout: by then any key its requests
 * set has expired, and nobody waits for their replies), after which the link is given up.
 */
final class Drainer {
  private static final long SLICE_NANOS = TimeUnit.SECONDS.toNanos(1);

  /** What a drainer tells the owner of the link it drains. */
  interface Owner {
    /** The node answered: it is up. */
    void answered();

    /** The node has not answered in time: it is down, for {@code cause}. */
    void silent(String cause);

    /** The link failed; the replies it still owes are the owner's to fail. */
    void failed(Link link, JedisConnectionException failure);

    /**
     * The link was silent for the late-reply bound; the replies it owes are the owner's to fail.
     */
    void gaveUp(Link link, JedisConnectionException failure);

    /** Every reply the link owed has been read: it is free again. */
    void drained(Link link);
  }

  private final Ticker ticker;
  private final long nodeTimeoutNanos;
  private final long lateBoundNanos;
  private final Owner owner;

  Drainer(Ticker ticker, long nodeTimeoutNanos, long lateBoundNanos, Owner owner) {
    this.ticker = ticker;
    this.nodeTimeoutNanos = nodeTimeoutNanos;
    this.lateBoundNanos = lateBoundNanos;
    this.owner = owner;
  }

  /**
   * Reads the replies {@code link} owes until it owes none; unless {@code markedDown}, tells the
   * owner the node is silent at {@code downAtNanos} if no reply has come by then.
   */
  void drain(Link link, String cause, boolean markedDown, long downAtNanos) {
    boolean marked = markedDown;
    long giveUpAt = ticker.read() + lateBoundNanos;
    for (Late<?> next = link.nextOwed(); next != null; next = link.nextOwed()) {
      Object reply;
      try {
        long until = marked ? giveUpAt : Math.min(downAtNanos, giveUpAt);
        if (!link.awaitReply(Link.millis(Math.min(until - ticker.read(), SLICE_NANOS)))) {
          long now = ticker.read();
          if (!marked && now - downAtNanos >= 0) {
            marked = true;
            owner.silent(cause);
          }
          if (now - giveUpAt >= 0) {
            long bound = TimeUnit.NANOSECONDS.toMillis(lateBoundNanos);
            owner.gaveUp(
                link,
                new JedisConnectionException(
                    "no reply for " + bound + " ms (the late-reply bound); connection closed"));
            return;
          }
          continue;
        }
        try {
          reply = link.read(Link.millis(nodeTimeoutNanos));
        } catch (JedisDataException e) {
          owner.answered();
          link.paidWithError(next, e);
          giveUpAt = ticker.read() + lateBoundNanos;
          continue;
        }
      } catch (RuntimeException e) {
        owner.failed(
            link, e instanceof JedisConnectionException c ? c : new JedisConnectionException(e));
        return;
      }
      link.paid();
      owner.answered(); // before the reply is recorded: whoever acts on it finds the node up
      next.complete(reply);
      giveUpAt = ticker.read() + lateBoundNanos;
    }
    owner.drained(link);
  }
}
