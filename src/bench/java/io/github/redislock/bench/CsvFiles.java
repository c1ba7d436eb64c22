package io.github.redislock.bench;

import static io.github.redislock.bench.Histograms.micros;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;

/**
 * The raw numbers as CSV: {@code samples.csv} (one row per implementation, scenario and round),
 * {@code percentiles.csv} (the merged latency distributions, as plotted) and one file per extra
 * measurement.
 */
final class CsvFiles {
  private CsvFiles() {}

  static void write(Results results, Path dir) throws IOException {
    List<String> rows = new ArrayList<>();
    rows.add(
        "implementation,scenario,round,ops,seconds,ops_per_s,p50_us,p90_us,p99_us,p999_us,"
            + "max_us,handoff_p50_us,handoff_p99_us,violations,per_jvm_ops,cross_jvm_moves,note");
    for (Sample s : results.samples) {
      Histogram h = s.latency();
      Histogram handoff = s.handoff();
      rows.add(
          String.join(
              ",",
              s.impl().id(),
              s.scenario().id(),
              Integer.toString(s.round()),
              Long.toString(s.ops()),
              num(s.nanos() / 1e9),
              num(s.opsPerSecond()),
              num(micros(h, 50)),
              num(micros(h, 90)),
              num(micros(h, 99)),
              num(micros(h, 99.9)),
              num(h.getMaxValue() / 1000.0),
              handoff == null ? "" : num(micros(handoff, 50)),
              handoff == null ? "" : num(micros(handoff, 99)),
              Long.toString(s.violations()),
              String.join(" ", s.perJvmOps().stream().map(String::valueOf).toList()),
              Long.toString(s.crossJvmMoves()),
              quote(s.note())));
    }
    write(dir.resolve("samples.csv"), rows);

    rows = new ArrayList<>();
    rows.add("implementation,scenario,percentile,latency_us");
    for (Implementation impl : results.implementations) {
      for (Scenario scenario : Scenario.values()) {
        Aggregate a = results.aggregate(impl, scenario);
        if (a == null || !a.hasNumbers()) {
          continue;
        }
        for (HistogramIterationValue v : a.latency().percentiles(5)) {
          rows.add(
              String.join(
                  ",",
                  impl.id(),
                  scenario.id(),
                  num(v.getPercentileLevelIteratedTo()),
                  num(v.getValueIteratedTo() / 1000.0)));
        }
      }
    }
    write(dir.resolve("percentiles.csv"), rows);

    rows = new ArrayList<>();
    rows.add(
        "implementation,nested,requests_per_pair,requests_by_command,in_scripts_per_pair,"
            + "commandstats_per_pair,processed_per_pair,server_cpu_us,client_cpu_us,client_bytes");
    for (boolean nested : new boolean[] {false, true}) {
      for (CommandCounts.Result c : nested ? results.nestedCommands : results.commands) {
        rows.add(
            String.join(
                ",",
                c.impl().id(),
                Boolean.toString(nested),
                num(c.networkTotal()),
                quote(c.network().toString()),
                num(c.scriptedTotal()),
                num(c.executedTotal()),
                num(c.processed()),
                num(c.serverCpuMicros()),
                num(c.clientCpuMicros()),
                num(c.clientAllocatedBytes())));
      }
    }
    write(dir.resolve("commands.csv"), rows);

    rows = new ArrayList<>();
    rows.add("implementation,locks,bytes_per_idle_lock,bytes_per_held_lock,note");
    for (HeapFootprint.Result h : results.heap) {
      rows.add(
          String.join(
              ",",
              h.impl().id(),
              Integer.toString(h.count()),
              num(h.bytesPerIdleLock()),
              num(h.bytesPerHeldLock()),
              quote(h.note())));
    }
    write(dir.resolve("heap.csv"), rows);

    rows = new ArrayList<>();
    rows.add("implementation,names,seconds,keys_left,keys_without_ttl,used_memory_delta,note");
    for (RedisFootprint.Result r : results.redis) {
      rows.add(
          String.join(
              ",",
              r.impl().id(),
              Integer.toString(r.names()),
              num(r.seconds()),
              Long.toString(r.keysLeft()),
              Long.toString(r.keysWithoutTtl()),
              Long.toString(r.memoryDelta()),
              quote(r.note())));
    }
    write(dir.resolve("redis-memory.csv"), rows);

    rows = new ArrayList<>();
    rows.add(
        "implementation,waiters,connections,subscribed_connections,channels,subscriptions,"
            + "commands_per_s,threads_added,note");
    for (WaitingThreads.Result w : results.waiting) {
      rows.add(
          String.join(
              ",",
              w.impl().id(),
              Integer.toString(w.waiters()),
              Long.toString(w.connections()),
              Long.toString(w.subscribedConnections()),
              Long.toString(w.channels()),
              Long.toString(w.subscriptions()),
              num(w.commandsPerSecond()),
              Integer.toString(w.threadsAdded()),
              quote(w.note())));
    }
    write(dir.resolve("waiting.csv"), rows);

    if (!results.pending.isEmpty()) {
      rows = new ArrayList<>();
      rows.add(
          "form,names,acquisitions,threads_added,heap_added_bytes,threads_per_acquisition,"
              + "heap_bytes_per_acquisition,completed,drain_ms,note");
      for (PendingAcquisitions.Result p : results.pending) {
        rows.add(
            String.join(
                ",",
                quote(p.form()),
                Integer.toString(p.names()),
                Integer.toString(p.count()),
                Long.toString(p.threadsAdded()),
                Long.toString(p.heapAdded()),
                num(p.threadsPerAcquisition()),
                num(p.heapPerAcquisition()),
                Integer.toString(p.completed()),
                Long.toString(p.drainMillis()),
                quote(p.note())));
      }
      write(dir.resolve("pending.csv"), rows);
    }
  }

  private static String num(double value) {
    return String.format(Locale.ROOT, "%.3f", value);
  }

  private static String quote(String text) {
    return "\"" + text.replace("\"", "\"\"") + "\"";
  }

  private static void write(Path file, List<String> rows) throws IOException {
    Files.write(file, rows, StandardCharsets.UTF_8);
  }
}
