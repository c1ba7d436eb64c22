package io.github.redislock.spring.boot;

import io.github.redislock.LockStatsListener;
import java.util.List;
import java.util.function.Consumer;

/**
 * Tells each of several listeners, in order, of each event. One that throws does not keep the event
 * from the others; the first exception is thrown again once all were told, for the factory to log.
 */
final class CompositeLockStatsListener implements LockStatsListener {
  private final List<LockStatsListener> listeners;

  CompositeLockStatsListener(List<LockStatsListener> listeners) {
    this.listeners = List.copyOf(listeners);
  }

  private void tell(Consumer<LockStatsListener> event) {
    RuntimeException first = null;
    for (LockStatsListener listener : listeners) {
      try {
        event.accept(listener);
      } catch (RuntimeException e) {
        if (first == null) {
          first = e;
        } else {
          first.addSuppressed(e);
        }
      }
    }
    if (first != null) {
      throw first;
    }
  }

  @Override
  public void acquired(String lockName, long waitNanos, boolean handoff) {
    tell(l -> l.acquired(lockName, waitNanos, handoff));
  }

  @Override
  public void notAcquired(String lockName, long waitNanos, boolean timedOut) {
    tell(l -> l.notAcquired(lockName, waitNanos, timedOut));
  }

  @Override
  public void released(String lockName, long heldNanos) {
    tell(l -> l.released(lockName, heldNanos));
  }

  @Override
  public void lostHold(String lockName, String reason) {
    tell(l -> l.lostHold(lockName, reason));
  }

  @Override
  public void redisError(String lockName) {
    tell(l -> l.redisError(lockName));
  }

  @Override
  public void renewed(String lockName) {
    tell(l -> l.renewed(lockName));
  }
}
