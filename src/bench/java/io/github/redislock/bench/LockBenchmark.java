package io.github.redislock.bench;

import io.github.redislock.testing.RedisServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The lock benchmark: this library against Redisson, Spring Integration and two hand-written
 * floors, in one run.
 *
 * <pre>
 * mvn -q -Pbench test-compile exec:java                        # about 8 minutes
 * mvn -q -Pbench test-compile exec:java -Dbench.quick=true     # about a minute, a smoke test
 * </pre>
 *
 * <p>It starts its own {@code redis-server} processes (one, and five for Redlock rows), creates
 * every implementation, runs a warm-up round and then {@code bench.rounds} measured rounds of the
 * timed scenarios (see {@link Scenario}), every implementation in turn within each scenario, the
 * order rotated each round; then counts Redis commands per pair ({@link CommandCounts}), heap per
 * lock ({@link HeapFootprint}), what stays in Redis after many names ({@link RedisFootprint}) and
 * the cost of many waiting threads ({@link WaitingThreads}). It writes {@code
 * results/<timestamp>/results.md}, {@code latency.png} and CSV files of the raw numbers. Settings
 * are system properties, listed in {@link BenchSettings}; an implementation that cannot be created
 * (ours over Redlock until it exists) is reported as not available. With {@code
 * -Dbench.baseline=<git rev>} the {@code ours-base} rows run the library as built from that commit
 * beside the current build ({@link Baseline}), and the report compares the two.
 */
public final class LockBenchmark {
  /**
   * Lettuce logs an ERROR for every release message that reaches a Spring registry whose executor
   * {@code destroy()} already shut down: harmless at the end of a run, silenced.
   */
  static final String QUIET_LOGGER =
      "org.slf4j.simpleLogger.log.io.lettuce.core.pubsub.PubSubEndpoint";

  private LockBenchmark() {}

  /**
   * Runs the benchmark.
   *
   * @param args none; settings are system properties
   * @throws Exception if the run cannot continue
   */
  public static void main(String[] args) throws Exception {
    System.setProperty("java.awt.headless", "true");
    if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
      System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
    }
    System.setProperty(QUIET_LOGGER, "off");
    BenchSettings settings = BenchSettings.fromSystemProperties();
    Results results = new Results(settings, ZonedDateTime.now());
    for (Implementation impl : Implementation.values()) {
      if (!settings.runs(impl.id())) {
        continue;
      }
      if (impl.baseline() && !settings.hasBaseline()) {
        if (settings.only().contains(impl.id())) {
          throw new IllegalArgumentException(
              impl.id() + " needs -Dbench.baseline=<git rev> or -Dbench.baselineJar=<path>");
        }
        continue;
      }
      results.implementations.add(impl);
    }
    log("Lock benchmark: " + settings.describe());
    Baseline baseline = null;
    if (results.implementations.stream().anyMatch(Implementation::baseline)) {
      baseline = Baseline.prepare(settings); // before anything else runs: the build takes a CPU
    } else if (settings.hasBaseline()) {
      log("A baseline is given, but no ours-base row is selected: not loaded");
    }

