package io.github.redislock.internal;

import io.github.redislock.LockLostEvent;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reports lost holds, once each: marks the hold lost, logs it and tells the factory's listener.
 * Every path that finds a hold lost (renewal, a fencing call, close) goes through here.
 */
public final class LossReporter {
  private static final Logger log = LoggerFactory.getLogger(LossReporter.class);

  /** The reason given when the lock key no longer holds the hold's token. */
  public static final String NOT_OURS =
      "the lock key was deleted, expired or taken by another owner";

  private final Consumer<LockLostEvent> listener;
  private final Consumer<Hold> afterLoss;

  /**
   * A reporter to {@code listener}.
   *
   * @param afterLoss what the engine does once a hold is marked lost: it gives up the local lock
   */
  public LossReporter(Consumer<LockLostEvent> listener, Consumer<Hold> afterLoss) {
    this.listener = listener;
    this.afterLoss = afterLoss;
  }

  /** Marks {@code hold} lost and reports it, unless it was released or reported already. */
  public void lose(Hold hold, String reason) {
    if (!hold.markLost(reason)) {
      return;
    }
    log.warn("lost the hold of lock '{}': {}", hold.name, reason);
    try {
      afterLoss.accept(hold);
    } finally {
      tell(hold, reason);
    }
  }

  /**
   * Tells the listener. Whatever it throws, an {@code Error} included, is logged and goes no
   * further: the listener runs on the factory's threads, whose work (renewals, close) must go on.
   */
  private void tell(Hold hold, String reason) {
    try {
      listener.accept(new LockLostEvent(hold.name, hold.reportedToken(), reason));
    } catch (Throwable e) {
      log.error("the onLockLost listener failed for lock '{}'", hold.name, e);
    }
  }
}
