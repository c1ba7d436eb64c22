package io.github.redislock.bench;

import io.github.redislock.testing.RedisServer;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.locks.Lock;
import redis.clients.jedis.Jedis;

/**
 * Scenario f: what one uncontended lock+unlock pair costs one implementation, after a warm-up
 * (connections open, scripts cached, code compiled).
 *
 * <p>Statistics slices read deltas of {@code INFO commandstats} (every command executed, including
 * those inside scripts), {@code total_commands_processed} (the same total, as Redis counts it) and
 * the servers' CPU time ({@code used_cpu_user + used_cpu_sys}), and on the client side this JVM's
 * CPU time by thread and the bytes its threads allocated. The caller runs several short slices per
 * implementation, interleaved with the other implementations' slices, because on a small VM the
 * cost of a round trip changes for seconds at a time with where the scheduler puts the client and
 * the server. A last pass runs under a {@code MONITOR} tap, which tells network requests (round
 * trips, unless pipelined) from commands run in scripts (MONITOR slows the server, hence the
 * separate pass). The observers' own {@code INFO} and {@code MONITOR} calls are left out; other
 * idle clients' rare background commands (health-check {@code PING}s) are not, and show as
 * fractions.
 */
final class CommandCounts implements AutoCloseable {
  private static final Set<String> OBSERVER_COMMANDS = Set.of("info", "monitor");
  private static final int WARMUP_PAIRS = 500;

  /**
   * Counts for one implementation, per pair, summed over its servers.
   *
   * @param impl the implementation
   * @param network requests sent over the network, by command (MONITOR)
   * @param scripted commands run inside scripts, by command (MONITOR)
   * @param executed every command executed, by command ({@code INFO commandstats})
   * @param processed {@code total_commands_processed} delta
   * @param serverCpuMicros the servers' CPU time
   * @param clientCpuMicros this JVM's CPU time (all its threads, GC included)
   * @param clientAllocatedBytes bytes allocated by this JVM's threads
   * @param clientCpuByThread the client CPU time by thread ("caller" for the thread running the
   *     pairs, others by name without their numbers; the JVM's own GC and compiler threads, which
   *     are not Java threads, as "JVM (GC, JIT)"), largest first
   */
  record Result(
      Implementation impl,
      Map<String, Double> network,
      Map<String, Double> scripted,
      Map<String, Double> executed,
      double processed,
      double serverCpuMicros,
      double clientCpuMicros,
      double clientAllocatedBytes,
      Map<String, Double> clientCpuByThread) {

    double networkTotal() {
      return network.values().stream().mapToDouble(Double::doubleValue).sum();
    }

    double scriptedTotal() {
      return scripted.values().stream().mapToDouble(Double::doubleValue).sum();
    }

    double executedTotal() {
      return executed.values().stream().mapToDouble(Double::doubleValue).sum();
    }
  }

  private final Implementation impl;
  private final Lock lock;
  private final boolean nested;
  private final List<RedisServer> servers;
  private final List<Jedis> observers = new ArrayList<>();

  // Accumulated over the statistics slices.
  private final Map<String, Long> executed = new TreeMap<>();
  private final Map<String, Long> threadNanos = new TreeMap<>();
  private int statsPairs;
  private long processed;
  private double serverCpuSeconds;
  private long clientCpuNanos;
  private long allocated;

  // From the MONITOR pass.
  private final Map<String, Long> network = new TreeMap<>();
  private final Map<String, Long> scripted = new TreeMap<>();
  private int monitoredPairs;

  /**
   * Prepares to observe one implementation: opens the observers' connections (so that their
   * handshake is not counted) and warms up.
   *
   * @param nested whether the pairs run while the same thread already holds the lock (the reentrant
   *     scenario); the outer acquisition and release are not observed
   * @param warmupPairs pairs run before any observation (at least 500)
   */
  CommandCounts(
      Implementation impl,
      LockUnderTest locks,
      List<RedisServer> servers,
      boolean nested,
      int warmupPairs) {
    this.impl = impl;
    this.nested = nested;
    this.servers = servers;
    this.lock = locks.newLock("bench:commands:" + impl.keyTag() + (nested ? ":nested" : ""));
    try {
      for (RedisServer server : servers) {
        observers.add(server.jedis());
      }
      holdOuter();
      try {
        run(Math.max(WARMUP_PAIRS, warmupPairs));
      } finally {
        releaseOuter();
      }
    } catch (RuntimeException e) {
      close();
      throw e;
    }
  }

  Implementation impl() {
    return impl;
  }

