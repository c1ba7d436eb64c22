package io.github.redislock.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * How busy the rest of the machine was during the run, from {@code /proc} (Linux only; elsewhere it
 * reports nothing): the share of all CPU time used by processes other than this benchmark and what
 * it started (its servers, its child JVMs), and the share stolen by the hypervisor. A busy
 * neighbour shows here; its effect on the numbers is what the rounds' spread shows.
 */
final class MachineLoad {
  private final long[] start;

  private MachineLoad(long[] start) {
    this.start = start;
  }

  static MachineLoad start() {
    return new MachineLoad(sample());
  }

  /** One line for the report, or an empty string where {@code /proc} is unavailable. */
  String describe() {
    long[] end = sample();
    if (start == null || end == null) {
      return "";
    }
    double total = end[0] - start[0];
    double busy = end[1] - start[1];
    double steal = end[2] - start[2];
    double ours = end[3] - start[3];
    if (total <= 0) {
      return "";
    }
    return String.format(
        Locale.ROOT,
        "other processes used %.0f%% of the machine's CPU time during the run, the hypervisor"
            + " stole %.0f%%, this benchmark and what it started %.0f%% (with the keep-awake"
            + " spinner, if any)",
        100 * Math.max(0, busy - ours) / total,
        100 * steal / total,
        100 * ours / total);
  }

  /** {total, busy, steal, ours} in clock ticks, or null. */
  private static long[] sample() {
    try {
      String[] cpu = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
      long user = Long.parseLong(cpu[1]);
      long nice = Long.parseLong(cpu[2]);
      long system = Long.parseLong(cpu[3]);
      long idle = Long.parseLong(cpu[4]);
      long iowait = Long.parseLong(cpu[5]);
      long irq = Long.parseLong(cpu[6]);
      long softirq = Long.parseLong(cpu[7]);
      long steal = cpu.length > 8 ? Long.parseLong(cpu[8]) : 0;
      long busy = user + nice + system + irq + softirq;
      long total = busy + idle + iowait + steal;
      long ours = ticks(ProcessHandle.current().pid());
      for (ProcessHandle child : ProcessHandle.current().descendants().toList()) {
        ours += ticks(child.pid());
      }
      return new long[] {total, busy, steal, ours};
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  /** utime + stime + the reaped children's cutime + cstime of a process; 0 when it is gone. */
  private static long ticks(long pid) {
    try {
      String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
      List<String> fields = List.of(stat.substring(stat.lastIndexOf(')') + 2).split(" "));
      return Long.parseLong(fields.get(11))
          + Long.parseLong(fields.get(12))
          + Long.parseLong(fields.get(13))
          + Long.parseLong(fields.get(14));
    } catch (IOException | RuntimeException e) {
      return 0;
    }
  }
}
