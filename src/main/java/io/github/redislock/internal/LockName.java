package io.github.redislock.internal;

import io.github.redislock.internal.backend.LockKeys;
import java.time.Duration;

/**
 * A lock name with its Redis keys, derived once per lock object rather than at every call. Obtained
 * from {@link Mutexes#lockName(String)}.
 */
public final class LockName {
  final String name;
  public final LockKeys keys;

  /** The maximum hold time of the lock object's holds; -1: the factory's. */
  final long maxHoldNanos;

  LockName(String name, LockKeys keys, long maxHoldNanos) {
    this.name = name;
    this.keys = keys;
    this.maxHoldNanos = maxHoldNanos;
  }

  /** This name, for a lock object whose holds last at most {@code maxHoldTime}. */
  public LockName withMaxHoldTime(Duration maxHoldTime) {
    return new LockName(name, keys, Settings.saturatedNanos(maxHoldTime));
  }

  @Override
  public String toString() {
    return name;
  }
}
