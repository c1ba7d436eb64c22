package io.github.redislock.internal;

import io.github.redislock.LockLostEvent;
import io.github.redislock.internal.util.Ticker;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * What one factory was built with, fixed from then on: every engine piece reads it, none changes
 * it. Durations are also kept in the units the engine computes with.
 */
public final class Settings {
  final String keyPrefix;
  final long leaseMillis;
  final long leaseNanos;
  final long commandTimeoutNanos;
  final Consumer<LockLostEvent> onLockLost;
  final Ticker ticker;

  /**
   * The settings of one factory.
   *
   * @param keyPrefix prepended to every lock name to form its key
   * @param leaseTime the lease of every hold, renewed while held
   * @param commandTimeout the longest one Redis command is expected to take
   * @param onLockLost told of every hold lost before its release
   * @param ticker the clock of every deadline and lease
   */
  public Settings(
      String keyPrefix,
      Duration leaseTime,
      Duration commandTimeout,
      Consumer<LockLostEvent> onLockLost,
      Ticker ticker) {
    this.keyPrefix = Objects.requireNonNull(keyPrefix, "keyPrefix");
    this.leaseMillis = leaseTime.toMillis();
    this.leaseNanos = leaseTime.toNanos();
    this.commandTimeoutNanos = commandTimeout.toNanos();
    this.onLockLost = Objects.requireNonNull(onLockLost, "onLockLost");
    this.ticker = Objects.requireNonNull(ticker, "ticker");
  }

  /** These settings with another command timeout. */
  Settings withCommandTimeout(Duration commandTimeout) {
    return new Settings(
        keyPrefix, Duration.ofNanos(leaseNanos), commandTimeout, onLockLost, ticker);
  }

  /**
   * How long one Redis call may block a caller at worst: a pooled Jedis call to a stalled server
   * can take two socket timeouts plus a connect.
   */
  long slowCallNanos() {
    return commandTimeoutNanos * 3;
  }
}
