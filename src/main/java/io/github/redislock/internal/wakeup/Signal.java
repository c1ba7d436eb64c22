package io.github.redislock.internal.wakeup;

import io.github.redislock.internal.util.Ticker;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Predicate;

/** Wakes one waiting thread: raised by a release's wake-up, a new subscription, or close. */
public final class Signal {
  /** The prefix of a message for one waiter alone: {@code to:<its id>}. */
  public static final String TO = "to:";

  private final Thread waiter = Thread.currentThread();

  /** What a wake-up runs instead of unparking the creating thread; {@code null}: unpark it. */
  private final Runnable onWake;

  private final Ticker ticker;

  /** {@code to:<id>}, or {@code null} for a waiter without an id. */
  private final String address;

  /** Picks the messages for a waiter that routes them itself (a condition's), else {@code null}. */
  private final Predicate<String> route;

  private volatile boolean raised;

  /** Whether a message naming this waiter ({@code to:<id>}) came, not yet taken. */
  private volatile boolean addressed;

  Signal(Ticker ticker) {
    this(ticker, null);
  }

  /**
   * A signal for the calling thread.
   *
   * @param id the waiter's id, for messages meant for it alone ({@code to:<id>}); {@code null} for
   *     a waiter that any release concerns
   */
  Signal(Ticker ticker, String id) {
    this(ticker, id == null ? null : TO + id, null);
  }

  private Signal(Ticker ticker, String address, Predicate<String> route) {
    this(ticker, address, route, null);
  }

  private Signal(Ticker ticker, String address, Predicate<String> route, Runnable onWake) {
    this.ticker = ticker;
    this.address = address;
    this.route = route;
    this.onWake = onWake;
  }

  /**
   * A signal that no thread waits on: each wake-up runs {@code onWake} (on the thread that raised
   * it, such as a subscription's reader, so it must only hand work on), instead of unparking.
   *
   * @param id the waiter's id, as for {@link #Signal(Ticker, String)}
   */
  static Signal calling(Ticker ticker, String id, Runnable onWake) {
    return new Signal(ticker, id == null ? null : TO + id, null, onWake);
  }

  /**
   * A signal for the calling thread, raised by the messages {@code route} accepts (and by every
   * event of its channel that is not a message: a new subscription, a lost connection, close).
   */
  static Signal routed(Ticker ticker, Predicate<String> route) {
    return new Signal(ticker, null, route);
  }

  /**
   * Whether a message on the waiter's channel concerns it: a release for everyone ({@code
   * released}), one naming it, or any message for a waiter without an id (a plain lock's waiter,
   * for whom any release on the key may mean free).
   */
  boolean isFor(String message) {
    if (route != null) {
      return route.test(message);
    }
    return address == null || message == null || !message.startsWith(TO) || message.equals(address);
  }

  /**
   * A message on the waiter's channel, taken while its source's monitor is held: marks the signal
   * raised if the message concerns the waiter. The caller wakes the waiter ({@link #wake}) once it
   * has let go of the monitor, which the woken thread takes at once to forget its signal: woken
   * under it, on a machine with few CPUs the waiter would often run first and block on it.
   *
   * @return whether the message raised the signal
   */
  boolean accept(String message) {
    if (!isFor(message)) {
      return false;
    }
    if (address != null && address.equals(message)) {
      addressed = true;
    }
    raised = true;
    return true;
  }

  /**
   * Whether a message named this waiter since the last call: for a fair lock's waiter, a release
   * handed it the lock.
   */
  public boolean takeAddressed() {
    if (!addressed) {
      return false;
    }
    addressed = false;
    return true;
  }

  public void raise() {
    raised = true;
    wake();
  }

  /** Unparks the waiter, whose signal was raised. */
  void wake() {
    if (onWake != null) {
      onWake.run();
    } else {
      LockSupport.unpark(waiter);
    }
  }

  /**
   * Parks the waiter until the signal is raised, the time runs out, or the thread is interrupted
   * (the flag is left as it is, for the caller to act on).
   *
   * @return whether the signal was raised
   */
  public boolean await(long nanos) {
    long deadline = ticker.read() + nanos;
    while (!raised) {
      long left = deadline - ticker.read();
      if (left <= 0 || Thread.currentThread().isInterrupted()) {
        return false;
      }
      LockSupport.parkNanos(this, left);
    }
    raised = false;
    return true;
  }
}
