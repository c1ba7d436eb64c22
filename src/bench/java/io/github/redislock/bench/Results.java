package io.github.redislock.bench;

import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Everything one run measured, collected as it goes and rendered at the end. */
final class Results {
  final BenchSettings settings;
  final ZonedDateTime started;
  final Map<String, String> environment = new LinkedHashMap<>();
  final List<Implementation> implementations = new ArrayList<>();
  final Map<Implementation, String> unavailable = new EnumMap<>(Implementation.class);
  final List<Sample> samples = new ArrayList<>();
  final List<CommandCounts.Result> commands = new ArrayList<>();
  final List<CommandCounts.Result> nestedCommands = new ArrayList<>();
  final List<HeapFootprint.Result> heap = new ArrayList<>();
  final List<RedisFootprint.Result> redis = new ArrayList<>();
  final List<WaitingThreads.Result> waiting = new ArrayList<>();
  final List<PendingAcquisitions.Result> pending = new ArrayList<>();
  final List<ReadWriteRuns.Row> readWrite = new ArrayList<>();
  ConditionWake.Result conditionWake;

  /** The cells whose warm-up ran out of time before their throughput was steady. */
  final List<String> unsteadyWarmUps = new ArrayList<>();

  ZonedDateTime finished;

  Results(BenchSettings settings, ZonedDateTime started) {
    this.settings = settings;
    this.started = started;
  }

  /** The merged rounds of {@code impl} in {@code scenario}; null when it did not run. */
  Aggregate aggregate(Implementation impl, Scenario scenario) {
    return Aggregate.of(
        samples.stream().filter(s -> s.impl() == impl && s.scenario() == scenario).toList());
  }

  /** The command counts of {@code impl}, nested or not; null when not measured. */
  CommandCounts.Result commandsOf(Implementation impl, boolean nested) {
    return (nested ? nestedCommands : commands)
        .stream().filter(r -> r.impl() == impl).findFirst().orElse(null);
  }
}
