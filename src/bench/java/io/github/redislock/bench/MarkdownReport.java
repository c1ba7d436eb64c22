package io.github.redislock.bench;

import static io.github.redislock.bench.Histograms.formatMicros;
import static io.github.redislock.bench.Histograms.micros;

import java.time.Duration;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/** Renders {@link Results} as {@code results.md}. */
final class MarkdownReport {
  /** A before/after ratio counts as unchanged within this fraction. */
  private static final double SAME_WITHIN = 0.05;

  private final Results results;
  private final StringBuilder out = new StringBuilder();

  private MarkdownReport(Results results) {
    this.results = results;
  }

  static String render(Results results) {
    return new MarkdownReport(results).render();
  }

  private String render() {
    header();
    mainTable();
    beforeAfter();
    twoJvms();
    commands();
    heap();
    redis();
    waiting();
    pending();
    ReadWriteRuns.render(results.readWrite, this::line);
    conditionWake();
    new TargetCheck(results, out).render();
    new FairTargetCheck(results, out).render();
    unavailable();
    method();
    return out.toString();
  }

  private void header() {
    line("# Lock benchmark, " + results.started.format(DateTimeFormatter.ISO_LOCAL_DATE));
    line("");
    Duration took = Duration.between(results.started, results.finished);
    line(
        "Run "
            + results.started.format(DateTimeFormatter.ISO_OFFSET_DATE_TIME)
            + ", took "
            + took.toMinutesPart()
            + " min "
            + took.toSecondsPart()
            + " s.");
    line("");
    results.environment.forEach((k, v) -> line("- " + k + ": " + v));
    line("- Settings: " + results.settings.describe());
    line("");
  }

  private void mainTable() {
    line("## Throughput and latency");
    line("");
    line(
        "ops/s over all measured rounds (min–max of the rounds beside it); latencies in µs from"
            + " the merged HdrHistograms. *× raw* is ops/s divided by the raw floor's in the same"
            + " scenario; *× Redisson* divides by Redisson's in the same topology (single-node rows by"
            + " `RLock`, Redlock rows by `RedissonRedLock`, fair rows by `RFairLock`).");
    line("");
    for (Scenario s : Scenario.values()) {
      line(
          "- "
              + s.title()
              + ": "
              + s.description()
                  .replace(
                      "N threads",
                      (s == Scenario.TWO_JVMS
                              ? results.settings.jvmThreads()
                              : results.settings.threads())
                          + " threads"));
    }
    line("");
    line(
        "| scenario | implementation | ops/s | rounds | p50 | p99 | p99.9 | × raw | × Redisson"
            + " | checks |");
    line("|---|---|--:|--:|--:|--:|--:|--:|--:|---|");
    for (Scenario s : Scenario.values()) {
      if (!results.settings.runsScenario(s.id())) {
        continue;
      }
      for (Implementation impl : results.implementations) {
        row(s, impl);
      }
    }
    line("");
  }

  private void row(Scenario s, Implementation impl) {
    String prefix = "| " + s.title() + " | " + impl.label() + " | ";
    if (results.unavailable.containsKey(impl)) {
      line(prefix + "not available | | | | | | | |");
      return;
    }
    if (!s.appliesTo(impl) && s.frozenMasters() > 0) {
      return; // Redlock rows only
    }
    if (!s.appliesTo(impl)) {
      line(
          prefix
              + "n/a | | | | | | | "
              + (impl.excludes() ? "not reentrant" : "not a lock")
              + " |");
      return;
    }
    Aggregate a = results.aggregate(impl, s);
    if (a == null) {
      return;
    }
    if (!a.hasNumbers()) {
      line(prefix + "failed | | | | | | | " + a.notes() + " |");
      return;
    }
    line(
        prefix
            + String.format(
                Locale.ROOT,
                "%s | %s–%s | %s | %s | %s | %s | %s | %s |",
                ops(a.opsPerSecond()),
                ops(a.slowestRound()),
                ops(a.fastestRound()),
                formatMicros(micros(a.latency(), 50)),
                formatMicros(micros(a.latency(), 99)),
                formatMicros(micros(a.latency(), 99.9)),
                ratio(a, Implementation.RAW_FLOOR),
                ratio(a, impl.redissonAnchor()),
                checks(a)));
  }

  private String ratio(Aggregate a, Implementation anchor) {
    Aggregate base = results.aggregate(anchor, a.scenario());
    if (base == null || !base.hasNumbers() || base.opsPerSecond() == 0) {
      return "n/a";
    }
    return times(a.opsPerSecond() / base.opsPerSecond());
  }

