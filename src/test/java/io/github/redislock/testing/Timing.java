package io.github.redislock.testing;

import java.time.Duration;

/**
 * Scales test time bounds for slow machines.
 *
 * <p>The factor comes from the system property {@value #TIME_SCALE_PROPERTY} (default {@code 1},
 * decimals allowed, e.g. {@code 2.5}); the Maven build passes it through to Surefire and Failsafe,
 * so {@code mvn verify -Dredislock.test.timeScale=3} triples every bound.
 */
public final class Timing {

  /** The system property holding the scale factor. */
  public static final String TIME_SCALE_PROPERTY = "redislock.test.timeScale";

  private static final Duration DEFAULT_AWAIT = Duration.ofSeconds(20);

  private Timing() {}

  /**
   * Returns the current scale factor.
   *
   * @return the factor from {@value #TIME_SCALE_PROPERTY}, {@code 1} when unset or blank
   * @throws IllegalArgumentException if the property is not a positive number
   */
  public static double scale() {
    String raw = System.getProperty(TIME_SCALE_PROPERTY);
    if (raw == null || raw.isBlank()) {
      return 1.0;
    }
    double factor;
    try {
      factor = Double.parseDouble(raw.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(TIME_SCALE_PROPERTY + " is not a number: " + raw, e);
    }
    if (!(factor > 0) || Double.isInfinite(factor)) {
      throw new IllegalArgumentException(
          TIME_SCALE_PROPERTY + " must be a positive number: " + raw);
    }
    return factor;
  }

  /**
   * Multiplies a duration by the scale factor.
   *
   * @param d the unscaled duration
   * @return {@code d * scale()}, rounded to the nanosecond
   */
  public static Duration scaled(Duration d) {
    return Duration.ofNanos(Math.round(d.toNanos() * scale()));
  }

  /**
   * The default upper bound for Awaitility waits: 20 seconds, scaled.
   *
   * @return the scaled bound
   */
  public static Duration awaitAtMost() {
    return scaled(DEFAULT_AWAIT);
  }
}
