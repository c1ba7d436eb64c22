package io.github.redislock.bench;

import java.util.HashMap;
import java.util.Map;
import redis.clients.jedis.Jedis;

/** Reads fields of {@code INFO} replies, summed over servers where that makes sense. */
final class RedisInfo {
  private RedisInfo() {}

  /** The value of {@code field} in an {@code INFO} reply, or {@code ""} when absent. */
  static String field(String info, String field) {
    String prefix = field + ":";
    return info.lines()
        .filter(line -> line.startsWith(prefix))
        .map(line -> line.substring(prefix.length()).trim())
        .findFirst()
        .orElse("");
  }

  /** A numeric {@code INFO} field, 0 when absent. */
  static long number(String info, String field) {
    String value = field(info, field);
    return value.isEmpty() ? 0 : Long.parseLong(value);
  }

  /**
   * The calls per command from {@code INFO commandstats}: {@code cmdstat_evalsha:calls=3,...}
   * becomes {@code evalsha -> 3}.
   */
  static Map<String, Long> commandCalls(Jedis jedis) {
    Map<String, Long> calls = new HashMap<>();
    for (String line : jedis.info("commandstats").lines().toList()) {
      if (!line.startsWith("cmdstat_")) {
        continue;
      }
      int colon = line.indexOf(':');
      String command = line.substring("cmdstat_".length(), colon);
      String stats = line.substring(colon + 1);
      int start = stats.indexOf("calls=") + "calls=".length();
      int end = stats.indexOf(',', start);
      calls.put(command, Long.parseLong(stats.substring(start, end < 0 ? stats.length() : end)));
    }
    return calls;
  }
}