  /** Operations per second: whole numbers, but two decimals below 10 (a frozen master's rows). */
  static String ops(double perSecond) {
    return String.format(Locale.ROOT, perSecond >= 10 ? "%,.0f" : "%.2f", perSecond);
  }

  static String times(double ratio) {
    return String.format(Locale.ROOT, ratio >= 100 ? "%,.0f×" : "%.2f×", ratio);
  }

  private static String checks(Aggregate a) {
    String check = "";
    if (a.impl().excludes()) {
      check = a.violations() == 0 ? "exclusive" : "**" + a.violations() + " violations**";
    }
    if (!a.notes().isEmpty()) {
      check += (check.isEmpty() ? "" : "; ") + a.notes();
    }
    return check;
  }

  /**
   * When baseline rows ran: each timed scenario of the current build against the baseline's, with
   * the ratios and whether throughput is within {@link #SAME_WITHIN} of the baseline's.
   */
  private void beforeAfter() {
    List<Implementation> bases =
        results.implementations.stream()
            .filter(i -> i.baseline() && results.implementations.contains(i.current()))
            .toList();
    if (bases.isEmpty()) {
      return;
    }
    Implementation first = bases.get(0);
    line("## Before and after: " + first.current().label() + " against " + first.label());
    line("");
    line(
        "The current build (*after*, `"
            + first.current().id()
            + "`) against the library built from the baseline commit (*before*, `"
            + first.id()
            + "`), side by side in this run: the same servers and rounds, the order rotated with"
            + " the others. *×* is after / before: above 1 is more ops/s now, below 1 a shorter"
            + " latency now; a ratio outside "
            + band()
            + " is in bold. *Rounds* gives the least, the greatest and the median of the rounds' own"
            + " ops/s ratios (each round runs both within seconds): when they spread wider than the"
            + " band, this run cannot tell a 5% change from noise. *Within 5%* judges ops/s over"
            + " all rounds.");
    line("");
    line(
        "| scenario | ops/s after | ops/s before | × | rounds | p50 after | p50 before | ×"
            + " | p99 after | p99 before | × | within 5% |");
    line("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|");
    for (Implementation base : bases) {
      Implementation now = base.current();
      for (Scenario s : Scenario.values()) {
        if (!results.settings.runsScenario(s.id()) || !s.appliesTo(now)) {
          continue;
        }
        String title = s.title() + (now.nodes() > 1 ? ", Redlock" : "");
        Aggregate after = results.aggregate(now, s);
        Aggregate before = results.aggregate(base, s);
        if (after == null
            || before == null
            || !after.hasNumbers()
            || !before.hasNumbers()
            || before.opsPerSecond() == 0) {
          line("| " + title + " | no numbers | | | | | | | | | | n/a |");
          continue;
        }
        double ops = after.opsPerSecond() / before.opsPerSecond();
        line(
            String.format(
                Locale.ROOT,
                "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |",
                title,
                ops(after.opsPerSecond()),
                ops(before.opsPerSecond()),
                banded(ops),
                roundRatios(now, base, s),
                formatMicros(micros(after.latency(), 50)),
                formatMicros(micros(before.latency(), 50)),
                banded(micros(after.latency(), 50) / micros(before.latency(), 50)),
                formatMicros(micros(after.latency(), 99)),
                formatMicros(micros(before.latency(), 99)),
                banded(micros(after.latency(), 99) / micros(before.latency(), 99)),
                verdict(ops)));
      }
    }
    line("");
  }

  private static String band() {
    return String.format(Locale.ROOT, "%.2f–%.2f", 1 - SAME_WITHIN, 1 + SAME_WITHIN);
  }

  private static boolean withinBand(double ratio) {
    return Math.abs(ratio - 1) <= SAME_WITHIN;
  }

  private static String banded(double ratio) {
    if (Double.isNaN(ratio) || Double.isInfinite(ratio)) {
      return "n/a";
    }
    String r = String.format(Locale.ROOT, "%.3f", ratio);
    return withinBand(ratio) ? r : "**" + r + "**";
  }

  private static String verdict(double ratio) {
    if (withinBand(ratio)) {
      return "yes";
    }
    int percent = (int) Math.round(Math.abs(ratio - 1) * 100);
    return ratio < 1 ? "**no: " + percent + "% slower**" : "no: " + percent + "% faster";
  }

