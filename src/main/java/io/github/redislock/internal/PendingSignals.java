package io.github.redislock.internal;

import io.github.redislock.internal.backend.ConditionKeys;
import io.github.redislock.internal.backend.Release;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The signals given under one hold while no awaiter of this JVM waited on their condition: they are
 * recorded in Redis with the release that ends the hold (by their {@link Sender}), or before an
 * await of the holder gives it up, so that the awaiters they wake find the lock free instead of
 * held by their signaller. Per condition, how many awaiters to wake, or all of them. Only the
 * holding thread touches it (a hold with pending signals is not passed to another thread).
 */
public final class PendingSignals {
  /** A count that stands for {@code signalAll()}. */
  public static final int ALL = 0;

  /** Releases the hold these signals were given under, recording them with the release. */
  public interface Sender {
    /**
     * Releases the hold, recording {@code signals} with the release.
     *
     * @return the release; {@code released()} is false when the hold was not ours
     */
    Release release(PendingSignals signals);
  }

  private final Sender sender;
  private final Map<ConditionKeys, Integer> counts = new LinkedHashMap<>(2);

  public PendingSignals(Sender sender) {
    this.sender = sender;
  }

  /** Releases the hold with these signals. */
  Release release() {
    return sender.release(this);
  }

  /** One more {@code signal()}, or a {@code signalAll()}, of {@code condition}. */
  public void add(ConditionKeys condition, boolean all) {
    counts.merge(condition, all ? ALL : 1, (was, one) -> was == ALL || one == ALL ? ALL : was + 1);
  }

  /** The signals, in the order their conditions were first signalled: condition -> count. */
  public Map<ConditionKeys, Integer> counts() {
    return counts;
  }
}
