package io.github.redislock.torture;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One phase's history (see {@link HistoryScripts} for the record formats), parsed: the critical
 * sections with their writes and releases, the faults with their windows, and the other records.
 */
final class PhaseHistory {

  /** One record: its type, global sequence number, server time in µs, and its other fields. */
  record Rec(char type, long seq, long us, String[] f, String line) {
    static Rec parse(String line) {
      String[] parts = line.split("\\|", -1);
      return new Rec(
          parts[0].charAt(0),
          Long.parseLong(parts[1]),
          Long.parseLong(parts[2]),
          Arrays.copyOfRange(parts, 3, parts.length),
          line);
    }
  }

  /** One critical section: one hold, from its start record to its end record and release. */
  static final class Section {
    final String holder;
    final String worker;
    final String name;
    final char mode;
    final long token;
    final long acqUs;
    final String form;
    final Rec start;
    final boolean startAccepted;

    /** Every write in order, the start first (S, then W..., then E). */
    final List<Rec> writes = new ArrayList<>();

    Rec end;
    Rec unlock;

    /** Its place among the sections of its name. */
    int index;

    long endSeq = Long.MAX_VALUE;
    long endUs = Long.MAX_VALUE;

    Section(Rec s) {
      this.start = s;
      this.holder = s.f()[0];
      this.worker = holder.substring(0, holder.indexOf('.'));
      this.name = s.f()[1];
      this.mode = s.f()[2].charAt(0);
      this.token = Long.parseLong(s.f()[3]);
      this.acqUs = Long.parseLong(s.f()[4]);
      this.startAccepted = s.f()[5].equals("1");
      this.form = s.f()[8];
      writes.add(s);
    }

    boolean exclusive() {
      return mode != 'r';
    }

    /** Whether this section began on the hold an await re-acquired. */
    boolean afterAwait() {
      return form.startsWith("await:");
    }

    /** How the await before this section ended ({@code signalled}, {@code timeout}...). */
    String awaitResult() {
      return form.split(":")[1];
    }

    /** The token of the hold the await before this section gave up. */
    long tokenBeforeAwait() {
      return Long.parseLong(form.split(":")[2]);
    }

    /** Whether the write was accepted by the fenced store. */
    static boolean accepted(Rec write) {
      return write.type() == 'S' ? write.f()[5].equals("1") : write.f()[4].equals("1");
    }

    /**
     * What {@code isHeldByCurrentThread()} answered right after the write returned: recorded with
     * the next write, or with the release for the last; null when not known (the worker died).
     */
    Boolean validAfter(int index) {
      if (index + 1 < writes.size()) {
        return writes.get(index + 1).f()[5].equals("1");
      }
      if (unlock != null) {
        return unlock.f()[3].equals("1");
      }
      return null;
    }

    /** When the release began (µs), or MAX when unknown. */
    long unlockStartUs() {
      return unlock == null ? Long.MAX_VALUE : Long.parseLong(unlock.f()[4]);
    }

    String unlockOutcome() {
      return unlock == null ? "?" : unlock.f()[6];
    }

    @Override
    public String toString() {
      return holder + " " + name + " token " + token;
    }
  }

  /** One fault, as the nemesis recorded it. */
  static final class FaultWindow {
    final String number;
    final String kind;
    final String target;
    final boolean inModel;
    final long plannedMillis;
    final long startUs;
    final long startSeq;
    long healUs = Long.MAX_VALUE;
    long healSeq = Long.MAX_VALUE;
    long killedSeq = Long.MAX_VALUE;
    long liveMillis = -2;
    final List<Rec> records = new ArrayList<>();

    FaultWindow(Rec r) {
      this.number = r.f()[0];
      this.kind = r.f()[2];
      this.target = r.f()[3];
      this.inModel = r.f()[4].equals("in");
      this.plannedMillis = Long.parseLong(r.f()[5]);
      this.startUs = Long.parseLong(r.f()[6]);
      this.startSeq = r.seq();
    }

    boolean scheduled() {
      return !number.startsWith("u");
    }

