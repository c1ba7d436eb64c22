package io.github.redislock.bench;

import static io.github.redislock.bench.Histograms.micros;
import static io.github.redislock.bench.MarkdownReport.times;

import org.HdrHistogram.Histogram;

/**
 * The fair lock's targets, checked against this run: handoff between JVMs against the raw floor's,
 * and throughput against Redisson's {@code RFairLock} in the same run. Missing data (a row not run
 * or not available) reads "n/a".
 */
final class FairTargetCheck {
  private final Results results;
  private final StringBuilder out;

  FairTargetCheck(Results results, StringBuilder out) {
    this.results = results;
    this.out = out;
  }

  void render() {
    if (!results.implementations.contains(Implementation.OURS_FAIR)) {
      return;
    }
    line("## Targets: the fair lock");
    line("");
    line("| target | measured | |");
    line("|---|--:|---|");
    Aggregate fair = get(Implementation.OURS_FAIR, Scenario.TWO_JVMS);
    Aggregate raw = get(Implementation.RAW_FLOOR, Scenario.TWO_JVMS);
    if (fair != null && raw != null && hasValues(fair.handoff()) && hasValues(raw.handoff())) {
      double r = micros(fair.handoff(), 50) / micros(raw.handoff(), 50);
      verdict("fair, 2 JVMs: handoff p50 ≤ 1.5× raw floor's", times(r), r <= 1.5);
    } else {
      verdict("fair, 2 JVMs: handoff p50 ≤ 1.5× raw floor's", null, null);
    }
    for (Scenario scenario : new Scenario[] {Scenario.ONE_KEY, Scenario.TWO_JVMS}) {
      Aggregate ours = get(Implementation.OURS_FAIR, scenario);
      Aggregate theirs = get(Implementation.REDISSON_FAIR, scenario);
      String target = "fair, " + scenario.title() + ": acquisitions/s ≥ 3× Redisson RFairLock";
      if (ours == null || theirs == null || theirs.opsPerSecond() == 0) {
        verdict(target, null, null);
      } else {
        double r = ours.opsPerSecond() / theirs.opsPerSecond();
        verdict(target, times(r), r >= 3);
      }
    }
    line("");
  }

  private static boolean hasValues(Histogram histogram) {
    return histogram != null && histogram.getTotalCount() > 0;
  }

  private Aggregate get(Implementation impl, Scenario scenario) {
    if (results.unavailable.containsKey(impl)) {
      return null;
    }
    Aggregate a = results.aggregate(impl, scenario);
    return a != null && a.hasNumbers() ? a : null;
  }

  private void verdict(String target, String measured, Boolean met) {
    String outcome = met == null ? "n/a" : met ? "met" : "**missed**";
    line("| " + target + " | " + (measured == null ? "n/a" : measured) + " | " + outcome + " |");
  }

  private void line(String text) {
    out.append(text).append('\n');
  }
}
