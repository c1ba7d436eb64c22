package io.github.redislock.internal;

/**
 * How much the Lincheck tests ({@code *LincheckTest}) explore. They run in {@code mvn test}, so
 * each is sized to take a few seconds on a loaded two-core machine. The system property {@value
 * #SCALE_PROPERTY} (a whole number, default 1) multiplies both the number of random scenarios and
 * the invocations (interleavings, or runs in stress mode) of every scenario, written ones included,
 * so a run takes about its square as long: {@code mvn test -Dtest='*LincheckTest'
 * -Dredislock.lincheck.scale=5} explores 25 times as much.
 */
final class LincheckBudget {
  static final String SCALE_PROPERTY = "redislock.lincheck.scale";

  private LincheckBudget() {}

  /** {@code base} random scenarios, scaled. */
  static int scenarios(int base) {
    return Math.multiplyExact(base, scale());
  }

  /** {@code base} invocations of each scenario, scaled. */
  static int invocations(int base) {
    return Math.multiplyExact(base, scale());
  }

  private static int scale() {
    String raw = System.getProperty(SCALE_PROPERTY);
    if (raw == null || raw.isBlank()) {
      return 1;
    }
    int scale;
    try {
      scale = Integer.parseInt(raw.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(SCALE_PROPERTY + " is not a whole number: " + raw, e);
    }
    if (scale < 1) {
      throw new IllegalArgumentException(SCALE_PROPERTY + " must be at least 1: " + raw);
    }
    return scale;
  }
}
