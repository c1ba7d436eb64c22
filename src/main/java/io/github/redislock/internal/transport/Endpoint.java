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
 * is not reconnected on every operation. A request meant to undo an earlier one (a release) is not
 * skipped: it waits ({@link Undos}) and is sent once the node answers again, or fails once the
 * late-reply bound has passed.
 */
final class Endpoint implements Drainer.Owner {
  private static final Logger log = LoggerFactory.getLogger(Endpoint.class);

  private final Node node;
  private final Dial dial;
  private final Executor executor;
  private final List<CommandArguments> greeting;
  private final Ticker ticker;
  private final long nodeTimeoutNanos;

  private final LinkPool links;
  private final Drainer drainer;
  private final Set<Link> draining = new HashSet<>(); // guarded by this, and the fields below
  private final Undos undos = new Undos();
  private boolean probing;
  private boolean closed;

  private volatile boolean down; // written under this
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
    this.dial = node.dial();
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

  /**
   * Queues {@code command}, a request meant to undo an earlier one, while this node is down: it is
   * sent once the node answers again, its reply recorded by {@code late}, or fails once the
   * late-reply bound has passed (or at once, when too many wait already).
   *
   * @return false when the node is up: send it now
   */
  boolean queueWhileDown(CommandArguments command, Late<?> late) {
    long now = ticker.read();
    List<Undos.Undo> expired;
    boolean queued;
    synchronized (this) {
      if (!down || closed) {
        return false;
      }
      expired = undos.takeExpired(now);
      queued = undos.add(new Undos.Undo(command, late));
    }
    Undos.fail(expired, Undos.EXPIRED);
    if (!queued) {
      late.fail(new JedisConnectionException(Undos.FULL));
    }
    return true;
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
      link = Link.open(dial);
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

  /**
   * Closes a link whose failure was its caller's (an interrupt closed a virtual thread's socket):
   * the node stays up, and its other links open.
   */
  void lose(Link link) {
    link.close();
    links.lost();
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
    failOwed(link, new JedisConnectionException("closed"), false);
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
    failOwed(link, failure, true);
  }

  @Override
  public void gaveUp(Link link, JedisConnectionException failure) {
    synchronized (this) {
      draining.remove(link);
    }
    link.close();
    links.lost();
    log.debug("{}: {}", node.label(), failure.getMessage());
    failOwed(link, failure, true);
  }

  @Override
  public void drained(Link link) {
    synchronized (this) {
      draining.remove(link);
    }
    links.giveBack(link);
  }

  /** Fails every reply {@code link} owes; with {@code resend}, an undo among them is sent again. */
  private void failOwed(Link link, JedisConnectionException failure, boolean resend) {
    resend(Undos.failAll(link.takeOwed(), failure, resend, ticker));
  }

  /**
   * Sends {@code again}, undos whose connection failed, on another connection: once the node
   * answers again, at once if it is up.
   */
  void resend(List<Undos.Undo> again) {
    if (again.isEmpty()) {
      return;
    }
    List<Undos.Undo> due;
    synchronized (this) {
      if (closed) {
        due = null;
      } else {
        undos.putBack(again);
        if (down) {
          return;
        }
        due = undos.takeAll();
      }
    }
    if (due == null) {
      Undos.fail(again, "closed");
      return;
    }
    try {
      executor.execute(() -> sendUndos(due));
    } catch (RejectedExecutionException e) {
      Undos.fail(due, "closed");
    }
  }

  /** The node answered: it is up, and the releases that waited for it are sent. */
  private void markUp() {
    if (!down) {
      return;
    }
    List<Undos.Undo> waiting;
    synchronized (this) {
      if (!down) {
        return;
      }
      down = false;
      if (closed || undos.isEmpty()) {
        return;
      }
      waiting = undos.takeAll();
    }
    try {
      executor.execute(() -> sendUndos(waiting));
    } catch (RejectedExecutionException e) {
      Undos.fail(waiting, "closed");
    }
  }

  /**
   * Sends the releases that waited for the node on one link, in order, and drains their replies; if
   * no link can be had, they wait again.
   */
  private void sendUndos(List<Undos.Undo> waiting) {
    long now = ticker.read();
    List<Undos.Undo> due = new ArrayList<>(waiting.size());
    List<Undos.Undo> expired = new ArrayList<>(0);
    for (Undos.Undo undo : waiting) {
      (now - undo.expiresNanos() >= 0 ? expired : due).add(undo);
    }
    Undos.fail(expired, Undos.EXPIRED);
    if (due.isEmpty()) {
      return;
    }
    Link link = links.take();
    if (link == null) {
      if (!links.reserve()) {
        Undos.fail(due, "closed");
        return;
      }
      try {
        link = open();
      } catch (RuntimeException e) { // nothing was sent: they wait again, the node being down
        synchronized (this) {
          if (down && !closed) {
            undos.putBack(due);
            return;
          }
        }
        Undos.fail(due, String.valueOf(e.getMessage()));
        return;
      }
    }
    try {
      for (Undos.Undo undo : due) {
        link.owe(undo.late());
        link.write(undo.command());
      }
      link.flush();
    } catch (JedisConnectionException e) {
      drop(link, e);
      failOwed(link, e, true);
      return;
    }
    boolean open;
    synchronized (this) {
      open = !closed && draining.add(link);
    }
    if (!open) {
      link.close();
      failOwed(link, new JedisConnectionException("closed"), false);
      links.lost();
      return;
    }
    String cause = "no reply within " + Link.millis(nodeTimeoutNanos) + " ms";
    drainer.drain(link, cause, false, ticker.read() + nodeTimeoutNanos);
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

  /**
   * Reconnects in the background, with a capped exponential backoff, until the node answers;
   * releases waiting for it past the late-reply bound fail meanwhile.
   */
  private void probe() {
    Backoff backoff = new Backoff();
    try {
      while (down) {
        Thread.sleep(TimeUnit.NANOSECONDS.toMillis(backoff.nextNanos()));
        List<Undos.Undo> expired;
        synchronized (this) {
          expired = undos.takeExpired(ticker.read());
        }
        Undos.fail(expired, Undos.EXPIRED);
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

  /**
   * Closes every link; a drainer ends with an exception, a waiting caller too, and so do the
   * releases waiting for the node.
   */
  void close() {
    List<Link> drained;
    List<Undos.Undo> unsent;
    synchronized (this) {
      closed = true;
      drained = new ArrayList<>(draining);
      unsent = undos.takeAll();
    }
    links.close();
    drained.forEach(Link::close);
    Undos.fail(unsent, "closed");
  }
}
