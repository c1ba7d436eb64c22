package io.github.redislock.torture;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Writes {@code results.md}: the settings, what is checked, and the figures per deployment. */
final class Report {
  private Report() {}

  static void write(TortureSettings s, List<PhaseResult> results, ZonedDateTime started, Path file)
      throws IOException {
    StringBuilder md = new StringBuilder();
    long acquisitions = results.stream().mapToLong(PhaseResult::acquisitions).sum();
    long faults = results.stream().mapToLong(PhaseResult::scheduledFaults).sum();
    long violations = results.stream().mapToLong(r -> r.violations.size()).sum();
    md.append(BEGIN).append("\n## The torture run\n\n");
    md.append(
        String.format(
            Locale.ROOT,
            "**%,d acquisitions, %d faults, %d violations**, %s, on %d CPUs, Java %s (workers"
                + " on Java 17%s).\n\n",
            acquisitions,
            faults,
            violations,
            started.format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm z", Locale.ROOT)),
            Runtime.getRuntime().availableProcessors(),
            Runtime.version(),
            s.virtualJava().isPresent()
                ? " and, with virtual threads, " + s.virtualJava().get()
                : ""));
    md.append("```\n")
        .append("mvn -q -Ptorture test-compile exec:java -Dtorture.seconds=")
        .append(s.seconds())
        .append(" -Dtorture.deployments=")
        .append(String.join(",", s.deployments()))
        .append(" -Dtorture.seed=")
        .append(s.seed())
        .append("\n```\n\n");
    md.append("Settings: ").append(s.describe()).append(".\n\n");
    md.append("![acquisitions per second, fault windows shaded](timeline.png)\n\n");
    md.append(
        "The timeline: acquisitions per second per deployment; faults the design claims to"
            + " survive are shaded blue, faults outside the model red.\n\n");
    md.append(
        METHOD
            .replace("LEASE", Long.toString(s.lease().toMillis()))
            .replace("BOUND", Long.toString(s.livenessBound().toMillis()))
            .replace("LONGEST", Long.toString(s.longestLivenessBound().toMillis()))
            .replace(
                "TOLERANCE",
                Long.toString(
                    Worker.DEADLINE_SLACK_MICROS / 1000 + Checker.DEADLINE_TOLERANCE_MILLIS)));
    for (PhaseResult r : results) {
      md.append("### ").append(r.deployment).append(": ").append(r.description).append("\n\n");
      md.append(
          "| fault | in model | faults | acquisitions | overlaps | valid-lease overlaps |"
              + " stale writes refused | stale writes accepted | longest unavailability (ms) |"
              + " all names again after (ms) | lost holds reported (events / unlock) |\n");
      md.append("|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n");
      Map<String, PhaseResult.Row> rows = new LinkedHashMap<>();
      PhaseResult.Row quiet = r.rows.get("(before the first fault)");
      if (quiet != null) {
        rows.put(quiet.kind, quiet);
      }
      for (Fault.Type t : r.menu) {
        rows.put(t.kind(), r.rows.getOrDefault(t.kind(), new PhaseResult.Row(t.kind())));
        rows.get(t.kind()).inModel = t.inModel();
      }
      r.rows.forEach(rows::putIfAbsent);
      for (PhaseResult.Row row : rows.values()) {
        boolean quietRow = row.kind.startsWith("(");
        md.append(
            String.format(
                Locale.ROOT,
                "| %s | %s | %d | %,d | %d | %d%s | %d | %d | %s | %s | %d / %d |\n",
                row.kind,
                quietRow ? "" : row.inModel ? "yes" : "no",
                row.faults,
                row.acquisitions,
                row.overlaps,
                row.validOverlaps,
                row.explainedOverlaps > 0 ? " (explained)" : "",
                row.staleRefused,
                row.staleAccepted,
                quietRow || row.faults == 0 ? "" : Long.toString(row.longestUnavailableMillis),
                quietRow || row.faults == 0
                    ? ""
                    : row.longestRecoveryMillis < 0
                        ? "**not all**"
                        : Long.toString(row.longestRecoveryMillis),
                row.lossEvents,
                row.lossExceptions));
      }
      md.append("\n");
      md.append("Why each fault is in or outside the model:\n\n");
      for (Fault.Type t : r.menu) {
        md.append("- `")
            .append(t.kind())
            .append("` (")
            .append(t.inModel() ? "in" : "outside")
            .append("): ")
            .append(t.why())
            .append(";\n");
      }
      md.append("\n");
      md.append(
          String.format(
              Locale.ROOT,
              "Writes refused by the fenced store: %d. Unfenced counter updates lost to overlaps:"
                  + " %d. Timed `tryLock` past its deadline: at most %d ms (%d over the tolerance"
                  + " while their JVM was paused or stalled). JVM stalls of 50 ms or more: %d,"
                  + " the longest %d ms.%s\n\n",
              r.refusedWrites,
              r.rawLost,
              r.maxOvershootMillis,
              r.excusedOvershoots,
              r.stalls,
              r.longestStallMillis,
              r.longCalls.isEmpty() ? "" : " Calls over 10 s (longest, ms): " + r.longCalls + "."));
      md.append(kindsSentence(r)).append("\n\n");
      md.append(
              String.format(
                  Locale.ROOT,
                  "Orphan check, the longest lease (%d ms) and %d ms after the last worker"
                      + " stopped: %d key(s) of"
                      + " the library left, besides %d fencing counter(s).",
                  s.longestLease().toMillis(),
                  Torture.ORPHAN_WAIT_MARGIN_MILLIS,
                  r.orphanKeys,
                  r.countersLeft))
          .append("\n\n");
      if (!r.namesPerShard.isEmpty()) {
        md.append(
                String.format(
                    Locale.ROOT,
                    "Shards: the names spread over the masters as %s. Freezes of one master"
                        + " (`shard-freeze`): %d; holds lost on the frozen shard's names: %d"
                        + " (allowed); on the other shards: %d violations (check 7), %d more"
                        + " while their JVM stalled for a third of the lease.",
                    r.namesPerShard,
                    r.shardFreezes,
                    r.frozenShardLosses,
                    r.violations.stream().filter(v -> v.check().startsWith("7.")).count(),
                    r.healthyShardLossesExcused))
            .append("\n\n");
      }
      if (!r.lateCallSites.isEmpty()) {
        md.append(
            "Timed `tryLock` calls still running 100 ms past their deadline, by where they were: ");
        List<String> sites = new java.util.ArrayList<>();
        r.lateCallSites.forEach((site, n) -> sites.add("`" + site + "` " + n));
        md.append(String.join("; ", sites)).append(".\n\n");
      }
      md.append("<details><summary>Workers</summary>\n\n```\n");
      r.workerSummaries.forEach(l -> md.append(l).append('\n'));
      md.append("```\n</details>\n\n");
    }
    md.append("### Violations\n\n");
    if (violations == 0) {
      md.append("None.\n");
    }
    for (PhaseResult r : results) {
      r.countsByCheck()
          .forEach(
              (check, n) ->
                  md.append("- ")
                      .append(r.deployment)
                      .append(", ")
                      .append(check)
                      .append(": ")
                      .append(n)
                      .append('\n'));
    }
    md.append('\n');
    for (PhaseResult r : results) {
      for (PhaseResult.Violation v : r.shown()) {
        md.append("- **")
            .append(r.deployment)
            .append(", ")
            .append(v.check())
            .append("**: ")
            .append(v.text())
            .append('\n');
        if (!v.excerpt().isEmpty()) {
          md.append("\n  ```\n");
          v.excerpt().stream().limit(60).forEach(l -> md.append("  ").append(l).append('\n'));
          md.append("  ```\n");
        }
      }
    }
    md.append('\n').append(END).append('\n');
    Files.writeString(file, merge(file, md.toString()), StandardCharsets.UTF_8);
  }

