package io.github.redislock.internal.wakeup;

import io.github.redislock.internal.util.Ticker;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;
import redis.clients.jedis.UnifiedJedis;

/**
 * Where a factory's waiting threads are woken: the wake-up channels of every Redis source (one, or
 * one per Redlock master), and the signals of every thread waiting for Redis, which {@link
 * #close()} raises so that none waits on a closed factory.
 */
public final class WakeUpHub implements AutoCloseable {
  private final List<WakeUps> sources;
  private final Ticker ticker;
  private final Set<Signal> waiters = ConcurrentHashMap.newKeySet();
  private volatile boolean closed;

  public WakeUpHub(List<? extends UnifiedJedis> sources, Executor executor, Ticker ticker) {
    AtomicLong events = new AtomicLong();
    this.sources =
        sources.stream().map(source -> new WakeUps(source, executor, ticker, events)).toList();
    this.ticker = ticker;
  }

  /**
   * The epoch of {@code channel}: a number that moves with each release heard on it, and when a
   * subscription to it becomes active. A waiter reads it before its attempt and tells it to {@link
   * #subscribe}. One map look-up per source, no allocation.
   */
  public long epoch(String channel) {
    if (sources.size() == 1) {
      return sources.get(0).lastEvent(channel);
    }
    long epoch = 0;
    for (WakeUps source : sources) {
      epoch = Math.max(epoch, source.lastEvent(channel));
    }
    return epoch;
  }

  /** A signal for the calling thread, raised at once if the factory is closed. */
  public Signal newSignal() {
    return newSignal(null);
  }

  /** A signal for the calling thread, waiter {@code id} (see {@link Signal#isFor}). */
  public Signal newSignal(String id) {
    Signal signal = new Signal(ticker, id);
    waiters.add(signal);
    if (closed) {
      signal.raise();
    }
    return signal;
  }

  /**
   * A signal no thread waits on, waiter {@code id}: each wake-up runs {@code onWake} instead (see
   * {@link Signal#calling}); raised at once if the factory is closed.
   */
  public Signal newSignal(String id, Runnable onWake) {
    Signal signal = Signal.calling(ticker, id, onWake);
    waiters.add(signal);
    if (closed) {
      signal.raise();
    }
    return signal;
  }

  /** A signal for the calling thread, raised by the messages {@code route} accepts. */
  public Signal routedSignal(java.util.function.Predicate<String> route) {
    Signal signal = Signal.routed(ticker, route);
    waiters.add(signal);
    if (closed) {
      signal.raise();
    }
    return signal;
  }

  /** The thread of {@code signal} waits no more: forgets it, and unsubscribes it if subscribed. */
  public void forget(Signal signal, String channel, boolean subscribed) {
    waiters.remove(signal);
    if (subscribed) {
      for (WakeUps source : sources) {
        source.unregister(channel, signal);
      }
    }
  }

  /**
   * Raises {@code signal} whenever {@code channel} carries a release, until forgotten; and at once
   * when a release (or a new subscription) on the channel came after {@code epoch}, its {@link
   * #epoch} read before the waiter's attempt, so that a release between the attempt and this call
   * is not missed. (A channel not yet subscribed raises its waiters when it becomes active.)
   */
  public void subscribe(String channel, Signal signal, long epoch) {
    for (WakeUps source : sources) {
      source.register(channel, signal, epoch);
    }
  }

  /** Whether a release on {@code channel} would reach its waiters now. */
  public boolean isActive(String channel) {
    for (WakeUps source : sources) {
      if (source.isActive(channel)) {
        return true;
      }
    }
    return false;
  }

  /** Whether this factory's own subscription has (or asked for) {@code channel}. */
  public boolean isSubscribed(String channel) {
    for (WakeUps source : sources) {
      if (source.isSubscribed(channel)) {
        return true;
      }
    }
    return false;
  }

  /** Number of channels subscribed or asked for, over every source. */
  public int subscribedCount() {
    int count = 0;
    for (WakeUps source : sources) {
      count += source.subscribedCount();
    }
    return count;
  }

  /** Wakes every waiting thread, and ends the subscriptions. */
  @Override
  public void close() {
    closed = true;
    waiters.forEach(Signal::raise);
    sources.forEach(WakeUps::close);
  }
}
