package io.github.redislock.bench;

import io.github.redislock.testing.RedisServer;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.locks.Lock;
import redis.clients.jedis.Jedis;

/**
 * Scenario f: what one uncontended lock+unlock pair costs, after a warm-up (connections open,
 * scripts cached), in two passes over the implementation's servers.
 *
 * <p>The first pass runs five times the given number of pairs and reads deltas of
 * {@code INFO commandstats} (every command executed, including those inside scripts),
 * {@code total_commands_processed} (the same total, as Redis counts it) and the servers' CPU time
 * ({@code used_cpu_user + used_cpu_sys}), and on the client side this JVM's CPU time and the bytes
 * its threads allocated. The second pass runs the given number of pairs under a {@code MONITOR}
 * tap, which tells network requests (round trips, unless pipelined) from commands run in scripts
 * (MONITOR slows the server, hence the separate passes). The observers' own {@code INFO} and
 * {@code MONITOR} calls are left out; other idle clients' rare background commands (health-check
 * {@code PING}s) are not, and show as fractions.
 */
final class CommandCounts {
  private static final Set<String> OBSERVER_COMMANDS = Set.of("info", "monitor");
  private static final int WARMUP_PAIRS = 500;
  private static final int STATS_PASS_FACTOR = 5;

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
   *     pairs, others by name without their numbers; the JVM's own GC and compiler threads,
   *     which are not Java threads, as "JVM (GC, JIT)")
   */
  record Result(Implementation impl, Map<String, Double> network, Map<String, Double> scripted,
      Map<String, Double> executed, double processed, double serverCpuMicros,
      double clientCpuMicros, double clientAllocatedBytes,
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

  private CommandCounts() {}

  /**
   * Observes lock+unlock pairs.
   *
   * @param pairs pairs under MONITOR; five times as many for the statistics pass
   * @param nested whether the pairs run while the same thread already holds the lock (the
   *     reentrant scenario); the outer acquisition and release are not observed
   */
  static Result measure(Implementation impl, LockUnderTest locks, List<RedisServer> servers,
      int pairs, boolean nested) throws InterruptedException {
    Lock lock = locks.newLock("bench:commands:" + impl.id() + (nested ? ":nested" : ""));
    if (nested) {
      lock.lock();
    }
    List<Jedis> observers = new ArrayList<>();
    try {
      for (RedisServer server : servers) {
        observers.add(server.jedis()); // opened before the passes: its handshake is not counted
      }
      run(lock, Math.max(WARMUP_PAIRS, pairs * 2)); // long enough for the JIT to settle
      Thread.sleep(100);
      return measure(impl, lock, servers, observers, pairs);
    } finally {
      observers.forEach(Jedis::close);
      if (nested) {
        lock.unlock();
      }
    }
  }

  private static Result measure(Implementation impl, Lock lock, List<RedisServer> servers,
      List<Jedis> observers, int pairs) throws InterruptedException {
    int statsPairs = pairs * STATS_PASS_FACTOR;
    List<ServerStats> before = new ArrayList<>();
    for (Jedis jedis : observers) {
      before.add(ServerStats.read(jedis));
    }
    Map<Long, Long> threadsBefore = threadCpuNanos();
    long cpuBefore = processCpuNanos();
    long allocatedBefore = allocatedBytes();
    run(lock, statsPairs);
    long allocated = allocatedBytes() - allocatedBefore;
    long cpu = processCpuNanos() - cpuBefore;
    Map<String, Double> byThread = byThread(threadsBefore, threadCpuNanos(), cpu, statsPairs);
    Thread.sleep(200); // asynchronous work of the last pair
    Map<String, Long> executed = new TreeMap<>();
    long processed = 0;
    long observer = 0;
    double serverCpu = 0;
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
      serverCpu += after.cpuSeconds - before.get(i).cpuSeconds;
    }

    Map<String, Long> network = new TreeMap<>();
    Map<String, Long> scripted = new TreeMap<>();
    List<MonitorTap> taps = new ArrayList<>();
    try {
      for (RedisServer server : servers) {
        taps.add(MonitorTap.start(server.host(), server.port()));
      }
      run(lock, pairs);
      Thread.sleep(200); // asynchronous work of the last pair, and MONITOR lines in flight
      for (MonitorTap tap : taps) {
        tap.network().forEach((command, n) -> network.merge(command, n, Long::sum));
        tap.scripted().forEach((command, n) -> scripted.merge(command, n, Long::sum));
      }
    } finally {
      taps.forEach(MonitorTap::close);
    }
    OBSERVER_COMMANDS.forEach(network::remove);
    return new Result(impl, perPair(network, pairs), perPair(scripted, pairs),
        perPair(executed, statsPairs), (processed - observer) / (double) statsPairs,
        serverCpu * 1e6 / statsPairs, cpu / 1e3 / statsPairs, allocated / (double) statsPairs,
        byThread);
  }

  private static void run(Lock lock, int pairs) {
    for (int i = 0; i < pairs; i++) {
      lock.lock();
      lock.unlock();
    }
  }

  private static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean)
        ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
  }

  /** CPU nanoseconds so far of each live thread, by id. */
  private static Map<Long, Long> threadCpuNanos() {
    java.lang.management.ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    Map<Long, Long> cpu = new TreeMap<>();
    for (long id : threads.getAllThreadIds()) {
      long nanos = threads.getThreadCpuTime(id);
      if (nanos >= 0) {
        cpu.put(id, nanos);
      }
    }
    return cpu;
  }

  /**
   * Microseconds per pair by thread name (digits dropped, so pools add up), largest first; the
   * rest of the process CPU time as "JVM (GC, JIT)".
   */
  private static Map<String, Double> byThread(Map<Long, Long> before, Map<Long, Long> after,
      long processNanos, int pairs) {
    java.lang.management.ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    long caller = Thread.currentThread().getId();
    Map<String, Long> nanos = new TreeMap<>();
    long attributed = 0;
    for (Map.Entry<Long, Long> e : after.entrySet()) {
      long delta = e.getValue() - before.getOrDefault(e.getKey(), 0L);
      java.lang.management.ThreadInfo info = threads.getThreadInfo(e.getKey());
      if (delta <= 0 || info == null) {
        continue;
      }
      String name = e.getKey() == caller ? "caller"
          : info.getThreadName().replaceAll("[0-9]+", "#");
      nanos.merge(name, delta, Long::sum);
      attributed += delta;
    }
    nanos.put("JVM (GC, JIT)", Math.max(0, processNanos - attributed));
    Map<String, Double> result = new java.util.LinkedHashMap<>();
    nanos.entrySet().stream()
        .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
        .forEach(e -> result.put(e.getKey(), e.getValue() / 1e3 / pairs));
    return result;
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
      return new ServerStats(calls, processed,
          Double.parseDouble(RedisInfo.field(cpu, "used_cpu_user"))
              + Double.parseDouble(RedisInfo.field(cpu, "used_cpu_sys")));
    }
  }
}
