package io.github.redislock.internal;

import io.github.redislock.internal.util.Ticker;
import java.util.concurrent.locks.LockSupport;

/** Wakes one waiting thread: raised by a release's wake-up, a new subscription, or close. */
final class Signal {
  private final Thread waiter = Thread.currentThread();
  private final Ticker ticker;
  private volatile boolean raised;

  Signal(Ticker ticker) {
    this.ticker = ticker;
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