  boolean nested() {
    return nested;
  }

  /** Runs {@code pairs} pairs and adds their server, CPU and allocation deltas. */
  void statsSlice(int pairs) throws InterruptedException {
    holdOuter();
    try {
      statsSliceHeld(pairs);
    } finally {
      releaseOuter();
    }
  }

  private void statsSliceHeld(int pairs) throws InterruptedException {
    Thread.sleep(50); // the previous slice's asynchronous work
    List<ServerStats> before = new ArrayList<>();
    for (Jedis jedis : observers) {
      before.add(ServerStats.read(jedis));
    }
    // The snapshots run on the caller's thread: its own CPU time is read right around the pairs,
    // and the snapshots count only the other threads, so that reading them costs nothing here.
    ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    long callerTid = callerTid();
    Map<Long, Long> tasksBefore = taskCpuNanos();
    Map<Long, Long> threadsBefore = threadCpuNanos();
    long allocatedBefore = allocatedBytes();
    long callerBefore = mx.getCurrentThreadCpuTime();
    run(pairs);
    long caller = mx.getCurrentThreadCpuTime() - callerBefore;
    allocated += allocatedBytes() - allocatedBefore;
    Map<Long, Long> threadsAfter = threadCpuNanos();
    Map<Long, Long> tasksAfter = taskCpuNanos();
    tasksBefore.remove(callerTid);
    tasksAfter.remove(callerTid);
    long others = delta(tasksBefore, tasksAfter);
    clientCpuNanos += caller + others;
    threadNanos.merge("caller", caller, Long::sum);
    addOtherThreads(threadsBefore, threadsAfter);
    Thread.sleep(100); // asynchronous work of the last pair
    long observer = 0;
    for (int i = 0; i < observers.size(); i++) {
      ServerStats after = ServerStats.read(observers.get(i));
      for (Map.Entry<String, Long> e : after.calls.entrySet()) {
        long delta = e.getValue() - before.get(i).calls.getOrDefault(e.getKey(), 0L);
        if (OBSERVER_COMMANDS.contains(e.getKey())) {
          observer += delta;
        } else if (delta > 0) {
          executed.merge(e.getKey(), delta, Long::sum);
        }
      }
      processed += after.processed - before.get(i).processed;
      serverCpuSeconds += after.cpuSeconds - before.get(i).cpuSeconds;
    }
    processed -= observer;
    statsPairs += pairs;
  }

  /** Runs {@code pairs} pairs under MONITOR and counts network and scripted commands. */
  void monitorPass(int pairs) throws InterruptedException {
    holdOuter();
    List<MonitorTap> taps = new ArrayList<>();
    try {
      for (RedisServer server : servers) {
        taps.add(MonitorTap.start(server.host(), server.port()));
      }
      run(pairs);
      Thread.sleep(200); // asynchronous work of the last pair, and MONITOR lines in flight
      for (MonitorTap tap : taps) {
        tap.network().forEach((command, n) -> network.merge(command, n, Long::sum));
        tap.scripted().forEach((command, n) -> scripted.merge(command, n, Long::sum));
      }
    } finally {
      taps.forEach(MonitorTap::close);
      releaseOuter();
    }
    OBSERVER_COMMANDS.forEach(network::remove);
    monitoredPairs += pairs;
  }

  /** The per-pair figures so far. */
  Result result() {
    int n = Math.max(1, statsPairs);
    Map<String, Double> byThread = new LinkedHashMap<>();
    long attributed = threadNanos.values().stream().mapToLong(Long::longValue).sum();
    Map<String, Long> all = new TreeMap<>(threadNanos);
    all.put("JVM (GC, JIT)", Math.max(0, clientCpuNanos - attributed));
    all.entrySet().stream()
        .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
        .forEach(e -> byThread.put(e.getKey(), e.getValue() / 1e3 / n));
    return new Result(
        impl,
        perPair(network, Math.max(1, monitoredPairs)),
        perPair(scripted, Math.max(1, monitoredPairs)),
        perPair(executed, n),
        processed / (double) n,
        serverCpuSeconds * 1e6 / n,
        clientCpuNanos / 1e3 / n,
        allocated / (double) n,
        byThread);
  }

  @Override
  public void close() {
    observers.forEach(Jedis::close);
    observers.clear();
  }

  /**
   * For nested pairs, takes the outer hold; it is only held during this implementation's own slices
   * (a held lock renews in the background, and that must not land in another's counts).
   */
  private void holdOuter() {
    if (nested) {
      lock.lock();
    }
  }

