package io.github.redislock.internal.wakeup;

import io.github.redislock.internal.util.Ticker;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import redis.clients.jedis.UnifiedJedis;

/**
 * The wake-up channels of one Redis source, shared by all waiters of a factory: one subscription
 * connection (see {@link Subscription}), or under sharded Pub/Sub one per master of the channels
 * waited on (see {@link PubSubClient}). A connection is taken while someone waits and given back
 * after: a channel stays subscribed for {@value #LINGER_MILLIS} ms after its last waiter left (the
 * next waiter for a busy lock usually comes soon, and would otherwise subscribe again and wait for
 * the confirmation), and when a subscription's last channel is unsubscribed, it ends and its thread
 * exits.
 *
 * <p>Every new subscription raises its channel's waiters, so that they try again: a release that
 * happened between their last attempt and the subscription is not missed. A waiter that joins a
 * channel subscribed already cannot count on that: it reads the channel's epoch (see {@link
 * #lastEvent}) before its attempt and tells it when it registers, and is raised at once if a
 * release came in between. A broken or silent connection raises its waiters too; they fall back to
 * re-checks (see {@link #isActive}) until it is back.
 */
final class WakeUps implements AutoCloseable, Subscription.Owner {
  static final long LINGER_MILLIS = 200;
  private static final long LINGER_NANOS = TimeUnit.MILLISECONDS.toNanos(LINGER_MILLIS);
  private static final long CLOSE_WAIT_MILLIS = 1000;

  private final PubSubClient client;
  private final Executor executor;
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

  /** The subscription of each channel waited on or lingering. */
  private final Map<String, Subscription> assigned = new HashMap<>();

  /** The subscriptions, by route (see {@link PubSubClient#route}). */
  private final Map<Object, Subscription> subscriptions = new HashMap<>();

  /** Channels whose subscriptions confirmed them: a release on them reaches their waiters. */
  private final Set<String> confirmed = new HashSet<>();

  private boolean sweepScheduled;
  private boolean closed;

