package io.github.redislock.bench;

import io.github.redislock.testing.RedisServer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.locks.Lock;
import redis.clients.jedis.Jedis;

/**
 * Scenario f: Redis commands per uncontended lock+unlock pair. After a warm-up (connections open,
 * scripts cached), a fixed number of pairs runs while the servers are observed three ways:
 * {@code INFO commandstats} deltas (every command executed, including those inside scripts),
 * {@code INFO stats total_commands_processed} (the same total, as Redis counts it), and a MONITOR
 * tap that tells network requests (round trips, unless pipelined) from script-internal commands.
 * The observers' own {@code INFO}/{@code MONITOR} calls are left out; other idle clients' rare
 * background commands (health-check {@code PING}s) are not, and show as fractions.
 */
final class CommandCounts {
  private static final Set<String> OBSERVER_COMMANDS = Set.of("info", "monitor");
  private static final int WARMUP_PAIRS = 50;

  /**
   * Counts for one implementation, per pair, summed over its servers.
   *
   * @param impl the implementation
   * @param network requests sent over the network, by command (MONITOR)
   * @param scripted commands run inside scripts, by command (MONITOR)
   * @param executed every command executed, by command ({@code INFO commandstats})
   * @param processed {@code total_commands_processed} delta
   * @param note remarks, empty when none
   */
  record Result(Implementation impl, Map<String, Double> network, Map<String, Double> scripted,
      Map<String, Double> executed, double processed, String note) {

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
   * Observes {@code pairs} lock+unlock pairs.
   *
   * @param nested whether the pairs run while the same thread already holds the lock (the
   *     reentrant scenario); the outer acquisition and release are not observed
   */
  static Result measure(Implementation impl, LockUnderTest locks, List<RedisServer> servers,
      int pairs, boolean nested) throws InterruptedException {
    Lock lock = locks.newLock("bench:commands:" + impl.id() + (nested ? ":nested" : ""));
    if (nested) {
      lock.lock();
    }
    try {
      for (int i = 0; i < WARMUP_PAIRS; i++) {
        lock.lock();
        lock.unlock();
      }
      Thread.sleep(100);
      List<Jedis> observers = new ArrayList<>();
      try {
        for (RedisServer server : servers) {
          observers.add(server.jedis()); // opened before the window: its handshake is not counted
        }
        return observe(impl, lock, servers, observers, pairs);
      } finally {
        observers.forEach(Jedis::close);
      }
    } finally {
      if (nested) {
        lock.unlock();
      }
    }
  }

  private static Result observe(Implementation impl, Lock lock, List<RedisServer> servers,
      List<Jedis> observers, int pairs) throws InterruptedException {
    List<Map<String, Long>> before = new ArrayList<>();
    List<Long> processedBefore = new ArrayList<>();
    for (Jedis jedis : observers) {
      before.add(RedisInfo.commandCalls(jedis));
      processedBefore.add(RedisInfo.number(jedis.info("stats"), "total_commands_processed"));
    }
    List<MonitorTap> taps = new ArrayList<>();
    Map<String, Long> network = new TreeMap<>();
    Map<String, Long> scripted = new TreeMap<>();
    try {
      for (RedisServer server : servers) {
        taps.add(MonitorTap.start(server.host(), server.port()));
      }
      for (int i = 0; i < pairs; i++) {
        lock.lock();
        lock.unlock();
      }
      Thread.sleep(200); // asynchronous work of the last pair, and MONITOR lines in flight
      for (MonitorTap tap : taps) {
        tap.network().forEach((command, n) -> network.merge(command, n, Long::sum));
        tap.scripted().forEach((command, n) -> scripted.merge(command, n, Long::sum));
      }
    } finally {
      taps.forEach(MonitorTap::close);
    }
    Map<String, Long> executed = new TreeMap<>();
    long processed = 0;
    long observer = 0;
    for (int i = 0; i < observers.size(); i++) {
      Jedis jedis = observers.get(i);
      Map<String, Long> after = RedisInfo.commandCalls(jedis);
      long processedAfter = RedisInfo.number(jedis.info("stats"), "total_commands_processed");
      for (Map.Entry<String, Long> e : after.entrySet()) {
        long delta = e.getValue() - before.get(i).getOrDefault(e.getKey(), 0L);
        if (OBSERVER_COMMANDS.contains(e.getKey())) {
          observer += delta;
        } else if (delta > 0) {
          executed.merge(e.getKey(), delta, Long::sum);
        }
      }
      processed += processedAfter - processedBefore.get(i);
    }
    OBSERVER_COMMANDS.forEach(network::remove);
    return new Result(impl, perPair(network, pairs), perPair(scripted, pairs),
        perPair(executed, pairs), (processed - observer) / (double) pairs, "");
  }

  private static Map<String, Double> perPair(Map<String, Long> counts, int pairs) {
    Map<String, Double> result = new TreeMap<>();
    counts.forEach((command, n) -> result.put(command, n / (double) pairs));
    return result;
  }
}
