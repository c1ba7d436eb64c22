package io.github.redislock.torture;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The torture run: worker JVMs lock a small set of names with every lock form while a nemesis
 * kills, freezes, partitions and fails over the deployment under them and freezes and kills the
 * workers; afterwards a checker reads the history and tells every violation.
 *
 * <pre>
 * mvn -q -Ptorture test-compile exec:java                                  # every deployment, 60 s each
 * mvn -q -Ptorture test-compile exec:java -Dtorture.seconds=60 -Dtorture.deployments=single,redlock
 * </pre>
 *
 * Settings: {@link TortureSettings}. It writes {@code results.md} and {@code timeline.png} to
 * {@code torture.out}, the histories and worker logs to {@code target/torture-work}, and its last
 * line is {@code torture: N acquisitions, F faults, V violations}; it exits with 1 when V is not 0.
 * See {@code src/torture/README.md}.
 */
public final class Torture {
  private Torture() {}

  /**
   * Runs the torture.
   *
   * @param args none; settings are system properties
   * @throws Exception if the run cannot start
   */
  public static void main(String[] args) throws Exception {
    System.setProperty("java.awt.headless", "true");
    if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
      System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
    }
    TortureSettings settings = TortureSettings.fromSystemProperties();
    ZonedDateTime started = ZonedDateTime.now();
    System.out.println("torture: " + settings.describe());
    System.out.println("torture: replay this schedule with -Dtorture.seed=" + settings.seed());
    Path work = Path.of("target", "torture-work");
    Files.createDirectories(work);
    List<PhaseResult> results = new ArrayList<>();
    try (HistoryAdmin admin = new HistoryAdmin()) {
      for (String deployment : settings.deployments()) {
        results.add(runPhase(settings, deployment, admin, work));
      }
    }
    Files.createDirectories(settings.out());
    Report.write(settings, results, started, settings.out().resolve("results.md"));
    TimelineChart.write(settings, results, settings.out().resolve("timeline.png"));
    long acquisitions = results.stream().mapToLong(PhaseResult::acquisitions).sum();
    long faults = results.stream().mapToLong(PhaseResult::scheduledFaults).sum();
    long violations = results.stream().mapToLong(r -> r.violations.size()).sum();
    System.out.println(
        "torture: wrote "
            + settings.out().resolve("results.md")
            + " and timeline.png; histories"
            + " and worker logs in "
            + work);
    for (PhaseResult r : results) {
      r.countsByCheck()
          .forEach(
              (check, n) ->
                  System.out.println(
                      "torture: " + n + " violation(s) [" + r.deployment + "] " + check));
    }
    System.out.println(
        "torture: "
            + acquisitions
            + " acquisitions, "
            + faults
            + " faults, "
            + violations
            + " violations");
    System.out.flush();
    System.exit(violations == 0 ? 0 : 1);
  }

  private static Deployment start(String id) {
    return switch (id) {
      case "single" -> ProxiedDeployment.single();
      case "redlock" -> ProxiedDeployment.redlock();
      case "redlock-caching" -> ProxiedDeployment.redlockCaching();
      case "sentinel" -> SentinelDeployment.start();
      case "cluster" -> ClusterDeployment.start();
      default -> throw new IllegalArgumentException(id);
    };
  }

  private static PhaseResult runPhase(
      TortureSettings settings, String id, HistoryAdmin admin, Path work) throws Exception {
    System.out.println();
    System.out.println("torture: " + id + ": starting the deployment");
    admin.reset();
    PhaseResult result;
    try (Deployment deployment = start(id);
        Workers workers = new Workers(settings, deployment, admin.port(), work)) {
      result = new PhaseResult(id, deployment.describe());
      System.out.println("torture: " + id + ": " + deployment.describe());
      workers.startAll();
      result.kinds = workers.kinds();
      List<String> names = new ArrayList<>();
      for (TortureKind kind : TortureKind.ALL) {
        if (workers.kinds().contains(kind.id())) {
          for (int i = 0; i < settings.names(); i++) {
            names.add(kind.name(i));
          }
        }
      }
      List<String> allNames = new ArrayList<>(names); // the liveness wait leaves out the keepers'
      if (deployment.keepers()) {
        TortureKind keeper = new TortureKind.KeeperKind();
        for (int i = 0; i < TortureKind.KeeperKind.NAMES; i++) {
          allNames.add(keeper.name(i));
        }
      }
      long startNanos = System.nanoTime();
      long startUs = History.nowMicros();
      Nemesis nemesis = new Nemesis(settings, deployment, workers, admin, names, startNanos);
      result.menu = nemesis.menu();
      try {
        nemesis.run(startNanos + TimeUnit.SECONDS.toNanos(settings.seconds()));
      } catch (RuntimeException e) {
        result.violation("run", "the nemesis failed: " + e, List.of());
        e.printStackTrace(System.out);
      }
      deployment.healAll();
      for (String line : workers.stopAll()) {
        System.out.println("  " + line);
        result.workerSummaries.add(line);
        if (line.contains("not stopped")) {
          result.violation("4. call hung", "a worker did not stop: " + line, List.of());
        }
      }
      long endUs = History.nowMicros();
      Orphans.Found orphans = awaitOrphans(settings, deployment);
      Map<String, Map<String, Long>> state = admin.finalState(allNames);
      List<String> lines = admin.drain(work.resolve("history-" + id + ".log.gz"));
      PhaseHistory history = new PhaseHistory(id, lines);
      result.startUs = startUs;
      result.endUs = endUs;
      result.faults = history.faults;
      Map<String, String> shards = deployment.shardsOf(allNames);
      result.namesPerShard = new java.util.TreeMap<>();
      shards.values().forEach(shard -> result.namesPerShard.merge(shard, 1L, Long::sum));
      new Checker(settings, history, state, shards, result).check();
      result.countersLeft = orphans.counters();
      for (Orphans.Orphan o : orphans.orphans()) {
        result.orphanKeys++;
        result.violation(
            "6. orphan key",
            o.describe()
                + ", "
                + ORPHAN_WAIT_MARGIN_MILLIS
                + " ms more than one lease after the last worker stopped",
            List.of());
      }
      result.perSecond = perSecond(history, startUs, endUs);
      result.stalls = history.stalls.size();
      for (PhaseHistory.Rec d : history.samples) {
        result.lateCallSites.merge(librarySite(d.f()[2]), 1L, Long::sum);
      }
      for (PhaseHistory.Rec g : history.stalls) {
        result.longestStallMillis =
            Math.max(
                result.longestStallMillis,
                (Long.parseLong(g.f()[2]) - Long.parseLong(g.f()[1])) / 1000);
      }
      System.out.printf(
          Locale.ROOT,
          "torture: %s: %d acquisitions, %d faults, %d overlaps (%d with two valid holders, all"
              + " explained: %s), %d violations; %d history records%n",
          id,
          result.acquisitions(),
          result.scheduledFaults(),
          result.rows.values().stream().mapToLong(r -> r.overlaps).sum(),
          result.rows.values().stream().mapToLong(r -> r.validOverlaps).sum(),
          result.rows.values().stream().allMatch(r -> r.validOverlaps == r.explainedOverlaps),
          result.violations.size(),
          lines.size());
    }
    return result;
  }

  /**
   * How long past the longest lease after the last worker stopped the orphan check looks: every key
   * a worker left with a lease has expired by then.
   */
  static final long ORPHAN_WAIT_MARGIN_MILLIS = 1000;

  /**
   * Waits the longest lease a hold may have (one given per call) and {@link
   * #ORPHAN_WAIT_MARGIN_MILLIS} from now (every worker has stopped), then looks for keys the
   * library left in the deployment's servers.
   */
  private static Orphans.Found awaitOrphans(TortureSettings settings, Deployment deployment)
      throws InterruptedException {
    Thread.sleep(settings.longestLease().toMillis() + ORPHAN_WAIT_MARGIN_MILLIS);
    Orphans.Found found = Orphans.find(deployment.keyServers());
    System.out.println(
        "torture: "
            + deployment.id()
            + ": orphan check: "
            + found.orphans().size()
            + " key(s) left besides "
            + found.counters()
            + " fencing counter(s)");
    return found;
  }

  /** The innermost frame of the library's code in a sampled stack, and the one that called it. */
  static String librarySite(String stack) {
    List<String> frames = new ArrayList<>();
    for (String frame : stack.split(" at ")) {
      String f = frame.trim().replaceFirst("^[^/]*//", "").replaceFirst("^[^/]*/", "");
      if (f.startsWith("io.github.redislock.internal.")) {
        frames.add(f.substring("io.github.redislock.internal.".length()));
        if (frames.size() == 2) {
          break;
        }
      }
    }
    return frames.isEmpty() ? "(outside the library)" : String.join(" < ", frames);
  }

  private static long[] perSecond(PhaseHistory history, long startUs, long endUs) {
    int seconds = (int) Math.max(1, (endUs - startUs) / 1_000_000 + 1);
    long[] counts = new long[seconds];
    for (PhaseHistory.Section s : history.sections) {
      long t = (s.start.us() - startUs) / 1_000_000;
      if (t >= 0 && t < seconds) {
        counts[(int) t]++;
      }
    }
    return counts;
  }
}
