package io.github.redislock.testing;

import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.commands.ProtocolCommand;
import redis.clients.jedis.exceptions.JedisConnectionException;

/**
 * States a running {@link RedisServer} can be put in, in which it refuses lock commands: a replica
 * ({@code READONLY}, or {@code MASTERDOWN} without stale data), loading its dataset ({@code
 * LOADING}); whether it answers at all; and how many times it refused.
 */
public final class ServerStates {
  private static final ProtocolCommand DEBUG = () -> "DEBUG".getBytes(StandardCharsets.US_ASCII);
  private static final int FILLER_KEYS = 30_000;

  private ServerStates() {}

  /**
   * Makes {@code server} a replica of a master that is not there, keeping its data: writes get
   * {@code READONLY}, or, with {@code refuseStaleData}, every data command {@code MASTERDOWN}.
   *
   * @param server the server
   * @param refuseStaleData whether to set {@code replica-serve-stale-data no}
   */
  public static void demote(RedisServer server, boolean refuseStaleData) {
    try (Jedis raw = server.jedis()) {
      raw.configSet("replica-serve-stale-data", refuseStaleData ? "no" : "yes");
      raw.replicaof("127.0.0.1", RedisServer.freePort());
    }
  }

  /**
   * Makes a server {@linkplain #demote demoted} a master again.
   *
   * @param server the server
   */
  public static void promote(RedisServer server) {
    try (Jedis raw = server.jedis()) {
      raw.replicaofNoOne();
      raw.configSet("replica-serve-stale-data", "yes");
    }
  }

  /**
   * Makes {@code server} reload its dataset ({@code DEBUG RELOAD}) slowly, for about 3 s: see
   * {@link #startLoading(RedisServer, Duration)}.
   *
   * @param server the server
   * @return completes when the reload ends
   */
  public static CompletableFuture<Void> startLoading(RedisServer server) {
    return startLoading(server, Duration.ofSeconds(3));
  }

  /**
   * Makes {@code server} reload its dataset ({@code DEBUG RELOAD}) slowly: 30,000 filler keys are
   * written first, each read back late ({@code key-load-delay}) so that the reload lasts about
   * {@code length}, while the server answers others {@code LOADING} ({@code
   * loading-process-events-interval-bytes 1024}). Returns once the server is loading.
   *
   * @param server the server
   * @param length how long the loading should last, at least
   * @return completes when the reload ends; the filler keys (without expiry) stay: use a server of
   *     the test's own
   */
  public static CompletableFuture<Void> startLoading(RedisServer server, Duration length) {
    long delayMicros = Math.max(1, length.toNanos() / 1000 / FILLER_KEYS);
    try (Jedis raw = server.jedis()) {
      raw.configSet("loading-process-events-interval-bytes", "1024");
      raw.configSet("key-load-delay", Long.toString(delayMicros));
      raw.sendCommand(DEBUG, "POPULATE", Integer.toString(FILLER_KEYS), "filler");
    }
    Duration reloadTimeout = Timing.awaitAtMost().plus(Timing.scaled(length.multipliedBy(3)));
    CompletableFuture<Void> reload =
        CompletableFuture.runAsync(
            () -> {
              try (Jedis raw = server.jedis(reloadTimeout)) {
                raw.sendCommand(DEBUG, "RELOAD");
                raw.configSet("key-load-delay", "0");
              }
            });
    await("the server is loading")
        .atMost(Timing.awaitAtMost())
        .until(() -> isLoading(server) || reload.isDone());
    return reload;
  }

  private static boolean isLoading(RedisServer server) {
    try (Jedis raw = server.jedis()) {
      return raw.info("persistence").lines().anyMatch(line -> line.trim().equals("loading:1"));
    }
  }

  /**
   * Whether {@code server} leaves a {@code PING} unanswered for 200 ms: it is busy in a command,
   * such as {@code DEBUG SLEEP}, or stopped.
   *
   * @param server the server
   * @return whether it did not answer in time
   */
  public static boolean isUnresponsive(RedisServer server) {
    try (Jedis raw = server.jedis(Duration.ofMillis(200))) {
      raw.ping();
      return false;
    } catch (JedisConnectionException e) {
      return true;
    }
  }

  /**
   * How many error replies starting with {@code error} the server sent ({@code INFO errorstats}).
   *
   * @param server the server
   * @param error for example {@code "READONLY"}
   * @return the count
   */
  public static long errorCount(RedisServer server, String error) {
    try (Jedis raw = server.jedis()) {
      for (String line : raw.info("errorstats").lines().toList()) {
        if (line.startsWith("errorstat_" + error + ":count=")) {
          return Long.parseLong(line.substring(line.indexOf('=') + 1).trim());
        }
      }
    }
    return 0;
  }
}