  /**
   * The least and greatest after/before ops/s ratio of one round, and their median, over the rounds
   * both ran.
   */
  private String roundRatios(Implementation after, Implementation before, Scenario scenario) {
    List<Double> ratios = new ArrayList<>();
    for (Sample a : results.samples) {
      if (a.impl() != after || a.scenario() != scenario || a.failed()) {
        continue;
      }
      for (Sample b : results.samples) {
        if (b.impl() == before
            && b.scenario() == scenario
            && b.round() == a.round()
            && !b.failed()
            && b.opsPerSecond() > 0) {
          ratios.add(a.opsPerSecond() / b.opsPerSecond());
        }
      }
    }
    if (ratios.isEmpty()) {
      return "n/a";
    }
    Collections.sort(ratios);
    int n = ratios.size();
    double median =
        n % 2 == 1 ? ratios.get(n / 2) : (ratios.get(n / 2 - 1) + ratios.get(n / 2)) / 2;
    return String.format(
        Locale.ROOT, "%.2f–%.2f, median %.2f", ratios.get(0), ratios.get(n - 1), median);
  }

  private void twoJvms() {
    if (!results.settings.runsScenario(Scenario.TWO_JVMS.id())) {
      return;
    }
    line("## d. Two JVMs: handoffs and fairness");
    line("");
    line(
        "Handoff: from a holder's call of `unlock()` to the return of `lock()` in the next"
            + " holder, when that is another thread (times from `System.nanoTime()`, comparable across"
            + " processes on Linux), read from the shared memory-mapped file.");
    line("");
    line(
        "*JVM shares* are over all rounds, *smallest* is the smallest share one JVM got in one"
            + " round.");
    line("");
    line(
        "| implementation | acquisitions/s | handoff p50 | handoff p99 | p50 × raw | handoffs"
            + " to the other JVM | JVM shares | smallest | checks |");
    line("|---|--:|--:|--:|--:|--:|---|--:|---|");
    Aggregate raw = results.aggregate(Implementation.RAW_FLOOR, Scenario.TWO_JVMS);
    for (Implementation impl : results.implementations) {
      Aggregate a = results.aggregate(impl, Scenario.TWO_JVMS);
      if (a == null || !a.hasNumbers() || a.handoff() == null) {
        continue;
      }
      long handoffs = a.handoff().getTotalCount();
      long total = a.perJvmOps().stream().mapToLong(Long::longValue).sum();
      String shares =
          a.perJvmOps().stream()
              .map(n -> String.format(Locale.ROOT, "%.0f%%", 100.0 * n / total))
              .collect(Collectors.joining(" / "));
      String versusRaw =
          raw != null && raw.handoff() != null && raw.handoff().getTotalCount() > 0
              ? times(micros(a.handoff(), 50) / micros(raw.handoff(), 50))
              : "n/a";
      line(
          String.format(
              Locale.ROOT,
              "| %s | %,.0f | %s | %s | %s | %s | %s | %.0f%% | %s |",
              impl.label(),
              a.opsPerSecond(),
              formatMicros(micros(a.handoff(), 50)),
              formatMicros(micros(a.handoff(), 99)),
              versusRaw,
              handoffs == 0
                  ? "no handoffs"
                  : String.format(
                      Locale.ROOT, "%.1f%% of %,d", 100.0 * a.crossJvmMoves() / handoffs, handoffs),
              shares,
              100 * a.smallestJvmShare(),
              checks(a)));
    }
    line("");
  }