  /** What the read-write and condition checks saw in one phase, or which kinds did not run. */
  static String kindsSentence(PhaseResult r) {
    StringBuilder text = new StringBuilder("Kinds: ").append(String.join(", ", r.kinds));
    if (r.kinds.size() < TortureKind.ALL.length) {
      text.append(
          " (the factory refuses the others with UnsupportedOperationException, by design)");
    }
    text.append('.');
    if (r.kinds.contains("read-write")) {
      text.append(
          String.format(
              Locale.ROOT,
              " Read-write: %,d read sections; %d overlaps of a read and a write hold (%d in which"
                  + " the earlier holder still believed it held the lock, each explained by a"
                  + " fault outside the model); %d writes of a stale writer after a reader got in"
                  + " (no fence can refuse them: a read has no token).",
              r.readSections,
              r.readWriteOverlaps,
              r.validReadWriteOverlaps,
              r.staleWritesBesideReaders));
    }
    if (r.kinds.contains("handle")) {
      text.append(
          String.format(
              Locale.ROOT,
              " Object-owned holds (handle, acquired on one thread, used on a second, released on"
                  + " a third): %,d sections (%s; by lock: %s); pending acquisitions cancelled:"
                  + " %,d withdrawn, %,d too late to withdraw (the hold then went through its"
                  + " section).",
              r.acquisitionsByKind.getOrDefault("handle", 0L),
              r.handleForms.isEmpty() ? "none" : r.handleForms.toString().replaceAll("[{}]", ""),
              r.handleLocks.isEmpty() ? "none" : r.handleLocks.toString().replaceAll("[{}]", ""),
              workerCount(r, "hold_cancel_withdrew"),
              workerCount(r, "hold_cancel_too_late")));
    }
    if (!r.acquisitionsByKind.isEmpty()) {
      text.append(" Acquisitions by kind: ");
      List<String> parts = new ArrayList<>();
      r.acquisitionsByKind.forEach((k, v) -> parts.add(String.format(Locale.ROOT, "%s %,d", k, v)));
      text.append(String.join(", ", parts)).append('.');
    }
    if (r.kinds.contains("condition")) {
      long awaits = r.awaits.values().stream().mapToLong(Long::longValue).sum();
      text.append(
          String.format(
              Locale.ROOT,
              " Conditions: %,d awaits re-acquired their lock (%s), each with a token greater than"
                  + " the hold it gave up.",
              awaits,
              r.awaits.isEmpty() ? "none" : r.awaits.toString().replaceAll("[{}]", "")));
    }
    return text.toString();
  }

