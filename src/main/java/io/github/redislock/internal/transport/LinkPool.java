package io.github.redislock.internal.transport;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Supplier;
import redis.clients.jedis.exceptions.JedisConnectionException;

/**
 * The links of one {@link Endpoint}: the idle ones, in a stack, and how many exist, at most {@value
 * #MAX_LINKS}. A caller takes an idle link without blocking; a new one is opened on a background
 * thread, never in the caller's, and when the node has {@value #MAX_LINKS} already, the caller gets
 * the next one given back. Thread-safe.
 */
final class LinkPool {
  static final int MAX_LINKS = 64;

  private final Executor executor;
  private Link[] idle = new Link[4]; // guarded by this, and the fields below
  private int idleCount;
  private int live;
  private final ArrayDeque<CompletableFuture<Link>> waiters = new ArrayDeque<>();
  private boolean closed;

  LinkPool(Executor executor) {
    this.executor = executor;
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
   * A link once there is one: made by {@code opener} on a background thread (which calls {@link
   * #lost} if it fails), or given back by another caller when the node has {@value #MAX_LINKS}
   * already. A caller that stops waiting must {@linkplain #giveBack give back} what comes later.
   */
  CompletableFuture<Link> connect(Supplier<Link> opener) {
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
      return CompletableFuture.supplyAsync(opener, executor);
    } catch (RejectedExecutionException e) {
      lost();
      return CompletableFuture.failedFuture(new JedisConnectionException("closed", e));
    }
  }

  /**
   * Counts a link about to be opened in a background thread, which calls {@link #lost} if it fails.
   *
   * @return false when the pool is closed: open none
   */
  synchronized boolean reserve() {
    if (closed) {
      return false;
    }
    live++;
    return true;
  }

  /** Returns a link whose every reply has been read; once closed, the link is closed. */
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

  /** A link is gone: one fewer counts against the limit. */
  synchronized void lost() {
    live--;
  }

  /** Closes the idle links (their node failed: they most likely did too). */
  void closeIdle() {
    List<Link> stale;
    synchronized (this) {
      if (idleCount == 0) {
        return;
      }
      stale = new ArrayList<>(Arrays.asList(idle).subList(0, idleCount));
      Arrays.fill(idle, null);
      live -= idleCount;
      idleCount = 0;
    }
    stale.forEach(Link::close);
  }

  /** Closes the idle links; callers waiting for one fail, and links given back later are closed. */
  void close() {
    List<Link> links;
    List<CompletableFuture<Link>> waiting;
    synchronized (this) {
      closed = true;
      links = new ArrayList<>(Arrays.asList(idle).subList(0, idleCount));
      Arrays.fill(idle, null);
      idleCount = 0;
      waiting = List.copyOf(waiters);
      waiters.clear();
    }
    links.forEach(Link::close);
    waiting.forEach(w -> w.completeExceptionally(new JedisConnectionException("closed")));
  }
}