  private void commands() {
    if (results.commands.isEmpty()) {
      return;
    }
    line("## f. Redis commands per uncontended lock+unlock pair");
    line("");
    line(
        "Per pair, summed over the implementation's servers. *Requests* are commands sent over"
            + " the network (round trips, unless pipelined) and *in scripts* the commands Lua ran,"
            + " both from `MONITOR` over "
            + String.format(Locale.ROOT, "%,d", results.settings.commandPairs())
            + " pairs; *commandstats* is the"
            + " `INFO commandstats` delta (all executed"
            + " commands) and *processed* the `total_commands_processed` delta. *Nested* is a"
            + " reentrant pair while the lock is already held.");
    line("");
    line(
        "| implementation | requests | requests by command | in scripts | commandstats |"
            + " processed | nested: requests |");
    line("|---|--:|---|--:|--:|--:|--:|");
    for (CommandCounts.Result c : results.commands) {
      CommandCounts.Result nested = results.commandsOf(c.impl(), true);
      line(
          String.format(
              Locale.ROOT,
              "| %s | %s | %s | %s | %s | %s | %s |",
              c.impl().label(),
              number(c.networkTotal()),
              breakdown(c.network()),
              number(c.scriptedTotal()),
              number(c.executedTotal()),
              number(c.processed()),
              nested == null ? "n/a" : number(nested.networkTotal())));
    }
    line("");
    line(
        "What a pair costs in CPU: the servers' `used_cpu_user + used_cpu_sys`, this JVM's"
            + " process CPU time (all threads, GC included) split by thread (*caller* runs the pairs;"
            + " *JVM* is the rest: GC, JIT, VM threads), and the bytes its threads allocated, per"
            + " pair, over "
            + LockBenchmark.STATS_SLICES
            + " slices of "
            + String.format(Locale.ROOT, "%,d", results.settings.commandPairs())
            + " pairs per implementation, interleaved. The raw"
            + " floor's row is about what a client needs at least.");
    line("");
    line(
        "| implementation | server CPU µs | client CPU µs | client CPU by thread (µs) |"
            + " client bytes allocated |");
    line("|---|--:|--:|---|--:|");
    for (CommandCounts.Result c : results.commands) {
      String threads =
          c.clientCpuByThread().entrySet().stream()
              .filter(e -> e.getValue() >= 0.05 * c.clientCpuMicros() && e.getValue() >= 0.5)
              .map(e -> String.format(Locale.ROOT, "%s %.0f", e.getKey(), e.getValue()))
              .collect(Collectors.joining(", "));
      line(
          String.format(
              Locale.ROOT,
              "| %s | %.1f | %.1f | %s | %,.0f |",
              c.impl().label(),
              c.serverCpuMicros(),
              c.clientCpuMicros(),
              threads,
              c.clientAllocatedBytes()));
    }
    line("");
  }

  private static String breakdown(Map<String, Double> counts) {
    return counts.entrySet().stream()
        .filter(e -> e.getValue() >= 0.005)
        .map(e -> e.getKey() + " " + number(e.getValue()))
        .collect(Collectors.joining(", "));
  }

  static String number(double value) {
    String s = String.format(Locale.ROOT, "%.2f", value);
    return s.endsWith(".00") ? s.substring(0, s.length() - 3) : s;
  }

  private void heap() {
    if (results.heap.isEmpty()) {
      return;
    }
    line("## Heap per lock");
    line("");
    line(
        "Redlock rows use a fifth as many lock objects, so that every row holds as many locks"
            + " in Redis.");
    line("");
    line(
        "| implementation | locks | bytes per idle lock object | extra bytes per held lock |"
            + " notes |");
    line("|---|--:|--:|--:|---|");
    for (HeapFootprint.Result h : results.heap) {
      line(
          String.format(
              Locale.ROOT,
              "| %s | %,d | %,.0f | %,.0f | %s |",
              h.impl().label(),
              h.count(),
              h.bytesPerIdleLock(),
              h.bytesPerHeldLock(),
              h.note()));
    }
    line("");
  }

  private void redis() {
    if (results.redis.isEmpty()) {
      return;
    }
    line(
        String.format(
            Locale.ROOT,
            "## Redis after %,d distinct names locked and unlocked",
            results.settings.names()));
    line("");
    line(
        "On fresh servers; the memory is `used_memory` less client buffers"
            + " (`mem_clients_normal`), from just before the names to a second after.");
    line("");
    line(
        "| implementation | seconds | keys left | keys without TTL | memory change |"
            + " per name | notes |");
    line("|---|--:|--:|--:|--:|--:|---|");
    for (RedisFootprint.Result r : results.redis) {
      line(
          String.format(
              Locale.ROOT,
              "| %s | %.1f | %,d | %,d | %,d B | %,.0f B | %s |",
              r.impl().label(),
              r.seconds(),
              r.keysLeft(),
              r.keysWithoutTtl(),
              r.memoryDelta(),
              r.memoryDelta() / (double) r.names(),
              r.note()));
    }
    line("");
  }