  /** The sum of one count ({@code key=value}) over the workers' summaries. */
  static long workerCount(PhaseResult r, String key) {
    long sum = 0;
    for (String line : r.workerSummaries) {
      for (String part : line.split(" ")) {
        if (part.startsWith(key + "=")) {
          sum += Long.parseLong(part.substring(key.length() + 1));
        }
      }
    }
    return sum;
  }

  static final String BEGIN =
      "<!-- torture run: written by mvn -Ptorture test-compile exec:java; a run replaces the text"
          + " from here to the end marker -->";
  static final String END = "<!-- end of the torture run -->";

  /**
   * The file's new text: the run's block in place of the previous run's, so that the rest of the
   * file (the leak soak's results) stays; a new file gets a title.
   */
  private static String merge(Path file, String block) throws IOException {
    if (!Files.exists(file)) {
      return "# Torture and leak soak results\n\n" + block;
    }
    String old = Files.readString(file, StandardCharsets.UTF_8);
    int from = old.indexOf(BEGIN);
    int to = old.indexOf(END);
    if (from < 0 || to < from) {
      return old + (old.endsWith("\n") ? "\n" : "\n\n") + block;
    }
    String after = old.substring(to + END.length());
    return old.substring(0, from) + block.stripTrailing() + after;
  }

