package io.github.redislock.internal;

import io.github.redislock.internal.util.Ticker;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A {@link Ticker} whose time moves only when a test advances it, so that lease, yield, handoff and
 * renewal logic is tested without sleeping. Thread-safe: the code under test may read it from any
 * thread while the test advances it.
 */
final class ManualTicker implements Ticker {
  /** An arbitrary origin, as {@link System#nanoTime()} has: only differences mean anything. */
  static final long DEFAULT_ORIGIN = 1_000_000_000_000L;

  private final AtomicLong nanos;

  ManualTicker() {
    this(DEFAULT_ORIGIN);
  }

  /** A ticker that starts at {@code originNanos} (near {@link Long#MAX_VALUE} to test wrapping). */
  ManualTicker(long originNanos) {
    this.nanos = new AtomicLong(originNanos);
  }

  @Override
  public long read() {
    return nanos.get();
  }

  /** Moves time forward by {@code nanos} (wrapping like {@link System#nanoTime()} may). */
  void advance(long nanos) {
    if (nanos < 0) {
      throw new IllegalArgumentException("time moves forward only: " + nanos);
    }
    this.nanos.addAndGet(nanos);
  }

  void advance(Duration duration) {
    advance(duration.toNanos());
  }
}
