package io.github.redislock.bench;

import java.util.ArrayList;
import java.util.List;
import org.HdrHistogram.Histogram;

/**
 * One implementation in one scenario over every measured round: operations per second over the
 * summed time, the rounds' spread, and the merged histograms.
 *
 * @param impl the implementation
 * @param scenario the scenario
 * @param rounds rounds that produced numbers
 * @param opsPerSecond all operations over all rounds' time
 * @param slowestRound the lowest per-round ops/s
 * @param fastestRound the highest per-round ops/s
 * @param latency merged latency histogram (ns)
 * @param handoff merged handoff histogram (ns), or null
 * @param violations mutual-exclusion violations over all rounds
 * @param perJvmOps acquisitions per JVM over all rounds (two-JVM scenario)
 * @param crossJvmMoves handoffs to the other JVM over all rounds
 * @param smallestJvmShare the smallest share of a round's acquisitions that one JVM got
 * @param notes the rounds' notes, joined
 */
record Aggregate(
    Implementation impl,
    Scenario scenario,
    int rounds,
    double opsPerSecond,
    double slowestRound,
    double fastestRound,
    Histogram latency,
    Histogram handoff,
    long violations,
    List<Long> perJvmOps,
    long crossJvmMoves,
    double smallestJvmShare,
    String notes) {

  /** Merges the samples of one implementation and scenario; null when there are none. */
  static Aggregate of(List<Sample> samples) {
    if (samples.isEmpty()) {
      return null;
    }
    Sample first = samples.get(0);
    Histogram latency = Sample.newHistogram();
    Histogram handoff = null;
    long ops = 0;
    long nanos = 0;
    long violations = 0;
    long moves = 0;
    int rounds = 0;
    double slowest = Double.MAX_VALUE;
    double fastest = 0;
    double smallestShare = 1;
    List<Long> perJvm = new ArrayList<>();
    List<String> notes = new ArrayList<>();
    for (Sample s : samples) {
      if (!s.note().isEmpty()) {
        notes.add("round " + s.round() + ": " + s.note());
      }
      if (s.failed()) {
        continue;
      }
      rounds++;
      ops += s.ops();
      nanos += s.nanos();
      violations += s.violations();
      moves += s.crossJvmMoves();
      latency.add(s.latency());
      slowest = Math.min(slowest, s.opsPerSecond());
      fastest = Math.max(fastest, s.opsPerSecond());
      if (s.handoff() != null) {
        handoff = handoff == null ? Sample.newHistogram() : handoff;
        handoff.add(s.handoff());
      }
      if (!s.perJvmOps().isEmpty()) {
        smallestShare =
            Math.min(
                smallestShare,
                s.perJvmOps().stream().mapToLong(Long::longValue).min().orElse(0)
                    / (double) s.ops());
      }
      for (int j = 0; j < s.perJvmOps().size(); j++) {
        if (perJvm.size() <= j) {
          perJvm.add(0L);
        }
        perJvm.set(j, perJvm.get(j) + s.perJvmOps().get(j));
      }
    }
    return new Aggregate(
        first.impl(),
        first.scenario(),
        rounds,
        nanos == 0 ? 0 : ops * 1e9 / nanos,
        rounds == 0 ? 0 : slowest,
        fastest,
        latency,
        handoff,
        violations,
        perJvm,
        moves,
        perJvm.isEmpty() ? 0 : smallestShare,
        String.join("; ", notes));
  }

  boolean hasNumbers() {
    return rounds > 0;
  }
}
