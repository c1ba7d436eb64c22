package io.github.redislock.testing;

import static org.awaitility.Awaitility.await;

import io.github.redislock.RedisLockFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/**
 * Leak checks to run after a test: no immortal keys, no forgotten subscriptions, no stray threads.
 *
 * <p>The checks that may race with asynchronous clean-up (unsubscribes, thread exits) are retried
 * with Awaitility for up to {@link Timing#CLEAN_UP}; failures say what leaked.
 */
public final class RedisInvariants {

  private static final Duration POLL_INTERVAL = Duration.ofMillis(20);
  private static final int SCAN_COUNT = 1000;
  private static final int MAX_LISTED = 50;
  private static final String REDIS_INTERNAL_CHANNELS = "__sentinel__:";

  private RedisInvariants() {}

  /**
   * The end of a test that used {@code factories} and {@code threads} on {@code server}, in its
   * {@code @AfterEach}: thaws the server if the test left it frozen, stops the threads, checks that
   * no factory still renews a hold, closes the factories and checks that no key of {@code gone} is
   * left. The {@link LeakCheck} of the {@link IntegrationTest} then checks that no {@code
   * redis-lock-} thread, key without a TTL or subscription is left, and flushes the server.
   *
   * @param server the server the test used
   * @param threads the test's threads, or {@code null}
   * @param factories the factories the test built
   * @param gone keys that must not exist any more (lock keys after their last unlock)
   */
  public static void closeAfterTest(
      RedisServer server, ExecutorService threads, List<RedisLockFactory> factories, String... gone)
      throws InterruptedException {
    if (server.isPaused()) {
      server.resume();
    }
    if (threads != null) {
      threads.shutdownNow();
      if (!threads.awaitTermination(10, TimeUnit.SECONDS)) {
        throw new AssertionError("the test's threads did not end");
      }
    }
    for (RedisLockFactory factory : factories) {
      if (factory.activity().renewingHoldCount() != 0) {
        throw new AssertionError(
            "renewals still running: " + factory.activity().renewingHoldCount());
      }
      factory.close();
    }
    try (Jedis jedis = server.jedis()) {
      for (String key : gone) {
        if (jedis.exists(key)) {
          throw new AssertionError("key '" + key + "' is left");
        }
      }
    }
  }

  /**
   * The end of a test on a server it closes itself (which the {@link LeakCheck} does not inspect):
   * {@link #closeAfterTest}, then checks that no {@code redis-lock-} thread, key without a TTL or
   * subscription is left, and flushes the server.
   *
   * @param server the server the test used
   * @param threads the test's threads, or {@code null}
   * @param factories the factories the test built
   * @param gone keys that must not exist any more (lock keys after their last unlock)
   */
  public static void assertCleanAfterTest(
      RedisServer server, ExecutorService threads, List<RedisLockFactory> factories, String... gone)
      throws InterruptedException {
    closeAfterTest(server, threads, factories, gone);
    assertNoThreads(LeakCheck.LIBRARY_THREADS);
    try (Jedis jedis = server.jedis()) {
      assertNoKeysWithoutTtl(jedis);
      assertNoSubscriptions(jedis);
      jedis.flushAll();
    }
  }

  /**
   * Asserts every key in the connection's current database expires: a lock library must never leave
   * a key that lives forever. Keys that expire while scanning are ignored.
   *
   * @param j a raw connection to the server to check
   * @throws AssertionError listing each key without a TTL and its type
   */
  public static void assertNoKeysWithoutTtl(Jedis j) {
    List<String> offenders = new ArrayList<>();
    for (String key : keys(j)) {
      if (j.pttl(key) == -1) { // -2: expired meanwhile; >= 0: expires
        offenders.add(key + " (" + j.type(key) + ")");
      }
    }
    if (!offenders.isEmpty()) {
      throw new AssertionError(offenders.size() + " key(s) without a TTL: " + limit(offenders));
    }
  }

  /**
   * Asserts the connection's current database is empty.
   *
   * @param j a raw connection to the server to check
   * @throws AssertionError listing (up to 50 of) the keys found, with their TTL in milliseconds
   */
  public static void assertNoKeys(Jedis j) {
    if (j.dbSize() == 0) {
      return;
    }
    List<String> found = new ArrayList<>();
    for (String key : keys(j)) {
      found.add(key + " (" + j.type(key) + ", pttl " + j.pttl(key) + ")");
    }
    if (!found.isEmpty()) {
      throw new AssertionError(found.size() + " key(s) left: " + limit(found));
    }
  }

