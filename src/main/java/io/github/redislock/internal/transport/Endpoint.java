package io.github.redislock.internal.transport;

import io.github.redislock.internal.util.Backoff;
import io.github.redislock.internal.util.Ticker;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.exceptions.JedisConnectionException;

/**
 * One node of the {@link Pipelined} transport: its connections ({@link Link}s, in a {@link
 * LinkPool}) and its health.
 *
 * <p>A caller takes an idle link without blocking; a new one is opened on a background thread,
 * never in the caller's, so that a node that stopped answering cannot hold the caller in a
 * connection's set-up. A link whose reply the caller stopped waiting for goes to a background
 * drainer, which reads the late replies as they come, records them, and gives the link back. A link
 * that stays silent for the late-reply bound (the longer of the lease and the command timeout: by
 * then any key its requests set has expired, and nobody waits for their replies) is closed, and its
 * replies fail: a connection dropped without a reset would otherwise hold a thread and a link until
 * TCP gave up.
 *
 * <p>A node is <em>down</em> from a late reply or a failed connection until it answers again (a
 * late reply comes, or a new connection is made): while down, requests skip it at once, and a
 * background probe reconnects with a capped exponential backoff, so that a node that keeps failing
 * is not reconnected on every operation.
 */
final class Endpoint implements Drainer.Owner {
  private static final Logger log = LoggerFactory.getLogger(Endpoint.class);

  private final Node node;
  private final RedisClient client;
  private final Executor executor;
  private final List<CommandArguments> greeting;
  private final Ticker ticker;
  private final long nodeTimeoutNanos;

  private final LinkPool links;
  private final Drainer drainer;
  private final Set<Link> draining = new HashSet<>(); // guarded by this, and the fields below
  private boolean probing;
  private boolean closed;

  private volatile boolean down;
  private volatile long downSinceNanos;
  private volatile String downCause = "";
  private volatile Throwable downFailure;

  /**
   * An endpoint for {@code node}, whose background work runs on {@code executor}.
   *
   * @param nodeTimeoutNanos how long a request waits for this node before it counts as down
   * @param lateBoundNanos how long a late reply is waited for, and a release for a node that is
   *     down
   */
  Endpoint(
      Node node,
      Executor executor,
      List<CommandArguments> greeting,
      Ticker ticker,
      long nodeTimeoutNanos,
      long lateBoundNanos) {
    this.node = node;
    this.client = (RedisClient) node.client();
    this.executor = executor;
    this.links = new LinkPool(executor);
    this.drainer = new Drainer(ticker, nodeTimeoutNanos, lateBoundNanos, this);
    this.greeting = greeting;
    this.ticker = ticker;
    this.nodeTimeoutNanos = nodeTimeoutNanos;
  }

  Node node() {
    return node;
  }

  /** Whether requests skip this node until it answers again. */
  boolean isDown() {
    return down;
  }

  /**
   * Why a request skipped this node, for its failure: caused by the failure that took it down, if
   * there was one, so that a failure no reconnection cures (a refused password or certificate)
   * stays one.
   */
  JedisConnectionException downFailure() {
    long millis = TimeUnit.NANOSECONDS.toMillis(ticker.read() - downSinceNanos);
    return new JedisConnectionException(
        "not asked: no answer for "
            + millis
            + " ms ("
            + downCause
            + "); reconnecting in the background",
        downFailure);
  }

  /** An idle link, or {@code null} when there is none. */
  Link take() {
    return links.take();
  }

  /** A link once there is one (see {@link LinkPool#connect}), opened on a background thread. */
  CompletableFuture<Link> connect() {
    return links.connect(this::open);
  }

  /** Opens a link (blocking, in a background thread); the node is up if it answers. */
  private Link open() {
    Link link;
    try {
      link = Link.open(client);
      try {
        link.greet(greeting);
      } catch (RuntimeException e) {
        link.close();
        throw e;
      }
    } catch (RuntimeException e) {
      links.lost();
      markDown(e.getMessage(), e);
      throw e;
    }
    markUp();
    return link;
  }

