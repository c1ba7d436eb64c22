package io.github.redislock.internal;

import io.github.redislock.LockLostEvent;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reports lost holds, once each: marks the hold lost, logs it and tells the factory's listener.
 * Every path that finds a hold lost (renewal, a fencing call, close) goes through here.
 */
final class LossReporter {
  private static final Logger log = LoggerFactory.getLogger(LossReporter.class);

  /** The reason given when the lock key no longer holds the hold's token. */
  static final String NOT_OURS = "the lock key was deleted, expired or taken by another owner";

  private final Consumer<LockLostEvent> listener;

  LossReporter(Consumer<LockLostEvent> listener) {
    this.listener = listener;
  }

  /** Marks {@code hold} lost and reports it, unless it was released or reported already. */
  void lose(Hold hold, String reason) {
    if (hold.markLost(reason)) {
      log.warn("lost the hold of lock '{}': {}", hold.name, reason);
      try {
        listener.accept(new LockLostEvent(hold.name, hold.reportedToken(), reason));
      } catch (RuntimeException e) {
        log.error("the onLockLost listener failed for lock '{}'", hold.name, e);
      }
    }
  }
}
