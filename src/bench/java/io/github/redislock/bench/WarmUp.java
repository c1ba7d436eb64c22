package io.github.redislock.bench;

import java.time.Duration;

/**
 * Warms one cell up until its throughput is steady: the cell runs again and again (each run as long
 * as {@code bench.warmup}) until the last {@value #WINDOW} runs agree within {@value
 * #TOLERANCE_PERCENT}% of the fastest of them, or {@code bench.warmupMax} has passed.
 *
 * <p>Why: a fixed one-second warm-up left the implementations with more code to compile still being
 * compiled in the first measured rounds. With the JVM pinned to one CPU, its JIT threads share that
 * CPU: Redisson's uncontended pair ran at 1,800-5,600 pairs/s in the first rounds of a run and at
 * 10,000-10,900 from the thirtieth second on, so the first rounds measured the compiler, not the
 * lock.
 */
final class WarmUp {
  static final int WINDOW = 3;
  static final int TOLERANCE_PERCENT = 5;

  /** One warm-up run of a cell: its throughput, ops/s (0 if it failed). */
  interface Run {
    double opsPerSecond() throws InterruptedException;
  }

  /**
   * How a warm-up went.
   *
   * @param runs how many runs it took
   * @param steady whether the last runs agreed (else the time ran out)
   * @param last the last run's throughput
   */
  record Outcome(int runs, boolean steady, double last) {}

  private WarmUp() {}

  /** Runs {@code run} until steady or {@code max} has passed; at least once. */
  static Outcome untilSteady(Run run, Duration max) throws InterruptedException {
    double[] window = new double[WINDOW];
    long deadline = System.nanoTime() + max.toNanos();
    int runs = 0;
    while (true) {
      double ops = run.opsPerSecond();
      window[runs % WINDOW] = ops;
      runs++;
      boolean steady = runs >= WINDOW && steady(window);
      if (steady || System.nanoTime() - deadline >= 0 || ops == 0) {
        return new Outcome(runs, steady, ops);
      }
    }
  }

  private static boolean steady(double[] window) {
    double min = Double.MAX_VALUE;
    double max = 0;
    for (double ops : window) {
      min = Math.min(min, ops);
      max = Math.max(max, ops);
    }
    return max > 0 && (max - min) * 100 <= max * TOLERANCE_PERCENT;
  }
}
