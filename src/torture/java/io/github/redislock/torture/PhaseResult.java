package io.github.redislock.torture;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** What the checker found in one deployment's phase, for the report and the chart. */
final class PhaseResult {

  /** One fault kind's figures (or the quiet time before the first fault). */
  static final class Row {
    final String kind;
    boolean inModel = true;
    long faults;
    long acquisitions;
    long overlaps;
    long validOverlaps;
    long explainedOverlaps;
    long staleRefused;
    long staleAccepted;
    long staleStarts;
    long lossEvents;
    long lossExceptions;
    long unreportedExplained;
    long longestUnavailableMillis;
    long longestRecoveryMillis = -2;

    Row(String kind) {
      this.kind = kind;
    }
  }

  /** A violation, with the piece of history that shows it. */
  record Violation(String check, String text, List<String> excerpt) {}

  final String deployment;
  final String description;
  final Map<String, Row> rows = new LinkedHashMap<>();
  final List<Violation> violations = new ArrayList<>();
  final Map<String, Long> longCalls = new TreeMap<>();
  final List<String> workerSummaries = new ArrayList<>();

  /** Where timed calls 100 ms past their deadline were: the first frames of the library. */
  final Map<String, Long> lateCallSites = new TreeMap<>();

  List<Fault.Type> menu = List.of();

  /** The kinds of lock the workers ran (those the factory offers). */
  List<String> kinds = List.of();

  List<PhaseHistory.FaultWindow> faults = List.of();
  long[] perSecond = new long[0];
  long startUs;
  long endUs;
  long refusedWrites;
  long rawLost;
  long maxOvershootMillis;
  long excusedOvershoots;
  long stalls;
  long longestStallMillis;

  /** Keys of the library left after the phase (the orphan check), each a violation. */
  long orphanKeys;

  /** Fencing counters left after the phase: they outlive their last use by design. */
  long countersLeft;

  /** Scheduled {@code shard-freeze} faults (Cluster). */
  long shardFreezes;

  /** Holds lost on a frozen shard's names during its freeze (allowed). */
  long frozenShardLosses;

  /** Holds lost on a healthy shard during a freeze while their JVM stalled (not counted). */
  long healthyShardLossesExcused;

  /** The number of lock names each shard serves (Cluster), for the report. */
  Map<String, Long> namesPerShard = Map.of();

  /** Read sections of read-write locks. */
  long readSections;

  /** Overlaps of a read and a write hold (counted in the rows' overlaps too). */
  long readWriteOverlaps;

  /** Of those, the ones in which the earlier holder still believed it held the lock. */
  long validReadWriteOverlaps;

  /**
   * Writes a stale write holder made while only readers had got in since: no fence can refuse them
   * (a read has no token), so only its own {@code isHeldByCurrentThread()} protects readers.
   */
  long staleWritesBesideReaders;

  /** Sections per kind of lock ({@link TortureKind#kindOf}). */
  final Map<String, Long> acquisitionsByKind = new TreeMap<>();

  /** Sections of {@link HandleKind}, by how they were acquired (form, and lock in brackets). */
  final Map<String, Long> handleForms = new TreeMap<>();

  /** Sections of {@link HandleKind}, by lock: plain, fair, read, write. */
  final Map<String, Long> handleLocks = new TreeMap<>();

  /** Sections on a hold an await re-acquired, by how the await ended. */
  final Map<String, Long> awaits = new TreeMap<>();

  PhaseResult(String deployment, String description) {
    this.deployment = deployment;
    this.description = description;
  }

  Row row(String kind) {
    return rows.computeIfAbsent(kind, Row::new);
  }

  long acquisitions() {
    return rows.values().stream().mapToLong(r -> r.acquisitions).sum();
  }

  long scheduledFaults() {
    return rows.values().stream().mapToLong(r -> r.faults).sum();
  }

  /** Violations printed (with their history) per check; the others are counted. */
  static final int SHOWN_PER_CHECK = 10;

  void violation(String check, String text, List<String> excerpt) {
    violations.add(new Violation(check, text, List.copyOf(excerpt)));
    long ofCheck = violations.stream().filter(v -> v.check().equals(check)).count();
    if (ofCheck <= SHOWN_PER_CHECK) {
      System.out.println("VIOLATION [" + deployment + "] " + check + ": " + text);
      for (String line : excerpt.subList(0, Math.min(excerpt.size(), 40))) {
        System.out.println("    " + line);
      }
    } else if (ofCheck == SHOWN_PER_CHECK + 1) {
      System.out.println("VIOLATION [" + deployment + "] " + check + ": more; only counted now");
    }
  }

  /** The violations to show: the first {@link #SHOWN_PER_CHECK} of each check. */
  List<Violation> shown() {
    java.util.Map<String, Integer> seen = new java.util.HashMap<>();
    return violations.stream()
        .filter(v -> seen.merge(v.check(), 1, Integer::sum) <= SHOWN_PER_CHECK)
        .toList();
  }

  /** The number of violations per check. */
  java.util.Map<String, Long> countsByCheck() {
    java.util.Map<String, Long> counts = new TreeMap<>();
    violations.forEach(v -> counts.merge(v.check(), 1L, Long::sum));
    return counts;
  }
}
