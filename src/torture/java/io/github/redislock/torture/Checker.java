package io.github.redislock.torture;

import io.github.redislock.torture.PhaseHistory.FaultWindow;
import io.github.redislock.torture.PhaseHistory.Rec;
import io.github.redislock.torture.PhaseHistory.Section;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Checks one phase's history after the run (the checks numbered as in the report's "How it works"):
 *
 * <ol>
 *   <li>Exclusion. Two sections of one name overlap when the later one started while the earlier
 *       one was still open, and not both are read holds of a read-write lock (reads share). The
 *       earlier holder is then stale, and every write it made after the start of the first later
 *       exclusive (or write) section must have been refused by the fenced store (an accepted one is
 *       a violation, whatever the fault); its writes after only a reader got in cannot be refused
 *       (a read has no token) and are counted. The overlap is a <em>valid-lease overlap</em> when
 *       the stale holder's {@code isHeldByCurrentThread()} still answered {@code true} after such a
 *       write: two holders believed they held the lock at once. That is a violation unless a fault
 *       outside the model explains it (it began before the later start, which came within lease +
 *       longest hold + 1 s of its heal, and the stale holder acquired before the heal). Between a
 *       read and a write hold it is reported as a read beside a write; after an await, as such.
 *   <li>Fencing. Per name, in the order the sections started, tokens strictly increase; a smaller
 *       token is allowed only to a stale holder that acquired before the holder of the larger one
 *       (its start was then refused by the fence). A section on a hold an await re-acquired follows
 *       the awaiter's own closed section with the token the await gave up, and has a greater token:
 *       a new hold, not the old one kept.
 *   <li>Counters. The fenced counter equals the number of section ends it accepted (no update lost
 *       beyond the refused writes); the raw counter, written without the fence, equals the number
 *       of ends on every name that had no overlap.
 *   <li>Liveness. After every fault healed, every name was acquired again within {@link
 *       TortureSettings#livenessBound()}; a timed {@code tryLock} with a positive time returned
 *       within its deadline + {@link #DEADLINE_TOLERANCE_MILLIS} ms (unless its JVM was paused or
 *       stalled meanwhile; with a time of 0 or less it makes one attempt in the caller's thread, as
 *       {@code tryLock()} does, and is held to its bound); no call hung (a thread still in a call
 *       {@value Worker#DRAIN_SECONDS} s after the stop, an untimed {@code tryLock} or {@code
 *       unlock} over 10 s, a {@code lock()} or an {@code await} over {@value
 *       #LOCK_WAIT_LIMIT_SECONDS} s).
 *   <li>Loss reports. Every {@code LockLostEvent} matches a real loss (another holder started
 *       before the release, or a fault or a stall of the holder's JVM overlapped the hold), and
 *       every stale holder whose JVM lived to release was told: by the listener, by {@code
 *       unlock()} throwing {@code LockLostException}, or by {@code unlock()} reporting the release
 *       unconfirmed ({@code RedisLockException}); a fault outside the model may hide a loss (a
 *       server that lost its data cannot tell a release from a loss), which is counted, not failed.
 * </ol>
 *
 * <ol start="7">
 *   <li>A frozen shard costs only its own holds. While one Cluster master is frozen ({@code
 *       shard-freeze}), and for one lease after, no hold on a name served by another master is
 *       reported lost (a {@code LockLostEvent}, or {@code unlock()} throwing {@code
 *       LockLostException}), unless its JVM stalled for a third of the lease.
 * </ol>
 *
 * <p>The orphan check ({@link Orphans}, check 6) runs after the workers stopped, before this one.
 *
 * <p>Besides: every contract check the workers make during the run (interrupt flags, hold counts,
 * {@code lock()} never giving up) that failed, and every worker thread that died.
 */
final class Checker {
  /**
   * How far past its deadline (beyond the 25 ms the Javadoc states) a timed {@code tryLock} may
   * return before it is a violation: scheduling on a 2-CPU machine that the run itself saturates
   * delays a woken thread by a few hundred ms at times ({@code torture.deadlineToleranceMillis}).
   */
  static final long DEADLINE_TOLERANCE_MILLIS =
      Long.getLong("torture.deadlineToleranceMillis", 500);

  static final long LOCK_WAIT_LIMIT_SECONDS = 60;

  private final TortureSettings settings;
  private final PhaseHistory h;
  private final Map<String, Map<String, Long>> finalState;
  private final PhaseResult result;
  private final Set<String> overlappedNames = new HashSet<>();
  private final List<FaultWindow> scheduled;
  private final Map<String, String> shardOf;

  Checker(
      TortureSettings settings,
      PhaseHistory history,
      Map<String, Map<String, Long>> finalState,
      Map<String, String> shardOf,
      PhaseResult result) {
    this.settings = settings;
    this.h = history;
    this.finalState = finalState;
    this.shardOf = shardOf;
    this.result = result;
    this.scheduled = history.scheduled();
  }

  void check() {
    for (Section s : h.sections) {
      result.row(kindAt(s.start.us())).acquisitions++;
      String kind = TortureKind.kindOf(s.name);
      result.acquisitionsByKind.merge(kind, 1L, Long::sum);
      if (s.form.startsWith("hold:")) {
        String[] parts = s.form.split(":");
        result.handleForms.merge(parts[parts.length - 1], 1L, Long::sum);
        result.handleLocks.merge(parts[1], 1L, Long::sum);
      }
    }
    checkOverlaps();
    checkTokens();
    checkAwaits();
    checkCounters();
    checkLiveness();
    checkLossReports();
    checkFrozenShards();
    for (Rec x : h.problems) {
      result.violation("worker: " + x.f()[1], x.f()[0] + ": " + x.f()[2], List.of(x.line()));
    }
    if (!h.unmatched.isEmpty()) {
      result.violation(
          "history",
          h.unmatched.size() + " write records match no open section",
          h.unmatched.stream().limit(5).map(Rec::line).toList());
    }
  }

  // ---- 1. exclusion ----

  private void checkOverlaps() {
    for (List<Section> list : h.byName.values()) {
      List<Section> active = new ArrayList<>();
      Map<Section, Section> firstOvertaker = new LinkedHashMap<>();
      Map<Section, Section> firstExclusive = new HashMap<>();
      for (Section y : list) {
        active.removeIf(x -> x.endSeq < y.start.seq());
        for (Section x : active) {
          if (x.exclusive() || y.exclusive()) {
            firstOvertaker.putIfAbsent(x, y);
          }
          if (y.exclusive()) {
            firstExclusive.putIfAbsent(x, y);
          }
        }
        active.add(y);
      }
      firstOvertaker.forEach(
          (x, y) -> {
            if (x.exclusive() && y.exclusive() && y.token < x.token) {
              // y's hold is the older one: it was acquired before x's and its start was logged
              // late (its worker was paused in between). The stale section is y, overtaken by x.
              overlap(y, x, x);
            } else {
              overlap(x, y, firstExclusive.get(x));
            }
          });
    }
  }

  /**
   * A stale section {@code x}, and the first section {@code y} that started while it was open (a
   * read and a write, or two exclusive holds): its holder should no longer believe it holds the
   * lock. Its writes from the start of {@code w}, the first exclusive (or write) hold that started
   * while it was open, must all be refused; those it made between a reader's start and {@code w}'s
   * cannot be (a read has no token), and are counted.
   */
  private void overlap(Section x, Section y, Section w) {
    overlappedNames.add(y.name);
    PhaseResult.Row row = result.row(kindAt(y.start.us()));
    row.overlaps++;
    boolean readWrite = !x.exclusive() || !y.exclusive();
    if (readWrite) {
      result.readWriteOverlaps++;
    }
    FaultWindow cause = outOfModelCause(x, y.start.us());
    int refused = 0;
    int accepted = 0;
    int besideReaders = 0;
    boolean stillValid = false;
    for (int i = 1; i < x.writes.size(); i++) {
      Rec write = x.writes.get(i);
      if (write.seq() < y.start.seq()) {
        continue;
      }
      if (x.exclusive()) {
        if (w == null || write.seq() < w.start.seq()) {
          besideReaders++;
        } else if (Section.accepted(write)) {
          accepted++;
        } else {
          refused++;
        }
      }
      stillValid |= Boolean.TRUE.equals(x.validAfter(i));
    }
    row.staleRefused += refused;
    row.staleAccepted += accepted;
    result.staleWritesBesideReaders += besideReaders;
    String what =
        x
            + (x.exclusive() ? "" : " (a read)")
            + " (acquired "
            + x.acqUs
            + ") was still in its section when "
            + y
            + (y.exclusive() ? "" : " (a read)")
            + " started (seq "
            + y.start.seq()
            + ")";
    if (accepted > 0) {
      result.violation(
          "1. stale write accepted",
          what + ": " + accepted + " of its later writes were accepted by the fenced store",
          excerpt(x, w, cause));
    }
    if (stillValid) {
      row.validOverlaps++;
      if (readWrite) {
        result.validReadWriteOverlaps++;
      }
      if (cause == null) {
        String check =
            readWrite
                ? "1. read beside a write"
                : x.afterAwait() || y.afterAwait()
                    ? "1. two valid holders, one after an await"
                    : "1. two valid holders";
        result.violation(
            check,
            what + ", and its isHeldByCurrentThread() was still true after a later write",
            excerpt(x, y, null));
      } else {
        row.explainedOverlaps++;
      }
    }
  }

  /**
   * The fault outside the model that explains an overlap: it began before the later start, which
   * came within lease + longest hold + 1 s of its heal, and the stale holder acquired before the
   * heal.
   */
  private FaultWindow outOfModelCause(Section stale, long laterStartUs) {
    long reach = (settings.lease().toMillis() + settings.maxHold().toMillis() + 1000) * 1000;
    for (FaultWindow f : h.faults) {
      if (!f.inModel
          && f.startUs <= laterStartUs
          && laterStartUs <= f.healUs + reach
          && stale.acqUs <= f.healUs + 1_000_000) {
        return f;
      }
    }
    return null;
  }

  // ---- 2. fencing tokens ----

  private void checkTokens() {
    for (List<Section> list : h.byName.values()) {
      Section max = null;
      for (Section s : list) {
        if (!s.exclusive()) {
          continue;
        }
        if (max == null || s.token > max.token) {
          max = s;
          continue;
        }
        if (s.token == max.token && keptOnEntry(s, max)) {
          continue;
        }
        if (s.token == max.token) {
          result.violation(
              "2. token repeated", s + " has the same token as " + max, excerpt(max, s, null));
        } else if (s.acqUs < max.acqUs && !s.startAccepted) {
          result.row(kindAt(s.start.us())).staleStarts++;
        } else {
          result.violation(
              "2. token decreased",
              s
                  + " (acquired "
                  + s.acqUs
                  + ") started after "
                  + max
                  + " (acquired "
                  + max.acqUs
                  + ") with a smaller token",
              excerpt(max, s, null));
        }
      }
    }
  }

  /**
   * Every section begun on a hold an await re-acquired has a token greater than the hold the await
   * gave up (a new hold, not the old one kept), and follows that hold's section, closed, in its
   * name's history.
   */
  private void checkAwaits() {
    for (List<Section> list : h.byName.values()) {
      for (Section s : list) {
        if (!s.exclusive()) {
          result.readSections++;
        }
        if (!s.afterAwait()) {
          continue;
        }
        result.awaits.merge(s.awaitResult(), 1L, Long::sum);
        long before = s.tokenBeforeAwait();
        Section p = null;
        for (int i = s.index - 1; i >= 0; i--) {
          Section c = list.get(i);
          if (c.holder.equals(s.holder) && c.token == before) {
            p = c;
            break;
          }
        }
        if (p == null || p.end == null || p.endSeq > s.start.seq()) {
          result.violation(
              "2. await without its section",
              s
                  + " began after an await that gave up token "
                  + before
                  + ", but "
                  + s.holder
                  + " has no section with that token that ended before",
              p == null ? List.of(s.start.line()) : excerpt(p, s, null));
        } else if (s.token <= before && !keptOnEntry(s, p)) {
          result.violation(
              "2. await kept its token",
              s
                  + " re-acquired by an await ("
                  + s.awaitResult()
                  + ") has a token not greater than the hold it gave up ("
                  + before
                  + ")",
              excerpt(p, s, null));
        }
      }
    }
  }

  /**
   * Whether section {@code s} goes on the hold of {@code p}, its holder's previous section, which
   * an await interrupted on entry kept (it threw at once without releasing, as the contract says).
   */
  private static boolean keptOnEntry(Section s, Section p) {
    return s.afterAwait()
        && s.awaitResult().equals("interrupted-on-entry")
        && s.holder.equals(p.holder)
        && s.token == p.token
        && s.tokenBeforeAwait() == p.token;
  }

  // ---- 3. counters ----

  private void checkCounters() {
    for (Map.Entry<String, List<Section>> e : h.byName.entrySet()) {
      String name = e.getKey();
      Map<String, Long> state = finalState.get(name);
      if (state == null) {
        continue;
      }
      long ends = 0;
      long acceptedEnds = 0;
      long refusedWrites = 0;
      for (Section s : e.getValue()) {
        if (!s.exclusive()) {
          continue;
        }
        for (int i = 0; i < s.writes.size(); i++) {
          if (!Section.accepted(s.writes.get(i))) {
            refusedWrites++;
          }
        }
        if (s.end != null) {
          ends++;
          if (Section.accepted(s.end)) {
            acceptedEnds++;
          }
        }
      }
      long ctr = state.get("ctr");
      long raw = state.get("raw");
      if (ctr != acceptedEnds) {
        result.violation(
            "3. counter lost an update",
            name
                + ": the fenced counter is "
                + ctr
                + " but "
                + acceptedEnds
                + " section ends were accepted ("
                + (ends - acceptedEnds)
                + " refused)",
            List.of());
      }
      if (state.get("refused") != refusedWrites) {
        result.violation(
            "3. history incomplete",
            name
                + ": the fenced store refused "
                + state.get("refused")
                + " writes, the history"
                + " shows "
                + refusedWrites,
            List.of());
      }
      if (raw != ends) {
        if (overlappedNames.contains(name)) {
          result.rawLost += ends - raw;
        } else {
          result.violation(
              "3. raw counter lost an update without an overlap",
              name
                  + ": the unfenced counter is "
                  + raw
                  + " after "
                  + ends
                  + " section ends, and the history shows no overlap on it",
              List.of());
        }
      }
      result.refusedWrites += refusedWrites;
    }
  }

  // ---- 4. liveness ----

  private void checkLiveness() {
    String bound =
        settings.livenessBound().toMillis()
            + " ms ("
            + settings.longestLivenessBound().toMillis()
            + " ms for the handles' names)";
    for (FaultWindow f : scheduled) {
      PhaseResult.Row row = result.row(f.kind);
      row.faults++;
      row.inModel = f.inModel;
      long unavailable = unavailability(f);
      row.longestUnavailableMillis = Math.max(row.longestUnavailableMillis, unavailable);
      row.longestRecoveryMillis = Math.max(row.longestRecoveryMillis, f.liveMillis);
      if (f.liveMillis == -1) {
        result.violation(
            "4. not acquirable after a fault",
            f.describe()
                + ": not every name was acquired within "
                + bound
                + " after it healed ("
                + lateNames(f)
                + ")",
            f.records.stream().map(Rec::line).toList());
      }
    }
    long toleranceUs = (Worker.DEADLINE_SLACK_MICROS / 1000 + DEADLINE_TOLERANCE_MILLIS) * 1000;
    // A fair waiter or a writer that gave up takes its entry out before it returns (the Javadoc's
    // exception to the 25 ms): one more round trip, bounded by the client's timeouts: a connection
    // (its pooled one broken by a fault, a new one is made: the connect timeout, which the torture
    // sets to the command timeout) and the command's reply (the command timeout).
    long leaveUs = 2 * settings.commandTimeout().toMillis() * 1000;
    for (Rec c : h.calls) {
      String holder = c.f()[0];
      String label = c.f()[2];
      long startUs = Long.parseLong(c.f()[3]);
      long endUs = Long.parseLong(c.f()[4]);
      long deadlineUs = Long.parseLong(c.f()[5]);
      String worker = holder.substring(0, holder.indexOf('.'));
      boolean excused = stalledOrPaused(worker, startUs, endUs);
      if (deadlineUs > 0) {
        long overshootMs = (endUs - deadlineUs) / 1000;
        result.maxOvershootMillis = Math.max(result.maxOvershootMillis, overshootMs);
        long over = endUs - deadlineUs;
        if (over > toleranceUs
            && !(over <= toleranceUs + leaveUs
                && (leaving(holder, startUs, endUs) || label.endsWith(HandleRunner.LEAVES)))) {
          if (excused) {
            result.excusedOvershoots++;
          } else {
            List<String> lines = new ArrayList<>();
            lines.add(c.line());
            h.samples.stream()
                .filter(d -> d.f()[0].equals(holder) && d.us() >= startUs && d.us() <= endUs)
                .forEach(d -> lines.add(d.line()));
            result.violation(
                "4. deadline overrun",
                holder + " " + label + " returned " + overshootMs + " ms after its deadline",
                lines);
          }
        }
      } else {
        long ms = (endUs - startUs) / 1000;
        result.longCalls.merge(label.split("/")[0], ms, Math::max);
        boolean bounded = label.startsWith("tryLock") || label.startsWith("unlock");
        if (!excused && (bounded || ms > LOCK_WAIT_LIMIT_SECONDS * 1000)) {
          result.violation(
              "4. call hung", holder + " " + label + " took " + ms + " ms", List.of(c.line()));
        }
      }
    }
  }

  /** The longest time any name went without a section start around a fault, in ms. */
  private long unavailability(FaultWindow f) {
    long longest = 0;
    for (List<Section> list : h.byName.values()) {
      long previous = Long.MIN_VALUE;
      for (Section s : list) {
        long t = s.start.us();
        if (t < f.startUs) {
          previous = t;
          continue;
        }
        if (previous != Long.MIN_VALUE) {
          longest = Math.max(longest, t - Math.max(previous, f.startUs - 1));
        }
        previous = t;
        if (t >= f.healUs) {
          break;
        }
      }
    }
    return longest / 1000;
  }

  private String lateNames(FaultWindow f) {
    List<String> late = new ArrayList<>();
    for (Map.Entry<String, List<Section>> e : h.byName.entrySet()) {
      long bound = settings.livenessBound(e.getKey()).toMillis() * 1000;
      boolean ok =
          e.getValue().stream()
              .anyMatch(s -> s.start.us() >= f.healUs && s.start.us() <= f.healUs + bound);
      if (!ok) {
        late.add(e.getKey());
      }
    }
    return "late: " + String.join(",", late);
  }

  /** Whether a stack sample of the call shows its wait taking its entry out of Redis. */
  private boolean leaving(String holder, long startUs, long endUs) {
    return h.samples.stream()
        .anyMatch(
            d ->
                d.f()[0].equals(holder)
                    && d.us() >= startUs
                    && d.us() <= endUs
                    && d.line().contains("WaitEntry.leave"));
  }

  private boolean stalledOrPaused(String worker, long fromUs, long toUs) {
    for (Rec g : h.stalls) {
      if (g.f()[0].equals(worker)
          && Long.parseLong(g.f()[1]) < toUs
          && Long.parseLong(g.f()[2]) > fromUs) {
        return true;
      }
    }
    for (FaultWindow f : h.faults) {
      if (f.kind.equals("worker-pause")
          && worker.equals(f.worker())
          && f.startUs < toUs
          && f.healUs > fromUs) {
        return true;
      }
    }
    return false;
  }

  // ---- 5. loss reports ----

  private void checkLossReports() {
    long lease = settings.lease().toMillis() * 1000;
    for (Rec l : h.lost) {
      String worker = l.f()[0];
      String name = l.f()[1];
      long token = Long.parseLong(l.f()[2]);
      long atUs = Long.parseLong(l.f()[3]);
      result.row(kindAt(atUs)).lossEvents++;
      Section x =
          token == 0
              ? null
              : h.byName.getOrDefault(name, List.of()).stream()
                  .filter(s -> s.worker.equals(worker) && s.token == token)
                  .findFirst()
                  .orElse(null);
      long from = x != null ? x.acqUs : atUs - lease - settings.maxHold().toMillis() * 1000;
      boolean real =
          (x != null && overtaker(x) != null)
              || h.faults.stream().anyMatch(f -> f.startUs <= atUs && f.healUs + lease >= from)
              || h.stalls.stream()
                  .anyMatch(
                      g ->
                          g.f()[0].equals(worker)
                              && Long.parseLong(g.f()[2]) >= from
                              && Long.parseLong(g.f()[1]) <= atUs
                              && Long.parseLong(g.f()[2]) - Long.parseLong(g.f()[1]) >= lease / 3);
      if (!real) {
        List<String> lines = new ArrayList<>();
        lines.add(l.line());
        if (x != null) {
          lines.addAll(x.writes.stream().map(Rec::line).toList());
        }
        result.violation(
            "5. loss reported without a loss",
            worker
                + " was told it lost "
                + name
                + " (token "
                + token
                + "), but no other holder took it, no fault was under way and its JVM did not"
                + " stall",
            lines);
      }
    }
    for (Section x : h.sections) {
      if (x.unlock != null && x.unlockOutcome().startsWith("lost")) {
        result.row(kindAt(x.unlockStartUs())).lossExceptions++;
      }
      Section y = x.unlock == null ? null : overtaker(x);
      if (y == null) {
        continue;
      }
      boolean told =
          x.unlockOutcome().startsWith("lost")
              || x.unlockOutcome().startsWith("unconfirmed")
              || x.unlockOutcome().startsWith("closed")
              || h.lost.stream().anyMatch(l -> matches(l, x));
      if (told) {
        continue;
      }
      if (outOfModelCause(x, y.start.us()) != null) {
        result.row(kindAt(y.start.us())).unreportedExplained++;
      } else {
        result.violation(
            "5. loss not reported",
            x
                + " was overtaken by "
                + y
                + " before its release, and was never told (unlock: "
                + x.unlockOutcome()
                + ", no event)",
            excerpt(x, y, null));
      }
    }
  }

  // ---- 7. a frozen shard costs only its own holds ----

  /**
   * While one Cluster master is frozen ({@code shard-freeze}), and for one lease after it resumes,
   * no hold on a name another master serves is lost: neither a {@code LockLostEvent} nor an {@code
   * unlock()} throwing {@code LockLostException}, unless its JVM stalled for a third of the lease
   * meanwhile. Losses on the frozen shard's names are allowed, and counted.
   */
  private void checkFrozenShards() {
    long lease = settings.lease().toMillis() * 1000;
    for (FaultWindow f : scheduled) {
      if (!f.kind.equals("shard-freeze")) {
        continue;
      }
      result.shardFreezes++;
      long to = f.healUs == Long.MAX_VALUE ? Long.MAX_VALUE : f.healUs + lease;
      for (Rec l : h.lost) {
        long atUs = Long.parseLong(l.f()[3]);
        if (atUs >= f.startUs && atUs <= to) {
          frozenShardLoss(f, l.f()[0], l.f()[1], Long.parseLong(l.f()[2]), atUs, l.f()[4], l);
        }
      }
      for (Section x : h.sections) {
        long atUs = x.unlockStartUs();
        if (x.unlockOutcome().startsWith("lost")
            && atUs >= f.startUs
            && atUs <= to
            && h.lost.stream().noneMatch(l -> matches(l, x))) {
          frozenShardLoss(
              f, x.worker, x.name, x.token, atUs, "unlock: LockLostException", x.unlock);
        }
      }
    }
  }

  private void frozenShardLoss(
      FaultWindow f, String worker, String name, long token, long atUs, String how, Rec rec) {
    String shard = shardOf.get(name);
    if (shard == null) {
      return;
    }
    if (shard.equals(f.target)) {
      result.frozenShardLosses++;
      return;
    }
    long lease = settings.lease().toMillis() * 1000;
    if (longStall(worker, atUs - lease, atUs, lease / 3)) {
      result.healthyShardLossesExcused++;
      return;
    }
    List<String> lines = new ArrayList<>(f.records.stream().map(Rec::line).toList());
    lines.add(rec.line());
    result.violation(
        "7. hold lost on a healthy shard",
        worker
            + " lost "
            + name
            + " (token "
            + token
            + ", "
            + shard
            + ") during "
            + f.describe()
            + " for "
            + f.plannedMillis
            + " ms: "
            + how,
        lines);
  }

  /** Whether {@code worker}'s JVM stalled for {@code minUs} or more between the two times. */
  private boolean longStall(String worker, long fromUs, long toUs, long minUs) {
    return h.stalls.stream()
        .anyMatch(
            g ->
                g.f()[0].equals(worker)
                    && Long.parseLong(g.f()[2]) >= fromUs
                    && Long.parseLong(g.f()[1]) <= toUs
                    && Long.parseLong(g.f()[2]) - Long.parseLong(g.f()[1]) >= minUs);
  }

  /** Another holder that started on the name after this one and before it released, or null. */
  private Section overtaker(Section x) {
    List<Section> list = h.byName.get(x.name);
    for (int i = x.index + 1; i < list.size(); i++) {
      Section y = list.get(i);
      if (y.start.us() >= x.unlockStartUs()) {
        break;
      }
      if (y.exclusive() || x.exclusive()) {
        return y;
      }
    }
    return null;
  }

  private static boolean matches(Rec l, Section x) {
    return l.f()[0].equals(x.worker)
        && l.f()[1].equals(x.name)
        && Long.parseLong(l.f()[2]) == x.token;
  }

  // ---- helpers ----

  /** The kind of the scheduled fault whose segment holds the time (until the next one starts). */
  String kindAt(long us) {
    String kind = "(before the first fault)";
    for (FaultWindow f : scheduled) {
      if (f.startUs > us) {
        break;
      }
      kind = f.kind;
    }
    return kind;
  }

  /** The records of both sections and of the faults around them, in history order. */
  private List<String> excerpt(Section x, Section y, FaultWindow cause) {
    Map<Long, String> lines = new TreeMap<>();
    for (Section s : List.of(x, y)) {
      s.writes.forEach(w -> lines.put(w.seq(), w.line()));
      if (s.unlock != null) {
        lines.put(s.unlock.seq(), s.unlock.line());
      }
    }
    long from = Math.min(x.start.us(), y.start.us()) - 5_000_000;
    long to = Math.max(x.endUs == Long.MAX_VALUE ? y.start.us() : x.endUs, y.start.us());
    for (FaultWindow f : h.faults) {
      if (f == cause || (f.startUs <= to && f.healUs >= from)) {
        f.records.forEach(r -> lines.put(r.seq(), r.line()));
      }
    }
    for (Rec l : h.lost) {
      if (l.f()[1].equals(x.name) && l.us() >= from && l.us() <= to + 5_000_000) {
        lines.put(l.seq(), l.line());
      }
    }
    return new ArrayList<>(lines.values());
  }

  /** Sorted, for the report: the rows in the order of the menu. */
  static Map<String, PhaseResult.Row> ordered(Map<String, PhaseResult.Row> rows) {
    return rows.entrySet().stream()
        .sorted(Comparator.comparing(Map.Entry::getKey))
        .collect(
            Collectors.toMap(
                Map.Entry::getKey, Map.Entry::getValue, (a, b) -> a, LinkedHashMap::new));
  }
}
