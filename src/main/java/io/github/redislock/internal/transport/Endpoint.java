package io.github.redislock.internal.transport;

import io.github.redislock.internal.util.Backoff;
import io.github.redislock.internal.util.Ticker;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
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
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * One node of the {@link Pipelined} transport: its connections ({@link Link}s) and its health.
 *
 * <p>Idle links wait in a stack, at most {@value #MAX_LINKS} links per node. A caller takes one
 * without blocking; a new one is opened on a background thread, never in the caller's, so that a
 * node that stopped answering cannot hold the caller in a connection's set-up. A link whose reply
 * is late goes to a background drainer, which reads the late replies as they come, records them,
 * and gives the link back. A link that stays silent for the late-reply bound (the longer of the
 * lease and the command timeout: by then any key its requests set has expired, and nobody waits for
 * their replies) is closed, and its replies fail: a connection dropped without a reset would
 * otherwise hold a thread and a link until TCP gave up.
 *
 * <p>A node is <em>down</em> from a late reply or a failed connection until it answers again (a
 * late reply comes, or a new connection is made): while down, requests skip it at once, and a
 * background probe reconnects with a capped exponential backoff, so that a node that keeps failing
 * is not reconnected on every operation.
 */
final class Endpoint {
  private static final Logger log = LoggerFactory.getLogger(Endpoint.class);
  static final int MAX_LINKS = 64;
  private static final long DRAIN_SLICE_MILLIS = 1_000;

  private final Node node;
  private final RedisClient client;
  private final Executor executor;
  private final List<CommandArguments> greeting;
  private final Ticker ticker;
  private final long lateBoundNanos;

  private Link[] idle = new Link[4]; // guarded by this, and the fields below
  private int idleCount;
  private int live;
  private final ArrayDeque<CompletableFuture<Link>> waiters = new ArrayDeque<>();
  private final Set<Link> draining = new HashSet<>();
  private boolean probing;
  private boolean closed;

  private volatile boolean down;
  private volatile long downSinceNanos;
  private volatile String downCause = "";
  private volatile Throwable downFailure;

  /**
   * An endpoint for {@code node}, whose background work runs on {@code executor}.
   *
   * @param lateBoundNanos how long a late reply is waited for: a link silent that long is closed
   */
  Endpoint(
      Node node,
      Executor executor,
      List<CommandArguments> greeting,
      Ticker ticker,
      long lateBoundNanos) {
    this.node = node;
    this.client = (RedisClient) node.client();
    this.executor = executor;
    this.greeting = greeting;
    this.ticker = ticker;
    this.lateBoundNanos = lateBoundNanos;
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
  synchronized Link take() {
    if (idleCount == 0) {
      return null;
    }
    Link link = idle[--idleCount];
    idle[idleCount] = null;
    return link;
  }

  /**
   * A link once there is one: opened on a background thread, or given back by another caller when
   * this node has {@value #MAX_LINKS} already. A caller that stops waiting must {@linkplain
   * #giveBack give back} what comes later.
   */
  CompletableFuture<Link> connect() {
    synchronized (this) {
      if (closed) {
        return CompletableFuture.failedFuture(new JedisConnectionException("closed"));
      }
      if (idleCount > 0) {
        return CompletableFuture.completedFuture(take());
      }
      if (live >= MAX_LINKS) {
        CompletableFuture<Link> waiter = new CompletableFuture<>();
        waiters.add(waiter);
        return waiter;
      }
      live++;
    }
    try {
      return CompletableFuture.supplyAsync(this::open, executor);
    } catch (RejectedExecutionException e) {
      lost();
      return CompletableFuture.failedFuture(new JedisConnectionException("closed", e));
    }
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
      lost();
      markDown(e.getMessage(), e, false);
      throw e;
    }
    markUp();
    return link;
  }

  /** Returns a link whose every reply has been read. */
  void giveBack(Link link) {
    CompletableFuture<Link> waiter;
    synchronized (this) {
      waiter = closed ? null : waiters.poll();
      if (waiter == null && !closed) {
        if (idleCount == idle.length) {
          idle = Arrays.copyOf(idle, idleCount * 2);
        }
        idle[idleCount++] = link;
        return;
      }
    }
    if (waiter == null) {
      lost();
      link.close();
    } else {
      waiter.complete(link);
    }
  }

  /** Closes a link that failed; the node is down, and so are its idle links, most likely. */
  void drop(Link link, RuntimeException cause) {
    link.close();
    lost();
    markDown(String.valueOf(cause.getMessage()), cause, true);
  }

  /**
   * Hands {@code link}, whose reply {@code late} did not come in time, to a background drainer; the
   * node is down until it answers.
   */
  void late(Link link, Late<?> late, String cause) {
    link.owe(late);
    markDown(cause, null, false);
    synchronized (this) {
      if (!closed) {
        draining.add(link);
        try {
          executor.execute(() -> drain(link));
          return;
        } catch (RejectedExecutionException e) {
          draining.remove(link);
        }
      }
    }
    link.close();
    link.failOwed(new JedisConnectionException("closed"));
    lost();
  }

  /**
   * Reads the late replies {@code link} owes, as they come, then gives it back; closes the link
   * when none comes for the late-reply bound.
   */
  private void drain(Link link) {
    long giveUpAt = ticker.read() + lateBoundNanos;
    for (Late<?> next = link.nextOwed(); next != null; next = link.nextOwed()) {
      try {
        long left = TimeUnit.NANOSECONDS.toMillis(giveUpAt - ticker.read());
        if (!link.awaitReply(Math.max(1, Math.min(left, DRAIN_SLICE_MILLIS)))) {
          if (ticker.read() - giveUpAt >= 0) {
            giveUp(link);
            return;
          }
          continue;
        }
        Object reply;
        try {
          reply = link.read();
        } catch (JedisDataException e) {
          link.paidWithError(next, e);
          markUp();
          continue;
        }
        link.paid();
        next.complete(reply);
        markUp();
        giveUpAt = ticker.read() + lateBoundNanos;
      } catch (RuntimeException e) {
        JedisConnectionException failure =
            e instanceof JedisConnectionException c ? c : new JedisConnectionException(e);
        synchronized (this) {
          draining.remove(link);
        }
        drop(link, failure);
        link.failOwed(failure);
        return;
      }
    }
    synchronized (this) {
      draining.remove(link);
    }
    giveBack(link);
  }

  /** Closes a link silent for the late-reply bound, and fails the replies it owes. */
  private void giveUp(Link link) {
    synchronized (this) {
      draining.remove(link);
    }
    link.close();
    lost();
    long bound = TimeUnit.NANOSECONDS.toMillis(lateBoundNanos);
    log.debug("{}: no reply for {} ms on a connection; closed it", node.label(), bound);
    link.failOwed(
        new JedisConnectionException(
            "no reply for " + bound + " ms (the late-reply bound); connection closed"));
  }

  /** A link is gone: one fewer counts against the limit. */
  private synchronized void lost() {
    live--;
  }

  private void markUp() {
    down = false;
  }

  private void markDown(String cause, Throwable failure, boolean closeIdle) {
    List<Link> stale = List.of();
    synchronized (this) {
      if (!down) {
        downSinceNanos = ticker.read();
        down = true;
      }
      downCause = cause;
      downFailure = failure;
      if (closeIdle && idleCount > 0) {
        stale = new ArrayList<>(Arrays.asList(idle).subList(0, idleCount));
        Arrays.fill(idle, null);
        live -= idleCount;
        idleCount = 0;
      }
      if (probing || closed) {
        stale.forEach(Link::close);
        return;
      }
      probing = true;
    }
    stale.forEach(Link::close);
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
        synchronized (this) {
          if (closed) {
            return;
          }
          live++;
        }
        try {
          giveBack(open());
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
    List<Link> links = new ArrayList<>();
    List<CompletableFuture<Link>> waiting;
    synchronized (this) {
      closed = true;
      links.addAll(Arrays.asList(idle).subList(0, idleCount));
      links.addAll(draining);
      Arrays.fill(idle, null);
      idleCount = 0;
      waiting = List.copyOf(waiters);
      waiters.clear();
    }
    links.forEach(Link::close);
    waiting.forEach(w -> w.completeExceptionally(new JedisConnectionException("closed")));
  }
}
