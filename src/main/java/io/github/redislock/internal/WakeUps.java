package io.github.redislock.internal;

import io.github.redislock.internal.util.Backoff;
import io.github.redislock.internal.util.Threads;
import io.github.redislock.internal.util.Ticker;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.JedisPubSub;
import redis.clients.jedis.UnifiedJedis;

/**
 * The wake-up channels of one Redis source, on one subscription connection shared by all waiters of
 * a factory. The connection is taken while someone waits and given back after: a channel stays
 * subscribed for {@value #LINGER_MILLIS} ms after its last waiter left (the next waiter for a busy
 * lock usually comes soon, and would otherwise subscribe again and wait for the confirmation), and
 * when the last channel is unsubscribed, the subscription ends and its thread exits.
 *
 * <p>Every new subscription raises its channel's waiters, so that they try again: a release that
 * happened between their last attempt and the subscription is not missed. A waiter that joins a
 * channel subscribed already cannot count on that: it reads the channel's epoch (see {@link
 * #lastEvent}) before its attempt and tells it when it registers, and is raised at once if a
 * release came in between. A broken connection raises every waiter too; they fall back to re-checks
 * (see {@link #isActive}) until it is back.
 */
final class WakeUps implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(WakeUps.class);
  static final long LINGER_MILLIS = 200;
  private static final long LINGER_NANOS = TimeUnit.MILLISECONDS.toNanos(LINGER_MILLIS);

  private final UnifiedJedis source;
  private final Ticker ticker;
  private final Executor sweeps;

  /** Numbers the events (subscriptions, messages) of every source of a factory, in order. */
  private final AtomicLong events;

  /**
   * The number of the last event on each confirmed channel of this source. Written under the
   * monitor, read without it: a waiter reads it before every attempt.
   */
  private final Map<String, Long> lastEvents = new ConcurrentHashMap<>();

  // All guarded by this.
  private final Map<String, Set<Signal>> waiting = new HashMap<>();

  /** Channels nobody waits on any more, kept subscribed a while: when their last waiter left. */
  private final Map<String, Long> lingering = new HashMap<>();

  private boolean sweepScheduled;
  private final Set<String> requested = new HashSet<>();
  private final Set<String> confirmed = new HashSet<>();
  private Listener listener;
  private boolean connected;
  private boolean ending;
  private boolean closed;
  private Thread thread;

  /**
   * @param source the client whose connections subscribe
   * @param executor runs the sweep that ends lingering subscriptions
   * @param ticker the clock of the linger
   * @param events numbers the events of every source of the factory
   */
  WakeUps(UnifiedJedis source, Executor executor, Ticker ticker, AtomicLong events) {
    this.source = source;
    this.ticker = ticker;
    this.sweeps = CompletableFuture.delayedExecutor(LINGER_MILLIS, TimeUnit.MILLISECONDS, executor);
    this.events = events;
  }

  /**
   * The number of the last event (its subscription becoming active, or a release) on {@code
   * channel} in this source, or 0 when it is not subscribed. Numbers only grow, across every source
   * of the factory: a waiter that reads the greatest of them before its attempt and finds a greater
   * one when it registers knows that a release may have come in between.
   */
  long lastEvent(String channel) {
    Long last = lastEvents.get(channel);
    return last == null ? 0 : last;
  }

  /**
   * Raises {@code signal} whenever {@code channel} carries a release, until closed; at once, if an
   * event on the channel came after {@code epoch} (the greatest {@link #lastEvent} of every source,
   * read before the waiter's last attempt). A channel not active yet raises it when it becomes so.
   */
  synchronized void register(String channel, Signal signal, long epoch) {
    if (closed) {
      signal.raise();
      return;
    }
    waiting.computeIfAbsent(channel, c -> new HashSet<>()).add(signal);
    lingering.remove(channel);
    if (lastEvent(channel) > epoch) {
      signal.raise(); // a release (or a new subscription) came after the waiter's attempt
    }
    if (thread == null) {
      thread = Threads.daemon("redis-lock-wakeups").newThread(this::run);
      thread.start();
    } else {
      reconcile();
    }
  }

  synchronized void unregister(String channel, Signal signal) {
    Set<Signal> signals = waiting.get(channel);
    if (signals != null && signals.remove(signal) && signals.isEmpty()) {
      waiting.remove(channel);
      if (!closed) {
        lingering.put(channel, ticker.read());
        scheduleSweep();
      }
    }
  }

  private void scheduleSweep() {
    if (sweepScheduled) {
      return;
    }
    try {
      sweeps.execute(this::sweep);
      sweepScheduled = true;
    } catch (RejectedExecutionException e) {
      lingering.clear(); // the factory is closing: stop lingering now
      reconcile();
    }
  }

  /** Unsubscribes the channels that lingered long enough. */
  private synchronized void sweep() {
    sweepScheduled = false;
    long now = ticker.read();
    lingering.values().removeIf(since -> now - since >= LINGER_NANOS);
    reconcile();
    if (!lingering.isEmpty()) {
      scheduleSweep();
    }
  }

  /** The channels to be subscribed: waited on, or lingering. */
  private Set<String> wanted() {
    if (lingering.isEmpty()) {
      return waiting.keySet();
    }
    Set<String> wanted = new HashSet<>(waiting.keySet());
    wanted.addAll(lingering.keySet());
    return wanted;
  }

  /** Whether a release on {@code channel} would reach its waiters now. */
  synchronized boolean isActive(String channel) {
    return confirmed.contains(channel);
  }

  /** Whether this source's subscription has (or asked for) {@code channel}. */
  synchronized boolean isSubscribed(String channel) {
    return requested.contains(channel);
  }

  /** Number of channels subscribed or asked for: for tests that check nothing leaks. */
  synchronized int subscribedCount() {
    return requested.size();
  }

  @Override
  public void close() {
    Thread running;
    synchronized (this) {
      closed = true;
      raiseAll();
      waiting.clear();
      lingering.clear();
      reconcile();
      notifyAll();
      running = thread;
    }
    if (running != null) {
      try {
        running.join(TimeUnit.SECONDS.toMillis(1));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private void run() {
    Backoff backoff = new Backoff();
    while (true) {
      Listener current;
      String[] channels;
      synchronized (this) {
        if (closed || wanted().isEmpty()) {
          thread = null;
          return;
        }
        current = new Listener();
        listener = current;
        connected = false;
        ending = false;
        requested.clear();
        requested.addAll(wanted());
        channels = requested.toArray(String[]::new);
      }
      boolean failed = false;
      try {
        source.subscribe(current, channels);
        backoff = new Backoff();
      } catch (RuntimeException e) {
        failed = true;
        log.debug("wake-up subscription failed; waiters re-check until it is back", e);
      }
      synchronized (this) {
        listener = null;
        connected = false;
        requested.clear();
        confirmed.clear();
        lastEvents.clear();
        raiseAll();
        if (failed && !closed && !wanted().isEmpty()) {
          try {
            wait(TimeUnit.NANOSECONDS.toMillis(backoff.nextNanos()) + 1);
          } catch (InterruptedException e) {
            thread = null;
            return;
          }
        }
      }
    }
  }

  /** Brings the subscription in line with the waiting channels. Caller holds the monitor. */
  private void reconcile() {
    if (listener == null || !connected || ending) {
      return; // the subscriber thread subscribes to everything waiting when it (re)connects
    }
    try {
      Set<String> wanted = wanted();
      if (wanted.isEmpty()) {
        ending = true; // no command may follow: the connection goes back to the pool
        listener.unsubscribe();
        return;
      }
      List<String> add = new ArrayList<>();
      for (String channel : wanted) {
        if (requested.add(channel)) {
          add.add(channel);
        }
      }
      List<String> remove = new ArrayList<>();
      for (String channel : requested) {
        if (!wanted.contains(channel)) {
          remove.add(channel);
        }
      }
      requested.removeAll(remove);
      if (!add.isEmpty()) {
        listener.subscribe(add.toArray(String[]::new));
      }
      if (!remove.isEmpty()) {
        listener.unsubscribe(remove.toArray(String[]::new));
      }
    } catch (RuntimeException e) {
      log.debug("wake-up subscription change failed; the subscriber thread reconnects", e);
    }
  }

  private void raise(String channel) {
    Set<Signal> signals = waiting.get(channel);
    if (signals != null) {
      signals.forEach(Signal::raise);
    }
  }

  private void raiseAll() {
    waiting.values().forEach(signals -> signals.forEach(Signal::raise));
  }

  private final class Listener extends JedisPubSub {
    @Override
    public void onSubscribe(String channel, int subscribedChannels) {
      synchronized (WakeUps.this) {
        if (listener != this) {
          return;
        }
        connected = true;
        confirmed.add(channel);
        lastEvents.put(channel, events.incrementAndGet());
        raise(channel);
        reconcile();
      }
    }

    @Override
    public void onUnsubscribe(String channel, int subscribedChannels) {
      synchronized (WakeUps.this) {
        confirmed.remove(channel);
        lastEvents.remove(channel);
      }
    }

    @Override
    public void onMessage(String channel, String message) {
      synchronized (WakeUps.this) {
        if (lastEvents.containsKey(channel)) {
          lastEvents.put(channel, events.incrementAndGet());
        }
        raise(channel);
      }
    }
  }
}
