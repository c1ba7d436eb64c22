package io.github.redislock.bench;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The benchmark's settings, read once from system properties ({@code -Dbench.duration=3s} and so
 * on). {@code -Dbench.quick=true} changes every default to a smoke-test size that finishes in about
 * a minute; any property given explicitly still wins.
 *
 * @param quick whether the quick defaults apply
 * @param rounds measured rounds; implementation order is rotated by one each round. Many short
 *     rounds rather than a few long ones: on a small VM the cost of a round trip changes for
 *     seconds at a time with where the scheduler puts client and server, and every implementation
 *     should see each state as often
 * @param warmup length of each run of a cell in the discarded warm-up round
 * @param warmupMax how long the warm-up round may run a cell again until its throughput is steady
 *     (see {@link WarmUp})
 * @param duration length of each measured cell (implementation × scenario × round)
 * @param threads threads of the one-key and own-keys scenarios
 * @param jvmThreads threads in each of the two JVMs of the cross-process scenario
 * @param commandPairs uncontended pairs observed to count Redis commands
 * @param heapLocks lock objects created (and then held) to measure heap per lock
 * @param names distinct names locked and unlocked to measure what stays in Redis
 * @param waiters threads waiting for one held lock while connections are counted
 * @param rawBackoffMicros mean pause of the raw floor between attempts on a busy key
 * @param only implementation ids to run, empty for all
 * @param scenarios scenario ids to run, empty for all
 * @param output the folder that receives {@code <timestamp>/}
 * @param keepAwake whether to keep the CPUs out of their idle state (see {@link KeepAwake})
 * @param pinSingleThread whether single-thread measurements run on one CPU with their servers (see
 *     {@link CpuPinning})
 * @param baseline a git rev whose build the {@code ours-base} rows run (see {@link Baseline}),
 *     empty for none
 * @param baselineJar a prebuilt jar for the {@code ours-base} rows instead of building {@code
 *     baseline}, empty for none
 */
record BenchSettings(
    boolean quick,
    int rounds,
    Duration warmup,
    Duration warmupMax,
    Duration duration,
    int threads,
    int jvmThreads,
    int commandPairs,
    int heapLocks,
    int names,
    int waiters,
    int rawBackoffMicros,
    List<String> only,
    List<String> scenarios,
    Path output,
    boolean keepAwake,
    boolean pinSingleThread,
    String baseline,
    String baselineJar) {

  /** Reads the settings from system properties. */
  static BenchSettings fromSystemProperties() {
    boolean quick = Boolean.getBoolean("bench.quick");
    return new BenchSettings(
        quick,
        intProperty("bench.rounds", quick ? 2 : 6, 1),
        durationProperty("bench.warmup", quick ? "150ms" : "1s"),
        durationProperty("bench.warmupMax", quick ? "150ms" : "45s"),
        durationProperty("bench.duration", quick ? "400ms" : "1s"),
        intProperty("bench.threads", 8, 1),
        intProperty("bench.jvmThreads", 4, 1),
        intProperty("bench.commandPairs", quick ? 200 : 1000, 1),
        intProperty("bench.heapLocks", quick ? 500 : 5000, 1),
        intProperty("bench.names", quick ? 2000 : 100_000, 1),
        intProperty("bench.waiters", quick ? 100 : 1000, 1),
        intProperty("bench.rawBackoffMicros", 100, 1),
        listProperty("bench.only"),
        listProperty("bench.scenarios"),
        Path.of(System.getProperty("bench.out", "results")),
        Boolean.parseBoolean(System.getProperty("bench.keepAwake", "true")),
        Boolean.parseBoolean(System.getProperty("bench.pinSingleThread", "true")),
        System.getProperty("bench.baseline", "").trim(),
        System.getProperty("bench.baselineJar", "").trim());
  }

  /** Whether a baseline is given, so that the {@code ours-base} rows can run. */
  boolean hasBaseline() {
    return !baseline.isEmpty() || !baselineJar.isEmpty();
  }

  /** Whether the implementation with this id is selected. */
  boolean runs(String implementationId) {
    return only.isEmpty() || only.contains(implementationId);
  }

  /** Whether the scenario or measurement with this id is selected. */
  boolean runsScenario(String scenarioId) {
    return scenarios.isEmpty() || scenarios.contains(scenarioId);
  }

  /** One line for the report. */
  String describe() {
    return String.format(
        Locale.ROOT,
        "%s mode; %d measured rounds; warm-up runs of %s until steady (at most %s) and %s per cell; %d threads (one key, own keys);"
            + " 2 JVMs x %d threads; %,d pairs for command counts; %,d locks for heap;"
            + " %,d names for Redis memory; %,d waiting threads; raw floor backoff %d µs",
        quick ? "quick" : "full",
        rounds,
        human(warmup),
        human(warmupMax),
        human(duration),
        threads,
        jvmThreads,
        commandPairs,
        heapLocks,
        names,
        waiters,
        rawBackoffMicros);
  }

  private static String human(Duration d) {
    return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
  }

  private static int intProperty(String name, int defaultValue, int min) {
    String raw = System.getProperty(name);
    int value = raw == null || raw.isBlank() ? defaultValue : Integer.parseInt(raw.trim());
    if (value < min) {
      throw new IllegalArgumentException(name + " must be at least " + min + ", got " + value);
    }
    return value;
  }

  /** Parses {@code 500ms}, {@code 3s}, {@code 2m} or a plain number of milliseconds. */
  private static Duration durationProperty(String name, String defaultValue) {
    String raw = System.getProperty(name, defaultValue).trim().toLowerCase(Locale.ROOT);
    Duration value;
    if (raw.endsWith("ms")) {
      value = Duration.ofMillis(Long.parseLong(raw.substring(0, raw.length() - 2)));
    } else if (raw.endsWith("s")) {
      value =
          Duration.ofMillis(
              Math.round(Double.parseDouble(raw.substring(0, raw.length() - 1)) * 1000));
    } else if (raw.endsWith("m")) {
      value = Duration.ofMinutes(Long.parseLong(raw.substring(0, raw.length() - 1)));
    } else {
      value = Duration.ofMillis(Long.parseLong(raw));
    }
    if (value.isNegative() || value.isZero()) {
      throw new IllegalArgumentException(name + " must be positive, got " + raw);
    }
    return value;
  }

  private static List<String> listProperty(String name) {
    String raw = System.getProperty(name, "").trim();
    if (raw.isEmpty()) {
      return List.of();
    }
    return Arrays.stream(raw.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
  }
}