  /**
   * @param source the client whose connections subscribe
   * @param executor runs the sweep that ends lingering subscriptions, and the health checks
   * @param ticker the clock of the linger
   * @param events numbers the events of every source of the factory
   */
  WakeUps(UnifiedJedis source, Executor executor, Ticker ticker, AtomicLong events) {
    this.client = new PubSubClient(source);
    this.executor = executor;
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
   * Under sharded Pub/Sub, the first waiter of a channel finds its master here, without the lock.
   */
  void register(String channel, Signal signal, long epoch) {
    Object route = null;
    while (true) {
      synchronized (this) {
        if (closed) {
          signal.raise();
          return;
        }
        if (route != null || !client.sharded() || assigned.containsKey(channel)) {
          waiting.computeIfAbsent(channel, c -> new HashSet<>()).add(signal);
          lingering.remove(channel);
          if (lastEvent(channel) > epoch) {
            signal.raise(); // a release (or a new subscription) came after the waiter's attempt
          }
          if (!assigned.containsKey(channel)) {
            assign(channel, client.sharded() && route != null ? route : PubSubClient.PLAIN);
          }
          reconcile();
          return;
        }
      }
      route = client.route(channel);
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

  /** Whether a release on {@code channel} would reach its waiters now. */
  synchronized boolean isActive(String channel) {
    return confirmed.contains(channel);
  }

  /** Whether this source's subscriptions have (or asked for) {@code channel}. */
  synchronized boolean isSubscribed(String channel) {
    return assigned.containsKey(channel);
  }

  /** Number of channels subscribed or asked for. */
  synchronized int subscribedCount() {
    return assigned.size();
  }

  @Override
  public synchronized boolean isClosed() {
    return closed;
  }

  @Override
  public void close() {
    List<Subscription> running;
    synchronized (this) {
      closed = true;
      raiseAll();
      waiting.clear();
      lingering.clear();
      reconcile();
      notifyAll();
      running = new ArrayList<>(subscriptions.values());
    }
    long deadline = Ticker.SYSTEM.read() + TimeUnit.MILLISECONDS.toNanos(CLOSE_WAIT_MILLIS);
    try {
      for (Subscription subscription : running) {
        subscription.join(TimeUnit.NANOSECONDS.toMillis(deadline - Ticker.SYSTEM.read()));
        subscription.disconnect(); // one that did not end in time: its connection is dead
      }
      // A thread still running was connecting, or reading the connection just dropped: it ends
      // once that returns. It must end before the clients close: a Cluster client asked for a
      // connection after its close sets its node pools up again, and nobody would close them.
      long more = Ticker.SYSTEM.read() + TimeUnit.MILLISECONDS.toNanos(2 * CLOSE_WAIT_MILLIS);
      for (Subscription subscription : running) {
        subscription.join(TimeUnit.NANOSECONDS.toMillis(more - Ticker.SYSTEM.read()));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Brings the subscriptions in line with the channels waited on or lingering. */
  private void reconcile() {
    Set<String> wanted = closed ? Set.of() : wanted();
    for (Iterator<Map.Entry<String, Subscription>> it = assigned.entrySet().iterator();
        it.hasNext(); ) {
      Map.Entry<String, Subscription> entry = it.next();
      if (!wanted.contains(entry.getKey())) {
        entry.getValue().channels.remove(entry.getKey());
        it.remove();
      }
    }
    for (String channel : wanted) {
      if (!assigned.containsKey(channel)) {
        assign(channel, client.sharded() ? PubSubClient.UNKNOWN : PubSubClient.PLAIN);
      }
    }
    for (Subscription subscription : subscriptions.values()) {
      subscription.reconcile();
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

  private void assign(String channel, Object route) {
    Subscription subscription =
        subscriptions.computeIfAbsent(route, r -> new Subscription(this, client, r, executor));
    subscription.channels.add(channel);
    assigned.put(channel, subscription);
  }

  /**
   * Moves the channels of {@code subscription} whose route changed (a failover, a resharding, or
   * plain Pub/Sub after all) to the subscription of their route. Called without the monitor.
   */
  @Override
  public void reroute(Subscription subscription) {
    List<String> channels;
    synchronized (this) {
      channels = new ArrayList<>(subscription.channels);
    }
    Map<String, Object> routes = new HashMap<>();
    for (String channel : channels) {
      routes.put(channel, client.route(channel));
    }
    synchronized (this) {
      routes.forEach(
          (channel, route) -> {
            if (assigned.get(channel) == subscription && !route.equals(subscription.route)) {
              subscription.channels.remove(channel);
              confirmed.remove(channel); // until its new subscription confirms it
              lastEvents.remove(channel);
              assign(channel, route);
            }
          });
      reconcile();
    }
  }

  // Callbacks from the subscriptions, with the monitor held.

  /** {@code subscription}'s thread ended: forgets it, unless it has channels again. */
  @Override
  public void ended(Subscription subscription) {
    if (subscription.channels.isEmpty()) {
      subscriptions.remove(subscription.route, subscription);
    } else {
      subscription.reconcile(); // channels came while it ended: a new thread takes them
    }
  }

  @Override
  public void subscribed(Subscription subscription, String channel) {
    if (assigned.get(channel) != subscription || !confirmed.add(channel)) {
      return; // not its channel any more, or the answer to a probe
    }
    lastEvents.put(channel, events.incrementAndGet());
    raise(channel);
  }

  @Override
  public void unsubscribed(Subscription subscription, String channel, boolean byServer) {
    if (!isOwn(subscription, channel)) {
      return; // it moved to another subscription
    }
    confirmed.remove(channel);
    lastEvents.remove(channel);
    if (byServer) {
      raise(channel); // its slot moved: a release may go unheard until it is subscribed again
    }
  }

  /**
   * A message on {@code channel}: raises the signals it concerns.
   *
   * @return the signals raised, or {@code null} for none: the caller wakes their threads ({@link
   *     Signal#wake}) once it has let go of this monitor
   */
  @Override
  public List<Signal> message(String channel, String message) {
    if (lastEvents.containsKey(channel)) {
      lastEvents.put(channel, events.incrementAndGet());
    }
    Set<Signal> signals = waiting.get(channel);
    if (signals == null) {
      return null;
    }
    List<Signal> raised = null;
    for (Signal signal : signals) {
      if (signal.accept(message)) {
        if (raised == null) {
          raised = new ArrayList<>(signals.size());
        }
        raised.add(signal);
      }
    }
    return raised;
  }

  /** {@code subscription}'s connection ended: its channels are not active until it is back. */
  @Override
  public void lost(Subscription subscription) {
    confirmed.removeIf(channel -> isOwn(subscription, channel));
    lastEvents.keySet().removeIf(channel -> isOwn(subscription, channel));
    subscription.channels.forEach(this::raise);
  }

  /** Whether {@code channel} is {@code subscription}'s, or nobody's (it is being unsubscribed). */
  private boolean isOwn(Subscription subscription, String channel) {
    Subscription owner = assigned.get(channel);
    return owner == null || owner == subscription;
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
}
