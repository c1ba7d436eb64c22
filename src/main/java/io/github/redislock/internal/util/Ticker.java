package io.github.redislock.internal.util;

/**
 * A source of nanosecond time, with the semantics of {@link System#nanoTime()}: an arbitrary
 * origin, only differences mean anything. Every deadline, lease and validity of the library is
 * computed from one of these, so that tests can drive time by hand instead of sleeping.
 */
@FunctionalInterface
public interface Ticker {

  /** The JVM's monotonic clock, {@link System#nanoTime()}. */
  Ticker SYSTEM = System::nanoTime;

  /** The current time in nanoseconds, from an arbitrary origin. */
  long read();
}