  private static final String METHOD =
      """
      ### How it works

      Three or more worker JVMs (one on Java 21+ with virtual threads beside its platform
      threads, when the machine has such a JDK), each running threads that lock names of a small
      set at random, of every kind of lock the factory offers (`getLock`, `getFairLock`, the read
      and write locks of `getReadWriteLock`, and conditions of plain and fair locks, which
      sections signal or await with a timeout), with every lock form (`lock`,
      `lockInterruptibly`, `tryLock`, timed `tryLock`, reentrant nesting, a second name inside,
      interrupts from another thread and the interrupt flag set on entry and at `unlock`), hold
      for a random time (now and then longer
      than the lease of LEASE ms, so that renewal must carry the hold), and record every critical
      section on a history `redis-server` that no fault touches: its start and its end in one
      global order, with the holder, the name and its fencing token. A section's start and end,
      and a write every 100 ms of a long one, go to a fenced store that accepts a write only with
      a token at least the highest it has seen for the name; a counter read at the start is
      written at the end, through the fence, and once more without it. After each write the
      holder records whether `isHeldByCurrentThread()` still says it holds the lock; a long
      section stops when it does not, as the guarantees page advises. Besides, holds owned by a
      handle object (kind `handle`, on the plain lock, and where the factory offers them the fair
      lock and the read and write locks): each is acquired on a worker thread with
      `acquireHoldAsync()`, `tryAcquireHoldAsync(wait)`, the blocking `acquireHold()` or
      `tryAcquireHold(wait)`, some with a lease given per call (and `lockFor(lease)` or
      `tryLock(wait, lease)` for a thread), its section runs on a thread of another pool, where
      `isHeld()` is what the holder records, and it is released (`release()`, `close()` or
      `releaseAfter`) on a third; a tenth of the asynchronous acquisitions are cancelled while
      they may still be pending, and once the workers stop the factory must renew no hold.
      Meanwhile a nemesis runs a seeded schedule of faults against the deployment and the
      workers, one at a time, waiting after each until every name was acquired again.

      The checker reads the history afterwards:

      1. **Exclusion.** An *overlap* is a section that started while another section of its name
         was still open, both exclusive or one of them a write hold and the other a read hold
         (reads may overlap each other): the earlier holder is then stale (of two exclusive holds,
         the one with the smaller fencing token: a worker paused between its acquisition and the
         record of its start records it late). Every write the stale
         holder made after the later exclusive (or write) start must have been refused by the
         fenced store: an accepted one is a violation, whatever the fault. (A stale writer's
         writes after only a reader got in cannot be refused, since a read has no token: they are
         counted.) A *valid-lease overlap* is an overlap in which the stale
         holder's `isHeldByCurrentThread()` still answered `true` after one of those writes: two
         holders believed they held the lock at once. The design claims that never happens under
         the faults marked "in model" below, and a valid-lease overlap is a violation unless a
         fault outside the model explains it (it began before the later start, the later start
         came within lease + longest hold + 1 s of its heal, and the stale holder acquired before
         the heal). A plain overlap is not a violation: the stale holder was told, or could have
         known, and all its writes were refused.
      2. **Fencing.** Per name, in the order sections started, tokens of exclusive and write
         holds strictly increase; a smaller token is allowed only to a stale holder that acquired
         before the holder of the larger one (its start write was then refused). An `await` ends
         its section before it releases the lock, and the hold it re-acquires begins a new one:
         that section must follow the awaiter's closed one, never overlap another holder's (check
         1), and have a token greater than the hold the await gave up.
      3. **Counters.** The fenced counter equals the number of section ends it accepted: no
         update lost beyond the refused writes. The unfenced counter equals the number of ends on
         every name the history shows no overlap on.
      4. **Liveness.** After each fault healed, every name was acquired again within BOUND ms
         (the lease, the longest hold and 5 s; LONGEST ms for the names of holds owned by handles,
         whose lease given per call is three leases and is not renewed); a timed `tryLock` with a
         positive time returned within TOLERANCE ms of its deadline unless its JVM was paused or
         stalled meanwhile (with a time of 0 or less it makes one attempt in the caller's thread,
         as `tryLock()` does, and is held to `tryLock()`'s bound); no thread was still in a call 30 s after the stop, no
         untimed `tryLock` or `unlock` took over 10 s and no `lock()` or `await` over 60 s.
      5. **Loss reports.** Every `LockLostEvent` matches a real loss: another holder started
         before the release, or a fault or a stall of the holder's JVM overlapped the hold. Every
         holder overtaken before its release whose JVM lived to release it was told: by the
         listener, or by `unlock()` throwing `LockLostException` or reporting the release
         unconfirmed (`RedisLockException`). After a fault outside the model a loss may go
         unreported (a server that lost its data cannot tell a release from a loss); that is
         counted, not failed.

      6. **Orphans.** Once every worker stopped, and the longest lease (one given per call, three
         leases) and a second later, no key of the
         library is left in any server but the fencing counters (`...:lock-meta` hashes), which
         outlive their last use by design: every lock key, fair queue (`:lock-fq`, `:lock-ft`),
         read share and writer intent (`:lock-rs`, `:lock-wi`), condition key and holder hash
         left is a violation, reported with its type, time to live and contents.

      7. **A frozen shard costs only its own holds** (Cluster). While one master is frozen
         (`shard-freeze`, longer than the lease and shorter than the node timeout, so no
         failover), and for one lease after, no hold on a name another master serves is lost: no
         `LockLostEvent` and no `unlock()` throwing `LockLostException` for it, unless its JVM
         stalled for a third of the lease. Holds on the frozen master's names may be lost.

      Besides, every contract check the workers make while they run (an interrupt flag set on
      entry makes `lockInterruptibly` and timed `tryLock` throw, clears the flag and keeps no
      hold, and survives `lock()`, `tryLock()` and `unlock()`; a reentrant acquisition counts
      up; `lock()` and `lockInterruptibly()` never throw `RedisLockException`; an `await` returns,
      or throws `InterruptedException`, holding the lock again with its hold count, and with the
      interrupt flag set on entry throws at once and keeps its hold) is a violation when it
      fails, as is a worker thread that dies.

      **The model.** What the design claims to survive is what [guarantees.md](../guarantees.md)
      and [redlock.md](../redlock.md) promise: mutual exclusion while the lease lasts, against
      crashes of clients, lost connections, slow networks, partitions and servers that freeze or
      die and come back after the lease; under Redlock, the same for any minority of masters.
      Outside it, as those pages say: a client paused for longer than its lease, a failover that
      may lose a key not yet replicated, and a server (or a Redlock master) restarted without its
      keys before the leases it granted ran out. There, overlaps may happen, but every write of
      the stale holder must still be refused.

      In the model too, and added for the faults a second review found unguarded: one reply of
      one chosen command held back past the node (or command) timeout, or lost in a reset after
      the command ran (single node and Redlock, through a RESP-aware proxy); push frames between
      replies on connections that track keys (`redlock-caching`); one Cluster master frozen for
      longer than the lease, during which holds on the other masters must be kept and renewed
      (check 7); and a factory closed under threads waiting on it, each of which must end with
      `IllegalStateException`. The workers also lock pairs of names that a careless key layout
      would make share keys (`m0` and `{m0}`): each name is checked on its own.

      """;
}