  private void releaseOuter() {
    if (nested) {
      lock.unlock();
    }
  }

  private void run(int pairs) {
    for (int i = 0; i < pairs; i++) {
      lock.lock();
      lock.unlock();
    }
  }

  /** Adds the CPU time of the Java threads other than the caller, by name without numbers. */
  private void addOtherThreads(Map<Long, Long> before, Map<Long, Long> after) {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    long caller = Thread.currentThread().getId();
    for (Map.Entry<Long, Long> e : after.entrySet()) {
      long delta = e.getValue() - before.getOrDefault(e.getKey(), 0L);
      ThreadInfo info = threads.getThreadInfo(e.getKey());
      if (e.getKey() == caller || delta <= 0 || info == null) {
        continue;
      }
      threadNanos.merge(info.getThreadName().replaceAll("[0-9]+", "#"), delta, Long::sum);
    }
  }

  /** The Linux thread id of the calling thread ({@code /proc/thread-self}), or -1. */
  private static long callerTid() {
    try {
      String link =
          java.nio.file.Files.readSymbolicLink(java.nio.file.Path.of("/proc/thread-self"))
              .toString();
      return Long.parseLong(link.substring(link.lastIndexOf('/') + 1));
    } catch (java.io.IOException | RuntimeException e) {
      return -1;
    }
  }

  /**
   * CPU time of this process's threads in nanoseconds, by Linux thread id, from {@code
   * /proc/self/task/<tid>/schedstat} (precise, and it includes the JVM's GC and compiler threads);
   * where Linux does not provide it, the JVM's process figure (counted in 10 ms clock ticks) under
   * id 0.
   */
  private static Map<Long, Long> taskCpuNanos() {
    Map<Long, Long> cpu = new TreeMap<>();
    try (java.util.stream.Stream<java.nio.file.Path> tasks =
        java.nio.file.Files.list(java.nio.file.Path.of("/proc/self/task"))) {
      for (java.nio.file.Path task : tasks.toList()) {
        try {
          String schedstat = java.nio.file.Files.readString(task.resolve("schedstat"));
          cpu.put(
              Long.parseLong(task.getFileName().toString()),
              Long.parseLong(schedstat.substring(0, schedstat.indexOf(' '))));
        } catch (java.io.IOException | RuntimeException e) {
          // the thread ended meanwhile
        }
      }
      return cpu;
    } catch (java.io.IOException | RuntimeException e) {
      cpu.clear();
      cpu.put(
          0L,
          ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
              .getProcessCpuTime());
      return cpu;
    }
  }

  /** The CPU time threads used between two snapshots (a thread that ended in between is lost). */
  private static long delta(Map<Long, Long> before, Map<Long, Long> after) {
    long total = 0;
    for (Map.Entry<Long, Long> e : after.entrySet()) {
      total += Math.max(0, e.getValue() - before.getOrDefault(e.getKey(), 0L));
    }
    return total;
  }

  /** CPU nanoseconds so far of each live thread, by id. */
  private static Map<Long, Long> threadCpuNanos() {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    Map<Long, Long> cpu = new TreeMap<>();
    for (long id : threads.getAllThreadIds()) {
      long nanos = threads.getThreadCpuTime(id);
      if (nanos >= 0) {
        cpu.put(id, nanos);
      }
    }
    return cpu;
  }

  /** Bytes allocated so far by the live threads of this JVM. */
  private static long allocatedBytes() {
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long total = 0;
    for (long bytes : threads.getThreadAllocatedBytes(threads.getAllThreadIds())) {
      total += Math.max(0, bytes);
    }
    return total;
  }

  private static Map<String, Double> perPair(Map<String, Long> counts, int pairs) {
    Map<String, Double> result = new TreeMap<>();
    counts.forEach((command, n) -> result.put(command, n / (double) pairs));
    return result;
  }

  /** Calls per command, commands processed and CPU seconds of one server. */
  private record ServerStats(Map<String, Long> calls, long processed, double cpuSeconds) {
    static ServerStats read(Jedis jedis) {
      Map<String, Long> calls = RedisInfo.commandCalls(jedis);
      long processed = RedisInfo.number(jedis.info("stats"), "total_commands_processed");
      String cpu = jedis.info("cpu");
      return new ServerStats(
          calls,
          processed,
          Double.parseDouble(RedisInfo.field(cpu, "used_cpu_user"))
              + Double.parseDouble(RedisInfo.field(cpu, "used_cpu_sys")));
    }
  }
}