    /** The worker a worker fault hits ({@code slot1=w4} gives {@code w4}), else null. */
    String worker() {
      int eq = target.indexOf('=');
      return eq < 0 ? null : target.substring(eq + 1);
    }

    String describe() {
      return "fault #" + number + " " + kind + (target.isEmpty() ? "" : " " + target);
    }
  }

  final String deployment;
  final List<Rec> all = new ArrayList<>();
  final List<Section> sections = new ArrayList<>();
  final Map<String, List<Section>> byName = new LinkedHashMap<>();
  final List<FaultWindow> faults = new ArrayList<>();
  final List<Rec> lost = new ArrayList<>();
  final List<Rec> stalls = new ArrayList<>();
  final List<Rec> calls = new ArrayList<>();
  final List<Rec> problems = new ArrayList<>();
  final List<Rec> samples = new ArrayList<>();
  final List<Rec> summaries = new ArrayList<>();
  final List<Rec> unmatched = new ArrayList<>();
  long firstUs = Long.MAX_VALUE;
  long lastUs;

  PhaseHistory(String deployment, List<String> lines) {
    this.deployment = deployment;
    Map<String, Section> open = new HashMap<>();
    Map<String, Section> closed = new HashMap<>();
    Map<String, FaultWindow> faultByNumber = new HashMap<>();
    for (String line : lines) {
      Rec r = Rec.parse(line);
      all.add(r);
      firstUs = Math.min(firstUs, r.us());
      lastUs = Math.max(lastUs, r.us());
      switch (r.type()) {
        case 'S' -> {
          Section s = new Section(r);
          sections.add(s);
          List<Section> ofName = byName.computeIfAbsent(s.name, k -> new ArrayList<>());
          s.index = ofName.size();
          ofName.add(s);
          open.put(s.holder + "|" + s.name, s);
        }
        case 'W', 'E' -> {
          Section s = open.get(r.f()[0] + "|" + r.f()[1]);
          if (s == null || s.token != Long.parseLong(r.f()[3])) {
            unmatched.add(r);
            continue;
          }
          s.writes.add(r);
          if (r.type() == 'E') {
            s.end = r;
            s.endSeq = r.seq();
            s.endUs = r.us();
            open.remove(s.holder + "|" + s.name);
            closed.put(s.holder + "|" + s.name + "|" + s.token, s);
          }
        }
        case 'U' -> {
          Section s = closed.get(r.f()[0] + "|" + r.f()[1] + "|" + r.f()[2]);
          if (s != null && s.unlock == null) {
            s.unlock = r;
          }
        }
        case 'L' -> lost.add(r);
        case 'G' -> stalls.add(r);
        case 'C' -> calls.add(r);
        case 'X' -> problems.add(r);
        case 'D' -> samples.add(r);
        case 'P' -> summaries.add(r);
        case 'F' -> {
          String number = r.f()[0];
          String phase = r.f()[1];
          FaultWindow w = faultByNumber.get(number);
          if (phase.equals("start")) {
            w = new FaultWindow(r);
            faultByNumber.put(number, w);
            faults.add(w);
          } else if (w != null) {
            switch (phase) {
              case "heal" -> {
                w.healUs = Long.parseLong(r.f()[6]);
                w.healSeq = r.seq();
              }
              case "killed" -> w.killedSeq = r.seq();
              case "live" -> w.liveMillis = Long.parseLong(r.f()[5]);
              default -> {
                // nothing else is recorded
              }
            }
          }
          if (w != null) {
            w.records.add(r);
          }
        }
        default -> {
          // K and anything else: kept in all
        }
      }
    }
    faults.sort(Comparator.comparingLong(f -> f.startUs));
    // A section of a killed worker ends at its kill at the latest.
    for (FaultWindow f : faults) {
      if (f.kind.equals("worker-kill") && f.worker() != null) {
        for (Section s : open.values()) {
          if (s.worker.equals(f.worker()) && s.endSeq == Long.MAX_VALUE) {
            s.endSeq = f.killedSeq;
            s.endUs = f.healUs;
          }
        }
      }
    }
  }

  /** The scheduled faults, in start order. */
  List<FaultWindow> scheduled() {
    return faults.stream().filter(FaultWindow::scheduled).toList();
  }
}
