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

  /**
   * A bound for a reaction to an event: a waiter woken by the release's publish, or by its factory
   * closing, rather than by a timer of its own. 500 ms, scaled: far above a round trip (well under
   * a millisecond on loopback), and below the earliest re-check of a waiter whose holder publishes
   * its releases ({@code RedisWait}'s 1.5 s re-check, jittered down to as little as 0.75 s), so a
   * waiter that only comes out through that re-check misses it. With a time scale of 1.5 or more
   * the bound reaches the re-check and no longer tells the two apart.
   */
  public static final Duration PROMPTLY = scaled(Duration.ofMillis(500));

  /**
   * How long the library's asynchronous clean-up is given after a close or an unlock: threads
   * ending, unsubscribes confirmed, renewals stopping, keys given their short TTL. 5 s, scaled: the
   * clean-up takes milliseconds, and the checks that wait for it ({@link RedisInvariants}, so also
   * {@link LeakCheck}) poll, so the bound costs time only when something leaked; it is long enough
   * for a loaded machine with two cores and three test JVMs.
   */
  public static final Duration CLEAN_UP = scaled(Duration.ofSeconds(5));

  /**
   * A bound for background work that deletes a key whose lease is a minute (a release resent to a
   * master that was down, a late {@code SET} undone): 5 s, scaled. A twelfth of the lease, so the
   * key's own expiry cannot be what removed it, and still several times what the retries take on a
   * busy machine.
   */
  public static final Duration WELL_WITHIN_A_MINUTE_LEASE = scaled(Duration.ofSeconds(5));

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
