package io.github.redislock.torture;

import io.github.redislock.testing.RedisServer;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPOutputStream;
import redis.clients.jedis.Jedis;

/**
 * The orchestrator's side of the history server, a {@code redis-server} that no fault touches:
 * records the nemesis's faults, tells the liveness wait when each name was last acquired, and reads
 * the history and the fenced store's final state after a phase.
 */
final class HistoryAdmin implements AutoCloseable {
  private final RedisServer server;
  private final Jedis jedis;
  private final String recordSha;

  HistoryAdmin() {
    server = RedisServer.start();
    jedis = server.jedis(Duration.ofSeconds(30));
    recordSha = jedis.scriptLoad(HistoryScripts.RECORD);
  }

  int port() {
    return server.port();
  }

  synchronized void reset() {
    jedis.flushAll();
  }

  synchronized void record(String text) {
    jedis.evalsha(recordSha, List.of(HistoryScripts.SEQ, HistoryScripts.HISTORY), List.of(text));
  }

  /** When each name's last section started, in µs (0 when never). */
  synchronized long[] lastStarts(List<String> names) {
    List<String> values = jedis.mget(names.stream().map(n -> "last:" + n).toArray(String[]::new));
    long[] out = new long[names.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = values.get(i) == null ? 0 : Long.parseLong(values.get(i));
    }
    return out;
  }

  /** The fenced store's final state per name: fence, ctr, raw, refused, accepted. */
  synchronized Map<String, Map<String, Long>> finalState(List<String> names) {
    Map<String, Map<String, Long>> out = new HashMap<>();
    for (String name : names) {
      Map<String, Long> keys = new HashMap<>();
      for (String k : List.of("fence", "ctr", "raw", "refused", "accepted")) {
        String v = jedis.get(k + ":" + name);
        keys.put(k, v == null ? 0 : Long.parseLong(v));
      }
      out.put(name, keys);
    }
    return out;
  }

  /** Reads the whole history, in order, and writes it gzipped to {@code file}. */
  synchronized List<String> drain(Path file) throws IOException {
    long length = jedis.llen(HistoryScripts.HISTORY);
    List<String> lines = new ArrayList<>((int) length);
    for (long from = 0; from < length; from += 10_000) {
      lines.addAll(jedis.lrange(HistoryScripts.HISTORY, from, Math.min(length, from + 10_000) - 1));
    }
    Files.createDirectories(file.getParent());
    try (BufferedWriter out =
        new BufferedWriter(
            new OutputStreamWriter(
                new GZIPOutputStream(Files.newOutputStream(file)), StandardCharsets.UTF_8))) {
      for (String line : lines) {
        out.write(line);
        out.newLine();
      }
    }
    return lines;
  }

  @Override
  public void close() {
    jedis.close();
    server.close();
  }
}
