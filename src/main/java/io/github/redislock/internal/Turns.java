package io.github.redislock.internal;

import io.github.redislock.internal.backend.LockKeys;
import io.github.redislock.internal.backend.Release;
import io.github.redislock.internal.util.Ticker;
import io.github.redislock.internal.wakeup.WakeUpHub;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Turns between processes: after a release that other processes waited for, this JVM's next attempt
 * on the name gives way to them for a short yield. It costs nothing when they take the lock (the
 * attempt would have failed), and bounds how long a waiter that went away can delay this JVM. The
 * attempt that gives way waits subscribed, so the other process's release ends the pause at once
 * and sees this JVM waiting in turn, and turns alternate.
 *
 * <p>The yield lasts ten round trips of an attempt that found the lock busy, kept within [{@value
 * #MIN_YIELD_MILLIS}, {@value #MAX_YIELD_MILLIS}] ms. It is kept by name, not in the name's state,
 * which goes when the releasing thread was its last user: a thread that locks again at once must
 * give way as well.
 */
public final class Turns {
  static final long MIN_YIELD_MILLIS = 5;
  static final long MAX_YIELD_MILLIS = 20;
  private static final long MIN_YIELD_NANOS = TimeUnit.MILLISECONDS.toNanos(MIN_YIELD_MILLIS);
  private static final long MAX_YIELD_NANOS = TimeUnit.MILLISECONDS.toNanos(MAX_YIELD_MILLIS);
  private static final int FORGET_EXPIRED_ABOVE = 64;

  private final Ticker ticker;

  /** The factory's wake-up channels: its own listener on a channel is not another process's. */
  private final WakeUpHub wakeUps;

  /** Until when this JVM's next attempt on a name gives way to other processes. */
  private final ConcurrentHashMap<String, Long> yields = new ConcurrentHashMap<>();

  /** Releases after which this factory gave way to other processes. */
  private final LongAdder given = new LongAdder();

  /**
   * A moving average of the round trip of an attempt that found the lock busy. Measured on busy
   * answers only: the uncontended path then writes no field that every thread shares.
   */
  private final AtomicLong roundTripNanos = new AtomicLong(TimeUnit.MICROSECONDS.toNanos(100));

  public Turns(Ticker ticker, WakeUpHub wakeUps) {
    this.ticker = ticker;
    this.wakeUps = wakeUps;
  }

  /**
   * A lock of {@code name} was released by this JVM: when other processes waited for it, this JVM's
   * next attempt on the name gives way. Recorded before the local queue moves on, so that the next
   * local holder sees it.
   */
  void released(String name, LockKeys keys, Release release) {
    if (othersWaited(release, wakeUps.isSubscribed(keys.channel()))) {
      giveWay(name);
    }
  }

  /**
   * Whether other processes (or factories) waited for the lock when it was released: more listeners
   * on its wake-up channel than this factory's own subscription, which stays a while after this
   * JVM's last waiter left.
   */
  static boolean othersWaited(Release release, boolean ownSubscription) {
    return release.listeners() > (ownSubscription ? 1 : 0);
  }

  /** Other processes waited at a release of {@code name}: its next attempt here gives way. */
  private void giveWay(String name) {
    given.increment();
    long until = ticker.read() + yieldNanos();
    if (yields.size() >= FORGET_EXPIRED_ABOVE) {
      long now = ticker.read();
      yields.values().removeIf(end -> end - now <= 0);
    }
    yields.put(name, until);
  }

  /**
   * Takes the yield owed on {@code name}: how long the next attempt still gives way, or 0 for none.
   * The attempt that takes it pays it.
   */
  long takeYieldNanos(String name) {
    if (yields.isEmpty()) {
      return 0;
    }
    Long until = yields.remove(name);
    if (until == null) {
      return 0;
    }
    return Math.max(0, until - ticker.read());
  }

  /** An attempt that found the lock busy took {@code nanos}. */
  void busyRoundTrip(long nanos) {
    roundTripNanos.getAndUpdate(average -> average + (nanos - average) / 8);
  }

  /** How long a yield lasts now. */
  long yieldNanos() {
    return Math.max(MIN_YIELD_NANOS, Math.min(MAX_YIELD_NANOS, 10 * roundTripNanos.get()));
  }

  /** Releases after which this factory gave way to other processes. */
  public long given() {
    return given.sum();
  }
}
