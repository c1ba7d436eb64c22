package io.github.redislock.bench;

import static io.github.redislock.bench.Histograms.formatMicros;
import static io.github.redislock.bench.Histograms.micros;
import static io.github.redislock.bench.MarkdownReport.number;
import static io.github.redislock.bench.MarkdownReport.times;

import java.util.Locale;

/**
 * The benchmark's targets, checked against this run's ratios: each row names the target, the
 * measured figure and whether it was met. Missing data (an implementation not available, a scenario
 * not run) reads "n/a".
 */
final class TargetCheck {
  private final Results results;
  private final StringBuilder out;

  TargetCheck(Results results, StringBuilder out) {
    this.results = results;
    this.out = out;
  }

  void render() {
    line("## Targets");
    line("");
    line("| target | measured | |");
    line("|---|--:|---|");
    ratio(
        "uncontended pairs/s ≥ 0.9× raw floor",
        Implementation.OURS,
        Implementation.RAW_FLOOR,
        Scenario.UNCONTENDED,
        0.9);
    Aggregate async = get(Implementation.OURS_ASYNC, Scenario.UNCONTENDED);
    Aggregate thread = get(Implementation.OURS, Scenario.UNCONTENDED);
    if (async != null && thread != null && async.opsPerSecond() > 0) {
      double r = thread.opsPerSecond() / async.opsPerSecond();
      double p50 = micros(async.latency(), 50) / micros(thread.latency(), 50);
      verdict(
          "uncontended async hold pair (acquireHoldAsync + release): time ≤ 1.1× lock+unlock's",
          times(r) + " (p50 " + times(p50) + ")",
          r <= 1.1);
    }
    CommandCounts.Result nested = results.commandsOf(Implementation.OURS, true);
    verdict(
        "reentrant pair: no Redis round trip",
        nested == null ? null : number(nested.networkTotal()) + " requests",
        nested == null ? null : nested.networkTotal() < 0.005);
    ratio(
        "reentrant pairs/s ≥ 100× Redisson",
        Implementation.OURS,
        Implementation.REDISSON,
        Scenario.REENTRANT,
        100);
    ratio(
        "8 threads, one key: acquisitions/s ≥ 2× raw floor",
        Implementation.OURS,
        Implementation.RAW_FLOOR,
        Scenario.ONE_KEY,
        2);
    Aggregate ours = get(Implementation.OURS, Scenario.ONE_KEY);
    Aggregate redisson = get(Implementation.REDISSON, Scenario.ONE_KEY);
    if (ours != null && redisson != null) {
      double p99 = micros(ours.latency(), 99);
      double theirs = micros(redisson.latency(), 99);
      verdict(
          "8 threads, one key: p99 wait ≤ Redisson's",
          formatMicros(p99) + " vs " + formatMicros(theirs) + " µs",
          p99 <= theirs);
    } else {
      verdict("8 threads, one key: p99 wait ≤ Redisson's", null, null);
    }
    ratio(
        "2 JVMs × 4 threads: acquisitions/s ≥ 1× raw floor",
        Implementation.OURS,
        Implementation.RAW_FLOOR,
        Scenario.TWO_JVMS,
        1);
    ratio(
        "2 JVMs × 4 threads: acquisitions/s ≥ 5× Redisson",
        Implementation.OURS,
        Implementation.REDISSON,
        Scenario.TWO_JVMS,
        5);
    Aggregate ours2 = get(Implementation.OURS, Scenario.TWO_JVMS);
    Aggregate raw2 = get(Implementation.RAW_FLOOR, Scenario.TWO_JVMS);
    if (ours2 != null
        && raw2 != null
        && ours2.handoff() != null
        && raw2.handoff() != null
        && ours2.handoff().getTotalCount() > 0
        && raw2.handoff().getTotalCount() > 0) {
      double r = micros(ours2.handoff(), 50) / micros(raw2.handoff(), 50);
      verdict("2 JVMs: handoff p50 ≤ 1.5× raw floor's", times(r), r <= 1.5);
    } else {
      verdict("2 JVMs: handoff p50 ≤ 1.5× raw floor's", null, null);
    }
    if (ours2 != null) {
      double share = ours2.smallestJvmShare();
      verdict(
          "2 JVMs: each JVM ≥ 1/3 of acquisitions",
          String.format(Locale.ROOT, "smallest %.0f%% (in a round)", share * 100),
          share >= 1 / 3.0);
    } else {
      verdict("2 JVMs: each JVM ≥ 1/3 of acquisitions", null, null);
    }
    ratio(
        "8 threads, own keys: pairs/s ≥ 0.9× raw floor",
        Implementation.OURS,
        Implementation.RAW_FLOOR,
        Scenario.OWN_KEYS,
        0.9);
    ratio(
        "Redlock, uncontended pairs/s ≥ 10× RedissonRedLock",
        Implementation.OURS_REDLOCK,
        Implementation.REDISSON_REDLOCK,
        Scenario.UNCONTENDED,
        10);
    Aggregate redlock = get(Implementation.OURS_REDLOCK, Scenario.UNCONTENDED);
    Aggregate single = get(Implementation.OURS, Scenario.UNCONTENDED);
    if (redlock != null && single != null) {
      double r = micros(redlock.latency(), 50) / micros(single.latency(), 50);
      verdict("Redlock, uncontended p50 ≤ 1.5× single-node p50", times(r), r <= 1.5);
    } else {
      verdict("Redlock, uncontended p50 ≤ 1.5× single-node p50", null, null);
    }
    line("");
  }

  private void ratio(
      String target, Implementation impl, Implementation base, Scenario scenario, double goal) {
    Aggregate a = get(impl, scenario);
    Aggregate b = get(base, scenario);
    if (a == null || b == null || b.opsPerSecond() == 0) {
      verdict(target, null, null);
      return;
    }
    double r = a.opsPerSecond() / b.opsPerSecond();
    verdict(target, times(r), r >= goal);
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