  /**
   * Asserts, within a few seconds, that nobody is subscribed to any channel, pattern or shard
   * channel on the server ({@code PUBSUB CHANNELS *} and {@code PUBSUB SHARDCHANNELS *} are empty,
   * {@code PUBSUB NUMPAT} is 0). The channels of Redis's own machinery ({@code __sentinel__:hello},
   * on which Sentinels talk through a master and its replicas) do not count.
   *
   * @param j a raw connection to the server to check (not itself subscribed)
   * @throws org.awaitility.core.ConditionTimeoutException naming the channels and pattern count
   *     left
   */
  public static void assertNoSubscriptions(Jedis j) {
    await("no Pub/Sub subscriptions left")
        .atMost(Timing.CLEAN_UP)
        .pollDelay(Duration.ZERO)
        .pollInterval(POLL_INTERVAL)
        .pollInSameThread()
        .untilAsserted(
            () -> {
              List<String> channels =
                  j.pubsubChannels("*").stream()
                      .filter(channel -> !channel.startsWith(REDIS_INTERNAL_CHANNELS))
                      .toList();
              long patterns = j.pubsubNumPat();
              List<String> shardChannels = shardChannels(j);
              if (!channels.isEmpty() || patterns != 0 || !shardChannels.isEmpty()) {
                throw new AssertionError(
                    "subscribed channels: "
                        + channels
                        + ", patterns: "
                        + patterns
                        + ", shard channels: "
                        + shardChannels);
              }
            });
  }

  /**
   * Asserts, within a few seconds, that no client of the server is subscribed to anything: no
   * {@code CLIENT LIST} entry has a non-zero {@code sub}, {@code psub} or {@code ssub} count. For
   * Sentinels, which have no {@code PUBSUB} command: clients subscribe to their {@code
   * +switch-master} events.
   *
   * @param j a raw connection to the server to check (not itself subscribed)
   * @throws org.awaitility.core.ConditionTimeoutException naming the subscribed clients
   */
  public static void assertNoSubscribedClients(Jedis j) {
    await("no subscribed clients left")
        .atMost(Timing.CLEAN_UP)
        .pollDelay(Duration.ZERO)
        .pollInterval(POLL_INTERVAL)
        .pollInSameThread()
        .untilAsserted(
            () -> {
              List<String> subscribed = new ArrayList<>();
              for (String client : j.clientList().split("\n")) {
                if (isSubscribed(client)) {
                  subscribed.add(client.trim());
                }
              }
              if (!subscribed.isEmpty()) {
                throw new AssertionError("subscribed clients: " + subscribed);
              }
            });
  }

  /** Whether a {@code CLIENT LIST} line counts a subscription. */
  private static boolean isSubscribed(String client) {
    for (String field : client.trim().split(" ")) {
      int eq = field.indexOf('=');
      if (eq > 0 && List.of("sub", "psub", "ssub").contains(field.substring(0, eq))) {
        String count = field.substring(eq + 1);
        if (!count.isEmpty() && !count.equals("0")) {
          return true;
        }
      }
    }
    return false;
  }

  /** The sharded Pub/Sub channels subscribed on the server (none before Redis 7). */
  private static List<String> shardChannels(Jedis j) {
    try {
      return j.pubsubShardChannels("*");
    } catch (JedisDataException e) {
      return List.of(); // no sharded Pub/Sub on this server
    }
  }

  /**
   * Asserts, within a few seconds, that no live thread of this JVM has a name starting with {@code
   * namePrefix}: whatever started them has stopped them.
   *
   * @param namePrefix the thread name prefix, e.g. {@link TcpProxy#THREAD_NAME_PREFIX}
   * @throws org.awaitility.core.ConditionTimeoutException naming the threads still alive and their
   *     state
   */
  public static void assertNoThreads(String namePrefix) {
    await("no live threads named " + namePrefix + "*")
        .atMost(Timing.CLEAN_UP)
        .pollDelay(Duration.ZERO)
        .pollInterval(POLL_INTERVAL)
        .untilAsserted(
            () -> {
              List<String> alive = new ArrayList<>();
              for (var entry : Thread.getAllStackTraces().entrySet()) {
                Thread t = entry.getKey();
                if (t.isAlive() && t.getName().startsWith(namePrefix)) {
                  StringBuilder where = new StringBuilder();
                  StackTraceElement[] frames = entry.getValue();
                  for (int i = 0; i < Math.min(8, frames.length); i++) {
                    where.append("\n      at ").append(frames[i]);
                  }
                  alive.add(t.getName() + " (" + t.getState() + ")" + where);
                }
              }
              if (!alive.isEmpty()) {
                throw new AssertionError("live threads: " + alive);
              }
            });
  }

  /** Every key of the current database, using SCAN (which may repeat keys: deduplicated). */
  private static Set<String> keys(Jedis j) {
    Set<String> keys = new LinkedHashSet<>();
    ScanParams params = new ScanParams().count(SCAN_COUNT);
    String cursor = ScanParams.SCAN_POINTER_START;
    do {
      ScanResult<String> page = j.scan(cursor, params);
      keys.addAll(page.getResult());
      cursor = page.getCursor();
    } while (!ScanParams.SCAN_POINTER_START.equals(cursor));
    return keys;
  }

  private static String limit(List<String> items) {
    return items.size() <= MAX_LISTED
        ? items.toString()
        : items.subList(0, MAX_LISTED) + " and " + (items.size() - MAX_LISTED) + " more";
  }
}
