package io.github.redislock.bench;

import java.util.List;
import org.HdrHistogram.Histogram;

/**
 * What one implementation did in one scenario in one round.
 *
 * @param impl the implementation
 * @param scenario the scenario
 * @param round the round, from 1
 * @param ops operations completed (pairs, or acquisitions under contention)
 * @param nanos wall time from the start signal to the last thread's end
 * @param latency per-operation latency in nanoseconds (see {@link Scenario#description()})
 * @param handoff for the two-JVM scenario: nanoseconds from a holder's unlock() call to the next
 *     (different) holder's return from lock(); else null
 * @param violations times mutual exclusion was seen broken (two holders inside, or lost increments
 *     of the unsynchronised counter)
 * @param perJvmOps for the two-JVM scenario, acquisitions per JVM; else empty
 * @param crossJvmMoves for the two-JVM scenario, handoffs that went to the other JVM
 * @param note errors or remarks, empty when none
 */
record Sample(
    Implementation impl,
    Scenario scenario,
    int round,
    long ops,
    long nanos,
    Histogram latency,
    Histogram handoff,
    long violations,
    List<Long> perJvmOps,
    long crossJvmMoves,
    String note) {

  /** A histogram for nanosecond values up to one minute, 3 significant digits. */
  static Histogram newHistogram() {
    return new Histogram(60_000_000_000L, 3);
  }

  double opsPerSecond() {
    return nanos == 0 ? 0 : ops * 1e9 / nanos;
  }

  /** A run that did not finish in time or failed: it has no usable numbers. */
  static Sample failed(Implementation impl, Scenario scenario, int round, String why) {
    return new Sample(impl, scenario, round, 0, 0, newHistogram(), null, 0, List.of(), 0, why);
  }

  boolean failed() {
    return ops == 0;
  }
}