  /** Returns a link whose every reply has been read. */
  void giveBack(Link link) {
    links.giveBack(link);
  }

  /** Closes a link that failed; the node is down, and so are its idle links, most likely. */
  void drop(Link link, RuntimeException cause) {
    link.close();
    links.lost();
    links.closeIdle();
    markDown(String.valueOf(cause.getMessage()), cause);
  }

  /**
   * Hands {@code link}, whose reply {@code late} the caller stopped waiting for, to a background
   * drainer. The node is down from {@code downAtNanos} (at once, if it has passed) until it
   * answers: a caller that stopped waiting because it had enough replies does not make a node down
   * that answers within the node timeout.
   */
  void late(Link link, Late<?> late, String cause, long downAtNanos) {
    link.owe(late);
    drainLater(link, cause, downAtNanos);
  }

  /** Hands {@code link}, which owes replies, to a background drainer, as {@link #late} does. */
  void drainLater(Link link, String cause, long downAtNanos) {
    boolean downNow = downAtNanos - ticker.read() <= 0;
    if (downNow) {
      markDown(cause, null);
    }
    synchronized (this) {
      if (!closed) {
        draining.add(link);
        try {
          executor.execute(() -> drainer.drain(link, cause, downNow, downAtNanos));
          return;
        } catch (RejectedExecutionException e) {
          draining.remove(link);
        }
      }
    }
    link.close();
    link.failOwed(new JedisConnectionException("closed"));
    links.lost();
  }

  @Override
  public void answered() {
    markUp();
  }

  @Override
  public void silent(String cause) {
    markDown(cause, null);
  }

  @Override
  public void failed(Link link, JedisConnectionException failure) {
    synchronized (this) {
      draining.remove(link);
    }
    drop(link, failure);
    link.failOwed(failure);
  }

  @Override
  public void gaveUp(Link link, JedisConnectionException failure) {
    synchronized (this) {
      draining.remove(link);
    }
    link.close();
    links.lost();
    log.debug("{}: {}", node.label(), failure.getMessage());
    link.failOwed(failure);
  }

  @Override
  public void drained(Link link) {
    synchronized (this) {
      draining.remove(link);
    }
    links.giveBack(link);
  }

  /** The node answered: it is up. */
  private void markUp() {
    down = false;
  }

  private void markDown(String cause, Throwable failure) {
    synchronized (this) {
      if (!down) {
        downSinceNanos = ticker.read();
        down = true;
      }
      downCause = cause;
      downFailure = failure;
      if (probing || closed) {
        return;
      }
      probing = true;
    }
    try {
      executor.execute(this::probe);
    } catch (RejectedExecutionException e) {
      synchronized (this) {
        probing = false;
      }
    }
  }

  /** Reconnects in the background, with a capped exponential backoff, until the node answers. */
  private void probe() {
    Backoff backoff = new Backoff();
    try {
      while (down) {
        Thread.sleep(TimeUnit.NANOSECONDS.toMillis(backoff.nextNanos()));
        if (!links.reserve()) {
          return; // closed
        }
        try {
          links.giveBack(open());
          log.debug("{} answers again", node.label());
        } catch (RuntimeException e) {
          log.debug("{} still does not answer", node.label(), e);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // closing
    } finally {
      synchronized (this) {
        probing = false;
      }
    }
  }

  /** Closes every link; a drainer ends with an exception, a waiting caller too. */
  void close() {
    List<Link> drained;
    synchronized (this) {
      closed = true;
      drained = new ArrayList<>(draining);
    }
    links.close();
    drained.forEach(Link::close);
  }

  /** Whole milliseconds, rounded up, at least 1: the resolution of socket timeouts. */
  static long millis(long nanos) {
    return Math.max(1, (nanos + 999_999) / 1_000_000);
  }
}
