package io.github.redislock.internal;

import io.github.redislock.internal.util.Ticker;
import java.util.concurrent.locks.LockSupport;

/** Wakes one waiting thread: raised by a release's wake-up, a new subscription, or close. */
final class Signal {
  /** The prefix of a message for one waiter alone: {@code to:<its id>}. */
  static final String TO = "to:";

  private final Thread waiter = Thread.currentThread();
  private final Ticker ticker;

  /** {@code to:<id>}, or {@code null} for a waiter without an id. */
  private final String address;

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
    this.ticker = ticker;
    this.address = id == null ? null : TO + id;
  }

  /**
   * Whether a message on the waiter's channel concerns it: a release for everyone ({@code
   * released}), one naming it, or any message for a waiter without an id (a plain lock's waiter,
   * for whom any release on the key may mean free).
   */
  boolean isFor(String message) {
    return address == null || message == null || !message.startsWith(TO) || message.equals(address);
  }

  /** A message on the waiter's channel: raises the signal if it concerns the waiter. */
  void receive(String message) {
    if (!isFor(message)) {
      return;
    }
    if (address != null && address.equals(message)) {
      addressed = true;
    }
    raise();
  }

  /**
   * Whether a message named this waiter since the last call: for a fair lock's waiter, a release
   * handed it the lock.
   */
  boolean takeAddressed() {
    if (!addressed) {
      return false;
    }
    addressed = false;
    return true;
  }

  void raise() {
    raised = true;
    LockSupport.unpark(waiter);
  }

  /**
   * Parks the waiter until the signal is raised, the time runs out, or the thread is interrupted
   * (the flag is left as it is, for the caller to act on).
   *
   * @return whether the signal was raised
   */
  boolean await(long nanos) {
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
