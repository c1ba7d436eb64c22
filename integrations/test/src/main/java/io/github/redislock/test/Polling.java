package io.github.redislock.test;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** Waits for a state of a deployment of the fixtures: polls a check until it holds. */
final class Polling {
  private static final Duration PAUSE = Duration.ofMillis(50);

  private Polling() {}

  /**
   * Polls {@code check} until it is true; a check that throws counts as false.
   *
   * @param what what is awaited, for the message
   * @param timeout how long to poll
   * @param check the check
   * @param state what the deployment looks like, for the message of a timeout
   * @throws IllegalStateException if the check did not hold in time, or the thread was interrupted
   */
  static void until(String what, Duration timeout, BooleanSupplier check, Supplier<String> state) {
    long deadline = System.nanoTime() + timeout.toNanos();
    RuntimeException last = null;
    while (true) {
      try {
        if (check.getAsBoolean()) {
          return;
        }
      } catch (RuntimeException e) { // not answering yet, or answering an error
        last = e;
      }
      if (System.nanoTime() - deadline > 0) {
        throw new IllegalStateException(
            "not " + what + " within " + timeout + ": " + state.get(), last);
      }
      LockSupport.parkNanos(PAUSE.toNanos()); // a poll's pause, not a synchronization
      if (Thread.currentThread().isInterrupted()) {
        throw new IllegalStateException("interrupted while waiting until " + what);
      }
    }
  }
}
