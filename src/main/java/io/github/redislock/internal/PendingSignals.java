package io.github.redislock.internal;

import io.github.redislock.internal.backend.ConditionKeys;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The signals given under one hold while no awaiter of this JVM waited on their condition: they are
 * recorded in Redis with the release that ends the hold ({@link Conditions#release}), or before an
 * await of the holder gives it up ({@link Conditions#flush}), so that the awaiters they wake find
 * the lock free instead of held by their signaller. Per condition, how many awaiters to wake, or
 * all of them. Only the holding thread touches it (a hold with pending signals is not passed to
 * another thread).
 */
final class PendingSignals {
  /** A count that stands for {@code signalAll()}. */
  static final int ALL = 0;

  final Conditions conditions;
  private final Map<ConditionKeys, Integer> counts = new LinkedHashMap<>(2);

  PendingSignals(Conditions conditions) {
    this.conditions = conditions;
  }

  /** One more {@code signal()}, or a {@code signalAll()}, of {@code condition}. */
  void add(ConditionKeys condition, boolean all) {
    counts.merge(condition, all ? ALL : 1, (was, one) -> was == ALL || one == ALL ? ALL : was + 1);
  }

  /** The signals, in the order their conditions were first signalled: condition -> count. */
  Map<ConditionKeys, Integer> counts() {
    return counts;
  }
}
