package io.github.redislock.internal;

import io.github.redislock.LockLostEvent;
import io.github.redislock.LockStatsListener;
import io.github.redislock.internal.util.Ticker;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * What one factory was built with, fixed from then on: every engine piece reads it, none changes
 * it. Durations are also kept in the units the engine computes with.
 */
public final class Settings {
  public final String keyPrefix;
  public final long leaseMillis;
  public final long leaseNanos;
  public final long commandTimeoutNanos;
  public final Consumer<LockLostEvent> onLockLost;
  public final Ticker ticker;

  /** How long a hold may last before its renewal stops; 0: no limit. */
  public final long maxHoldNanos;

  /** Whether each acquisition writes who holds the lock beside its key, for inspection. */
  public final boolean describeHolders;

  /** Whether the factory counts acquisitions, waits and losses, for its statistics. */
  public final boolean recordStats;

  /** Where the counted events are pushed too, or {@code null}. */
  public final LockStatsListener statsSink;

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
    this(keyPrefix, leaseTime, commandTimeout, onLockLost, ticker, null, false, false, null);
  }

  /**
   * The settings of one factory, with the options around the lock.
   *
   * @param maxHoldTime how long a hold may last before its renewal stops, or {@code null} for no
   *     limit
   * @param describeHolders whether acquisitions write who holds the lock, for inspection
   * @param recordStats whether the factory keeps statistics
   * @param statsSink where the counted events are pushed too, or {@code null}
   */
  public Settings(
      String keyPrefix,
      Duration leaseTime,
      Duration commandTimeout,
      Consumer<LockLostEvent> onLockLost,
      Ticker ticker,
      Duration maxHoldTime,
      boolean describeHolders,
      boolean recordStats,
      LockStatsListener statsSink) {
    this.statsSink = statsSink;
    this.maxHoldNanos = maxHoldTime == null ? 0 : saturatedNanos(maxHoldTime);
    this.describeHolders = describeHolders;
    this.recordStats = recordStats;
    this.keyPrefix = Objects.requireNonNull(keyPrefix, "keyPrefix");
    this.leaseMillis = leaseTime.toMillis();
    this.leaseNanos = leaseTime.toNanos();
    this.commandTimeoutNanos = commandTimeout.toNanos();
    this.onLockLost = Objects.requireNonNull(onLockLost, "onLockLost");
    this.ticker = Objects.requireNonNull(ticker, "ticker");
  }

  /** These settings with another command timeout. */
  public Settings withCommandTimeout(Duration commandTimeout) {
    return new Settings(
        keyPrefix,
        Duration.ofNanos(leaseNanos),
        commandTimeout,
        onLockLost,
        ticker,
        maxHoldNanos == 0 ? null : Duration.ofNanos(maxHoldNanos),
        describeHolders,
        recordStats,
        statsSink);
  }

  /**
   * How long one Redis call may block a caller at worst: a pooled Jedis call to a stalled server
   * can take two socket timeouts plus a connect.
   */
  public long slowCallNanos() {
    return commandTimeoutNanos * 3;
  }

  /** {@code d} in nanoseconds, at most {@code Long.MAX_VALUE / 4} (beyond: as good as forever). */
  static long saturatedNanos(Duration d) {
    long max = Long.MAX_VALUE / 4;
    return d.compareTo(Duration.ofNanos(max)) >= 0 ? max : d.toNanos();
  }
}
