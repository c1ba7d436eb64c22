package io.github.redislock.torture;

import io.github.redislock.testing.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;
import redis.clients.jedis.resps.Tuple;

/**
 * The orphan check: what the library left in the deployment's servers once every worker stopped and
 * one lease (and a margin) passed. By then every hold was released, or its lease ran out, and every
 * waiter left its queue: no key of the library should be left but the fencing counters ({@code
 * ...:lock-meta} hashes), which outlive their last use by design (wire-protocol.md). Everything
 * else left is reported with its type, its time to live and its contents: a lock key, a fair queue
 * ({@code :lock-fq}, {@code :lock-ft}), read shares or writer intents ({@code :lock-rs}, {@code
 * :lock-wi}), a condition's keys, a holder description. The workers' servers hold nothing else: the
 * history has its own server.
 */
final class Orphans {
  private static final Duration TIMEOUT = Duration.ofSeconds(10);
  private static final int SHOWN_MEMBERS = 10;
  private static final String COUNTER_SUFFIX = ":lock-meta";

  private Orphans() {}

  /** One key left behind. */
  record Orphan(String server, String key, String type, long pttlMillis, String contents) {
    String describe() {
      String ttl =
          pttlMillis == -1
              ? "no expiry"
              : pttlMillis < 0
                  ? "gone meanwhile"
                  : String.format(Locale.ROOT, "TTL %.1f s", pttlMillis / 1000.0);
      return server + ": key '" + key + "' (" + type + ", " + ttl + "): " + contents;
    }
  }

  /** What was found: the keys left, and how many fencing counters (allowed) were left. */
  record Found(List<Orphan> orphans, int counters) {}

  /** Scans every server of {@code servers}: each key left but the fencing counters. */
  static Found find(Map<String, RedisServer> servers) {
    List<Orphan> orphans = new ArrayList<>();
    int counters = 0;
    for (Map.Entry<String, RedisServer> e : servers.entrySet()) {
      try (Jedis j = e.getValue().jedis(TIMEOUT)) {
        for (String key : keys(j)) {
          String type = j.type(key);
          if (type.equals("none")) {
            continue; // expired between the scan and now
          }
          if (type.equals("hash") && key.endsWith(COUNTER_SUFFIX)) {
            counters++;
            continue;
          }
          String contents = contents(j, key, type);
          if (type.equals("zset")) {
            List<String> time = j.time();
            contents +=
                " (server time now: "
                    + (Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000)
                    + " ms)";
          }
          orphans.add(new Orphan(e.getKey(), key, type, j.pttl(key), contents));
        }
      } catch (RuntimeException ex) {
        orphans.add(new Orphan(e.getKey(), "?", "unreadable", -2, "could not scan: " + ex));
      }
    }
    return new Found(orphans, counters);
  }

  private static List<String> keys(Jedis j) {
    List<String> keys = new ArrayList<>();
    String cursor = ScanParams.SCAN_POINTER_START;
    ScanParams params = new ScanParams().count(1000);
    do {
      ScanResult<String> page = j.scan(cursor, params);
      keys.addAll(page.getResult());
      cursor = page.getCursor();
    } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
    return keys;
  }

  private static String contents(Jedis j, String key, String type) {
    return switch (type) {
      case "string" -> "value " + j.get(key);
      case "hash" -> "fields " + j.hgetAll(key);
      case "zset" -> {
        long size = j.zcard(key);
        String members =
            j.zrangeWithScores(key, 0, SHOWN_MEMBERS - 1).stream()
                .map(t -> t.getElement() + "=" + score(t))
                .collect(Collectors.joining(", "));
        yield size + " member(s) [" + members + (size > SHOWN_MEMBERS ? ", ..." : "") + "]";
      }
      case "set" -> "members " + j.smembers(key);
      case "list" -> j.llen(key) + " element(s) " + j.lrange(key, 0, SHOWN_MEMBERS - 1);
      default -> "(" + type + ")";
    };
  }

  private static String score(Tuple t) {
    double s = t.getScore();
    return s == Math.rint(s) ? Long.toString((long) s) : Double.toString(s);
  }
}
