package io.github.redislock.process;

import io.github.redislock.testing.IntegrationTest;
import io.github.redislock.testing.JvmProcess;
import io.github.redislock.testing.RedisServer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.TestInstance;
import redis.clients.jedis.Jedis;

/**
 * One real {@code redis-server} per test class, {@link LockWorker} children per test. After each
 * test: every child is killed, the test's own bookkeeping keys are deleted, no key may be left
 * without a TTL, and the server is flushed.
 */
@IntegrationTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class ProcessTestBase {
  RedisServer redis;
  String name;
  private final List<JvmProcess> children = new CopyOnWriteArrayList<>();
  private final List<String> ownKeys = new CopyOnWriteArrayList<>();

  @BeforeAll
  void startRedis() {
    redis = RedisServer.start();
  }

  @AfterAll
  void stopRedis() {
    if (redis != null) {
      redis.close();
    }
  }

  @BeforeEach
  void nameTheLock(TestInfo info) {
    name = "process:" + info.getTestMethod().orElseThrow().getName() + ":" + System.nanoTime();
  }

  @AfterEach
  void killChildrenAndCheckRedis() {
    List<JvmProcess> started = new ArrayList<>(children);
    children.clear();
    for (JvmProcess child : started) {
      child.close();
    }
    if (!ownKeys.isEmpty()) { // the test's own keys; LeakCheck then checks the library's
      try (Jedis jedis = redis.jedis()) {
        jedis.del(ownKeys.toArray(String[]::new));
        ownKeys.clear();
      }
    }
  }

  /** Starts a {@link LockWorker} child, killed after the test. */
  JvmProcess worker(String... args) {
    JvmProcess child = LockWorker.start(args);
    children.add(child);
    return child;
  }

  /** Takes a child started by another worker class: killed after the test. */
  JvmProcess adopt(JvmProcess child) {
    children.add(child);
    return child;
  }

  /** Marks keys the test (not the library) created: deleted before the TTL check. */
  void ownKeys(String... keys) {
    ownKeys.addAll(List.of(keys));
  }

  /** The number after {@code key=} in the child's output, which must contain one. */
  static long valueIn(JvmProcess child, String key) {
    String output = child.output();
    Matcher m = Pattern.compile("\\b" + Pattern.quote(key) + "=(-?\\d+)").matcher(output);
    if (!m.find()) {
      throw new AssertionError(child + " printed no " + key + "=N; output:\n" + output);
    }
    return Long.parseLong(m.group(1));
  }
}