  private void waiting() {
    if (results.waiting.isEmpty()) {
      return;
    }
    line(
        String.format(
            Locale.ROOT, "## %,d threads waiting for one held lock", results.settings.waiters()));
    line("");
    line(
        "One fresh instance on fresh servers; its connections on the server(s)"
            + " (`CLIENT LIST`), those in"
            + " subscribed state, the channels and subscriptions (`PUBSUB CHANNELS`/`NUMSUB`), the"
            + " commands per second Redis processed while they waited (`total_commands_processed`,"
            + " which counts the commands scripts run too), and the JVM threads the implementation"
            + " added. The lock is held by a second instance of the same implementation, standing"
            + " for another process.");
    line("");
    line(
        "| implementation | connections | subscribed | channels | subscriptions | commands/s"
            + " | threads added | notes |");
    line("|---|--:|--:|--:|--:|--:|--:|---|");
    for (WaitingThreads.Result w : results.waiting) {
      line(
          String.format(
              Locale.ROOT,
              "| %s | %d | %d | %d | %d | %,.0f | %d | %s |",
              w.impl().label(),
              w.connections(),
              w.subscribedConnections(),
              w.channels(),
              w.subscriptions(),
              w.commandsPerSecond(),
              w.threadsAdded(),
              w.note()));
    }
    line("");
  }

  private void pending() {
    if (results.pending.isEmpty()) {
      return;
    }
    line("## Pending asynchronous acquisitions beside parked threads");
    line("");
    line(
        "redis-lock on a fresh server, each row with fresh factories: a first factory (another"
            + " process) holds the lock(s); the measured one makes N acquisitions on 1 name or on"
            + " N names, as pending `acquireHoldAsync()` futures or as platform threads parked in"
            + " `lock()`. Live JVM threads (`ThreadMXBean`) and live heap (used heap after a full"
            + " collection, the least of three readings) while they wait, against the readings"
            + " before they were made (the lock objects, connections and subscription already"
            + " there). Then the holder releases and every acquisition must complete: a future's"
            + " stage releases its handle (on an executor of two threads started before the"
            + " readings), a thread unlocks and ends. A thread's stack is native memory, not in"
            + " the heap figure.");
    line("");
    line(
        "| form | names | waiting | threads added | per acquisition | heap added | bytes per"
            + " acquisition | completed | all done after | notes |");
    line("|---|--:|--:|--:|--:|--:|--:|--:|--:|---|");
    for (PendingAcquisitions.Result p : results.pending) {
      line(
          String.format(
              Locale.ROOT,
              "| %s | %,d | %,d | %,d | %.3f | %,d B | %,.0f | %,d | %,d ms | %s |",
              p.form(),
              p.names(),
              p.count(),
              p.threadsAdded(),
              p.threadsPerAcquisition(),
              p.heapAdded(),
              p.heapPerAcquisition(),
              p.completed(),
              p.drainMillis(),
              p.note()));
    }
    line("");
  }

  private void conditionWake() {
    ConditionWake.Result c = results.conditionWake;
    if (c == null) {
      return;
    }
    line("## Condition signal to wake, across JVMs");
    line("");
    line(
        "A child JVM awaits the first condition of a lock (`redis-lock`, standalone) in a loop;"
            + " this JVM locks, waits 200 µs (the child's thread, whose await released the lock,"
            + " settles into its wait, as the floor's thread has when it is published to), signals"
            + " and unlocks, "
            + String.format(Locale.ROOT, "%,d", c.rounds())
            + " times after a warm-up. Latency: from just before `signal()` to the child's return"
            + " from `await()`, the lock held again (signal, unlock, wake-up, re-acquisition);"
            + " `System.nanoTime()` is the same clock in both JVMs. PING: a Jedis `RedisClient`"
            + " round trip on the same fresh server. Floor: the least a wake-up across JVMs costs"
            + " here, without a lock: this JVM notes the time and sends `PUBLISH` (Jedis); in the"
            + " child a plain Jedis subscriber thread receives it (first floor row), and unparks a"
            + " waiting thread (second), as the library's subscription thread wakes an awaiter."
            + " Redisson has no distributed `Condition` (`RLock.newCondition()` throws), so there"
            + " is nothing to compare it with.");
    line("");
    line("| measure | p50 µs | p90 µs | p99 µs | notes |");
    line("|---|--:|--:|--:|---|");
    conditionRow("PING round trip", c.ping(), "");
    conditionRow("floor: `PUBLISH` to a subscriber thread", c.floorSubscriber(), "");
    conditionRow("floor: `PUBLISH` to a thread it wakes", c.floorWoken(), "");
    conditionRow("`signal()` call", c.signal(), "");
    conditionRow("`signal()` + `unlock()`", c.unlocked(), "the signaller's part");
    conditionRow("signal to wake", c.wake(), c.note());
    line("");
    line(
        String.format(
            Locale.ROOT,
            "Signal to wake p50 = %.2fx the PING p50 (goal: at most 3x): %s. The floor's p50"
                + " (a message waking a thread of another JVM, no lock) is %.2fx the PING p50, and"
                + " the signal to wake %.2fx the floor.",
            c.ratio(),
            c.ratio() <= 3 ? "met" : "missed",
            c.floorRatio(),
            Histograms.micros(c.wake(), 50) / Histograms.micros(c.floorWoken(), 50)));
    line("");
  }