    KeepAwake awake = settings.keepAwake() ? KeepAwake.start() : null;
    MachineLoad load = MachineLoad.start();
    Path dir =
        settings
            .output()
            .resolve(
                results.started.format(
                    DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss", Locale.ROOT)));
    try (awake;
        LocalRedis single = LocalRedis.start(1);
        LocalRedis five = LocalRedis.start(5)) {
      Environment.describe(results.environment, single);
      if (baseline != null) {
        results.environment.put("Baseline", baseline.describe());
      }
      results.environment.put(
          "CPUs kept awake",
          awake != null
              ? "yes: a nice-19 busy loop per CPU runs beside the benchmark (see KeepAwake);"
                  + " `-Dbench.keepAwake=false` measures with idle CPUs"
              : "no (`-Dbench.keepAwake=false`, or no `nice` here): idle CPUs halt, and waking one"
                  + " costs tens of µs per round trip on a VM");
      new LockBenchmark.Run(settings, results, single, five, () -> write(results, load, dir)).run();
    }
    String report = write(results, load, dir);
    System.out.println();
    System.out.println(report);
    log("Wrote " + dir.toAbsolutePath());
  }

  /**
   * Writes everything measured so far (after each phase, so that an interrupted run leaves its
   * numbers behind).
   *
   * @return the Markdown report
   */
  private static String write(Results results, MachineLoad load, Path dir) {
    results.finished = ZonedDateTime.now();
    String busy = load.describe();
    if (!busy.isEmpty()) {
      results.environment.put("Load", busy);
    }
    try {
      Files.createDirectories(dir);
      String report = MarkdownReport.render(results);
      Files.writeString(dir.resolve("results.md"), report);
      CsvFiles.write(results, dir);
      LatencyChart.write(results, dir.resolve("latency.png"));
      return report;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the results to " + dir, e);
    }
  }

  private static final long STARTED = System.nanoTime();

  /** Slices of the cost measurement per implementation (scenario f). */
  static final int STATS_SLICES = 5;

  /** Prints a progress line, prefixed with the seconds since the start. */
  static void log(String message) {
    System.out.printf(Locale.ROOT, "[%6.1f s] %s%n", (System.nanoTime() - STARTED) / 1e9, message);
    System.out.flush();
  }

  /** One run over the shared servers. */
  private static final class Run {
    private final BenchSettings settings;
    private final Results results;
    private final LocalRedis single;
    private final LocalRedis five;
    private final Map<Implementation, LockUnderTest> open = new EnumMap<>(Implementation.class);
    private final Map<Implementation, TwoJvmPair> pairs = new EnumMap<>(Implementation.class);
    private final boolean pinning;
    private final Runnable checkpoint;

    Run(
        BenchSettings settings,
        Results results,
        LocalRedis single,
        LocalRedis five,
        Runnable checkpoint) {
      this.settings = settings;
      this.checkpoint = checkpoint;
      this.results = results;
      this.single = single;
      this.five = five;
      this.pinning = settings.pinSingleThread() && CpuPinning.available();
      results.environment.put(
          "Single-thread runs",
          pinning
              ? "scenarios a, b and the cost slices of f run with this JVM and the implementation's"
                  + " servers pinned to one CPU (see CpuPinning); `-Dbench.pinSingleThread=false`"
                  + " leaves them to the scheduler"
              : "not pinned: on a VM they depend on whether client and server share a vCPU");
    }

    void run() throws InterruptedException {
      try {
        for (Implementation impl : results.implementations) {
          try {
            open.put(impl, impl.create(redisOf(impl).uris(), settings));
          } catch (UnsupportedOperationException e) {
            results.unavailable.put(impl, "`" + e + "` at setup");
            log("  " + impl.label() + ": not available (" + e.getMessage() + ")");
          }
        }
        List<Implementation> available = new ArrayList<>(open.keySet());
        if (settings.runsScenario(Scenario.TWO_JVMS.id())) {
          log("Starting and warming up 2 JVMs per implementation");
          for (Implementation impl : available) {
            if (Scenario.TWO_JVMS.appliesTo(impl)) {
              try {
                pair(impl);
              } catch (RuntimeException e) {
                log("  2 JVMs failed to start for " + impl.label() + ": " + e);
              }
            }
          }
        }
        log("Warm-up round");
        round(available, 0);
        for (int r = 1; r <= settings.rounds(); r++) {
          log("Round " + r + " of " + settings.rounds());
          round(available, r);
        }
        checkpoint.run();
        pairs.values().forEach(TwoJvmPair::close);
        pairs.clear();
        extraMeasurements(available);
      } finally {
        pairs.values().forEach(TwoJvmPair::close);
        open.values().forEach(LockUnderTest::close);
      }
      footprints();
    }

    private void round(List<Implementation> available, int round) throws InterruptedException {
      boolean warmup = round == 0;
      List<Implementation> order = new ArrayList<>(available);
      Collections.rotate(order, -round);
      for (Scenario scenario : Scenario.values()) {
        if (!settings.runsScenario(scenario.id())) {
          continue;
        }
        for (Implementation impl : order) {
          if (!scenario.appliesTo(impl)) {
            continue;
          }
          if (!settings.quick()) {
            System.gc(); // so that no cell pays for the garbage of the one before
          }
          if (warmup) {
            warmUp(impl, scenario);
            continue;
          }
          Sample sample = cell(impl, scenario, round);
          log(
              String.format(
                  Locale.ROOT,
                  "  %-12s %-36s %,12.0f ops/s  p50 %9s µs  p99 %9s µs%s",
                  scenario.id(),
                  impl.label(),
                  sample.opsPerSecond(),
                  Histograms.formatMicros(Histograms.micros(sample.latency(), 50)),
                  Histograms.formatMicros(Histograms.micros(sample.latency(), 99)),
                  sample.note().isEmpty() ? "" : "  (" + sample.note() + ")"));
          if (!warmup) {
            results.samples.add(sample);
          }
        }
      }
    }

    /** Runs the cell of the warm-up round until its throughput is steady (see {@link WarmUp}). */
    private void warmUp(Implementation impl, Scenario scenario) throws InterruptedException {
      long start = System.nanoTime();
      WarmUp.Outcome outcome =
          WarmUp.untilSteady(() -> cell(impl, scenario, 0).opsPerSecond(), settings.warmupMax());
      log(
          String.format(
              Locale.ROOT,
              "  %-12s %-36s warm-up: %d runs, %.1f s, %s, last %,.0f ops/s",
              scenario.id(),
              impl.label(),
              outcome.runs(),
              (System.nanoTime() - start) / 1e9,
              outcome.steady() ? "steady" : "not steady by the limit",
              outcome.last()));
      if (!outcome.steady()) {
        results.unsteadyWarmUps.add(scenario.id() + " " + impl.label());
      }
    }

    private Sample cell(Implementation impl, Scenario scenario, int round)
        throws InterruptedException {
      String key = "bench:" + scenario.id() + ":" + impl.keyTag() + ":r" + round;
      try {
        if (scenario == Scenario.TWO_JVMS) {
          return pair(impl).run(round, key, round == 0 ? settings.warmup() : settings.duration());
        }
        boolean pin = pinning && (scenario.uncontended() || scenario == Scenario.REENTRANT);
        if (pin) {
          CpuPinning.pin(redisOf(impl).pids());
        }
        List<RedisServer> servers = redisOf(impl).servers();
        List<RedisServer> frozen =
            servers.subList(servers.size() - scenario.frozenMasters(), servers.size());
        frozen.forEach(RedisServer::pause);
        try {
          return InJvmRuns.run(
              impl,
              scenario,
              open.get(impl),
              round,
              settings.threads(),
              key,
              round == 0 ? settings.warmup() : settings.duration());
        } finally {
          frozen.forEach(RedisServer::resume);
          if (pin) {
            CpuPinning.unpin(redisOf(impl).pids());
          }
        }
      } catch (RuntimeException e) {
        return Sample.failed(impl, scenario, round, e.toString());
      }
    }

    /** The two child JVMs of {@code impl}, started (again) when there are none alive. */
    private TwoJvmPair pair(Implementation impl) throws InterruptedException {
      TwoJvmPair pair = pairs.get(impl);
      if (pair == null || !pair.isAlive()) {
        if (pair != null) {
          pair.close();
        }
        pair = TwoJvmPair.start(impl, redisOf(impl).uris(), settings);
        pairs.put(impl, pair);
        log("  2 JVMs ready: " + impl.label());
      }
      return pair;
    }

    private void extraMeasurements(List<Implementation> available) throws InterruptedException {
      if (settings.runsScenario("commands")) {
        log("Cost per uncontended pair");
        commandCounts(available);
        checkpoint.run();
      }
      if (settings.runsScenario("heap")) {
        log("Heap per lock");
        for (Implementation impl : available) {
          if (impl.excludes()) {
            // As many Redis-level locks for every row: a Redlock lock is one per node.
            HeapFootprint.Result h =
                HeapFootprint.measure(
                    impl, open.get(impl), Math.max(1, settings.heapLocks() / impl.nodes()));
            results.heap.add(h);
            log(
                String.format(
                    Locale.ROOT,
                    "  %-36s %,.0f B per lock object, %,.0f B per held lock",
                    impl.label(),
                    h.bytesPerIdleLock(),
                    h.bytesPerHeldLock()));
          }
        }
        checkpoint.run();
      }
      if (settings.runsScenario("rw")) {
        log("Read-write locks, beside Redisson's RReadWriteLock");
        results.readWrite.addAll(ReadWriteRuns.measure(single, settings));
        checkpoint.run();
      }
    }

    /**
     * Scenario f: {@link #STATS_SLICES} statistics slices per implementation, interleaved and
     * rotated, then one MONITOR pass each; for reentrant implementations also nested pairs.
     */
    private void commandCounts(List<Implementation> available) throws InterruptedException {
      int pairs = settings.commandPairs();
      List<CommandCounts> counts = new ArrayList<>();
      try {
        for (Implementation impl : available) {
          var servers = redisOf(impl).servers();
          counts.add(new CommandCounts(impl, open.get(impl), servers, false, pairs * 2));
          if (impl.reentrant()) {
            counts.add(new CommandCounts(impl, open.get(impl), servers, true, pairs * 2));
          }
        }
        for (int slice = 0; slice < STATS_SLICES; slice++) {
          List<CommandCounts> order = new ArrayList<>(counts);
          Collections.rotate(order, -slice);
          for (CommandCounts c : order) {
            List<Long> pids = redisOf(c.impl()).pids();
            if (pinning) {
              CpuPinning.pin(pids);
            }
            try {
              c.statsSlice(pairs);
            } finally {
              if (pinning) {
                CpuPinning.unpin(pids);
              }
            }
          }
        }
        for (CommandCounts c : counts) {
          c.monitorPass(pairs);
          CommandCounts.Result r = c.result();
          (c.nested() ? results.nestedCommands : results.commands).add(r);
          log(
              String.format(
                  Locale.ROOT,
                  "  %-36s %s%s requests, server %.1f µs, client %.1f µs",
                  c.impl().label(),
                  c.nested() ? "nested: " : "",
                  MarkdownReport.number(r.networkTotal()),
                  r.serverCpuMicros(),
                  r.clientCpuMicros()));
        }
      } finally {
        counts.forEach(CommandCounts::close);
      }
    }

    /** Measurements on fresh servers and fresh instances, one implementation at a time. */
    private void footprints() throws InterruptedException {
      List<Implementation> locks =
          results.implementations.stream()
              .filter(i -> i.excludes() && !results.unavailable.containsKey(i))
              .toList();
      // First: the waiting-threads measurement abandons other clients' waiters, some still
      // retrying in the background (Redisson's fair waiters), which would disturb a latency.
      if (settings.runsScenario("condition")) {
        log("Condition signal-to-wake across JVMs");
        ConditionWake.Result c = ConditionWake.measure(settings);
        results.conditionWake = c;
        log(
            String.format(
                Locale.ROOT,
                "  signal to wake p50 %s µs, p99 %s µs; PING p50 %s µs: %.2fx",
                Histograms.formatMicros(Histograms.micros(c.wake(), 50)),
                Histograms.formatMicros(Histograms.micros(c.wake(), 99)),
                Histograms.formatMicros(Histograms.micros(c.ping(), 50)),
                c.ratio()));
      }
      if (settings.runsScenario("redis-memory")) {
        log("Redis after " + settings.names() + " names");
        for (Implementation impl : locks) {
          RedisFootprint.Result r = RedisFootprint.measure(impl, settings);
          results.redis.add(r);
          log(
              String.format(
                  Locale.ROOT,
                  "  %-36s %,d keys left, %,d without TTL, %.1f s",
                  impl.label(),
                  r.keysLeft(),
                  r.keysWithoutTtl(),
                  r.seconds()));
        }
        checkpoint.run();
      }
      if (settings.runsScenario("waiting")) {
        log(settings.waiters() + " waiting threads");
        for (Implementation impl : locks) {
          WaitingThreads.Result w = WaitingThreads.measure(impl, settings);
          results.waiting.add(w);
          log(
              String.format(
                  Locale.ROOT,
                  "  %-36s %d connections, %d subscribed, %,.0f commands/s",
                  impl.label(),
                  w.connections(),
                  w.subscribedConnections(),
                  w.commandsPerSecond()));
        }
        checkpoint.run();
      }
      if (settings.runsScenario("pending")) {
        log(settings.waiters() + " pending asynchronous acquisitions beside parked threads");
        for (PendingAcquisitions.Result p : PendingAcquisitions.measure(settings)) {
          results.pending.add(p);
          log(
              String.format(
                  Locale.ROOT,
                  "  %-28s on %,d name(s): %,d threads added (%.3f each), %,.0f B heap each;"
                      + " %,d of %,d completed, the last after %,d ms%s",
                  p.form(),
                  p.names(),
                  p.threadsAdded(),
                  p.threadsPerAcquisition(),
                  p.heapPerAcquisition(),
                  p.completed(),
                  p.count(),
                  p.drainMillis(),
                  p.note().isEmpty() ? "" : " (" + p.note() + ")"));
        }
      }
    }

    private LocalRedis redisOf(Implementation impl) {
      return impl.nodes() == 1 ? single : five;
    }
  }
}