  private void conditionRow(String label, org.HdrHistogram.Histogram h, String note) {
    line(
        String.format(
            Locale.ROOT,
            "| %s | %s | %s | %s | %s |",
            label,
            Histograms.formatMicros(Histograms.micros(h, 50)),
            Histograms.formatMicros(Histograms.micros(h, 90)),
            Histograms.formatMicros(Histograms.micros(h, 99)),
            note));
  }

  private void unavailable() {
    if (results.unavailable.isEmpty()) {
      return;
    }
    line("## Not available");
    line("");
    results.unavailable.forEach((impl, why) -> line("- " + impl.label() + ": " + why));
    line("");
  }

  private void method() {
    List<String> notes =
        List.of(
            "One JVM runs everything (the child JVMs of scenario d aside), against `redis-server`"
                + " processes it starts on loopback: one for single-node rows, five for Redlock"
                + " rows, shared by all implementations of that topology.",
            "A warm-up round runs every scenario for every implementation first, each cell again"
                + " and again until its last "
                + WarmUp.WINDOW
                + " runs agree within "
                + WarmUp.TOLERANCE_PERCENT
                + "% (at most "
                + results.settings.warmupMax().toSeconds()
                + " s a cell; "
                + (results.unsteadyWarmUps.isEmpty()
                    ? "every cell was steady"
                    : "not steady by then: " + String.join(", ", results.unsteadyWarmUps))
                + "); its numbers are discarded. A fixed second of warm-up had left the JIT"
                + " compiling the larger clients' code in the first measured rounds, on the one"
                + " CPU a pinned cell runs on. Then each measured round runs scenario by scenario,"
                + " every implementation in turn, the order rotated by one each round.",
            "Each thread gets its own lock object of the shared name (as separate processes would);"
                + " implementations that cache lock objects per name return the cached one.",
            "Exclusion checks: inside every critical section an atomic count must go from 0 to 1,"
                + " and a plain counter is incremented; it must end equal to the acquisitions. In"
                + " scenario d both live in a memory-mapped file shared by the two JVMs.",
            "Floors: *PING* is one round trip per op on a Jedis 8 `RedisClient` (not a lock); the"
                + " *raw* lock is `SET key token NX PX 30000`, then an `EVALSHA` compare-and-delete,"
                + " retrying after a jittered pause of about "
                + results.settings.rawBackoffMicros()
                + " µs while busy; both on a client configured like the library's.",
            "Single-thread runs (a, b, the cost slices of f) are pinned with their servers to one"
                + " CPU, and a nice-19 busy loop keeps every CPU from idling (see the header): on a"
                + " VM, waking a process on another vCPU costs more than a Redis command, and where"
                + " the scheduler put client and server would otherwise decide single-thread"
                + " figures.",
            "Heap per lock: live heap after `System.gc()` (least of three `MemoryMXBean` readings)"
                + " before and after creating N lock objects of distinct names, and after acquiring"
                + " all N on one thread; differences divided by N.",
            "Everything started stops by itself: bounded loops, daemon threads abandoned after a"
                + " grace period, child JVMs with a watchdog, servers killed at the end.");
    line("## Method");
    line("");
    notes.forEach(n -> line("- " + n));
    if (results.implementations.stream().anyMatch(Implementation::baseline)) {
      line(
          "- Before and after: the `ours-base` rows are this library as built from the baseline"
              + " commit (`-Dbench.baseline=<git rev>`): a `git archive` of it built with `mvn -q -B"
              + " -DskipTests -Dspotless.skip package`, the jar cached under"
              + " `target/bench-baseline/<sha>.jar` (or a jar given with `-Dbench.baselineJar`)."
              + " This JVM loads it through a child-first class loader (the `io.github.redislock`"
              + " classes and scripts from the jar; Jedis, commons-pool2 and slf4j shared with the"
              + " current build, so both run on the same dependency versions) and calls its factory"
              + " through reflection; the locks it returns are called directly. Its child JVMs of"
              + " scenario d have the jar on their class path in place of the current classes. The"
              + " baseline rows take part in every round, slice and measurement like any other"
              + " row.");
    }
  }

  private void line(String text) {
    out.append(text).append('\n');
  }
}
