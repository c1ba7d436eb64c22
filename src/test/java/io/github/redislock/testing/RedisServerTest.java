package io.github.redislock.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.github.redislock.test.RedisBinary;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.commands.ProtocolCommand;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.params.SetParams;

/** Proves the test fixtures work: real servers, fault injection, child JVMs and leak checks. */
@IntegrationTest
class RedisServerTest {

  /** Socket timeout for connections expected to hang. */
  private static final Duration SHORT_TIMEOUT = Duration.ofMillis(300);

  /** Jedis 8 has no constant for DEBUG. */
  private static final ProtocolCommand DEBUG = () -> "DEBUG".getBytes(StandardCharsets.US_ASCII);

  @BeforeAll
  static void logBinary() {
    System.out.println("redis-server: " + RedisBinary.describe());
  }

  @Test
  void startsOnAFreePortAndAnswersPing() {
    try (RedisServer redis = RedisServer.start();
        Jedis j = redis.jedis()) {
      assertThat(redis.isRunning()).isTrue();
      assertThat(redis.host()).isEqualTo("127.0.0.1");
      assertThat(redis.uri()).isEqualTo("redis://127.0.0.1:" + redis.port());
      assertThat(redis.pid()).isPositive();
      assertThat(j.ping()).isEqualTo("PONG");
      assertThat(j.info("server")).contains("process_id:" + redis.pid());
    }
  }

  @Test
  void debugCommandIsAvailable() {
    try (RedisServer redis = RedisServer.start();
        Jedis j = redis.jedis()) {
      assertThat(j.sendCommand(DEBUG, "SLEEP", "0")).isNotNull();
    }
  }

  @Test
  void pauseMakesCommandsTimeOutAndResumeAnswersAgain() {
    try (RedisServer redis = RedisServer.start()) {
      redis.pause();
      assertThat(redis.isPaused()).isTrue();
      assertThat(redis.isRunning()).isTrue();
      assertThatThrownBy(() -> ping(redis.port())).isInstanceOf(JedisConnectionException.class);

      redis.resume();
      assertThat(redis.isPaused()).isFalse();
      try (Jedis j = redis.jedis(SHORT_TIMEOUT)) {
        assertThat(j.ping()).isEqualTo("PONG");
      }
    }
  }

  @Test
  void killThenRestartOnTheSamePortAnswersWithNoData() {
    try (RedisServer redis = RedisServer.start()) {
      int port = redis.port();
      long firstPid = redis.pid();
      try (Jedis j = redis.jedis()) {
        j.set("survivor", "no");
      }

      redis.kill();
      assertThat(redis.isRunning()).isFalse();
      assertThatThrownBy(() -> ping(port)).isInstanceOf(JedisConnectionException.class);

      redis.restart();
      assertThat(redis.isRunning()).isTrue();
      assertThat(redis.port()).isEqualTo(port);
      assertThat(redis.pid()).isNotEqualTo(firstPid);
      try (Jedis j = redis.jedis()) {
        assertThat(j.ping()).isEqualTo("PONG");
        assertThat(j.get("survivor")).isNull();
        RedisInvariants.assertNoKeys(j);
      }
    }
  }

  @Test
  void restartWhilePausedReplacesTheFrozenProcess() {
    try (RedisServer redis = RedisServer.start()) {
      redis.pause();
      redis.restart();
      assertThat(redis.isPaused()).isFalse();
      try (Jedis j = redis.jedis(SHORT_TIMEOUT)) {
        assertThat(j.ping()).isEqualTo("PONG");
      }
    }
  }

  @Test
  void closeIsIdempotentAndKillsAPausedServer() {
    RedisServer redis = RedisServer.start();
    redis.pause();
    redis.close();
    assertThat(redis.isRunning()).isFalse();
    redis.close();
  }

  @Test
  void clusterModeStarts() {
    try (RedisServer redis = RedisServer.start("--cluster-enabled", "yes");
        Jedis j = redis.jedis()) {
      assertThat(j.ping()).isEqualTo("PONG");
      assertThat(j.info("cluster")).contains("cluster_enabled:1");
    }
  }

  @Test
  void proxyForwardsAndCutAllBreaksAnOpenConnection() {
    try (RedisServer redis = RedisServer.start();
        TcpProxy proxy = TcpProxy.start(redis.port())) {
      assertThat(proxy.uri()).isEqualTo("redis://127.0.0.1:" + proxy.port());
      Jedis j = RedisServer.connect(proxy.port(), SHORT_TIMEOUT);
      try {
        assertThat(j.ping()).isEqualTo("PONG");
        assertThat(j.set("k", "v")).isEqualTo("OK");
        assertThat(proxy.connectionCount()).isEqualTo(1);

        proxy.cutAll();
        assertThatThrownBy(j::ping).isInstanceOf(JedisConnectionException.class);
      } finally {
        closeQuietly(j);
      }
      try (Jedis fresh = RedisServer.connect(proxy.port(), SHORT_TIMEOUT)) {
        assertThat(fresh.get("k")).isEqualTo("v");
      }
    }
  }

  @Test
  void proxyDelayStillLetsCommandsSucceed() {
    try (RedisServer redis = RedisServer.start();
        TcpProxy proxy = TcpProxy.start(redis.port())) {
      proxy.setDelay(Duration.ofMillis(50));
      try (Jedis j = RedisServer.connect(proxy.port(), Duration.ofSeconds(2))) {
        assertThat(j.ping()).isEqualTo("PONG");
        assertThat(j.set("k", "v")).isEqualTo("OK");
        assertThat(j.get("k")).isEqualTo("v");
      }
      proxy.setDelay(Duration.ZERO);
    }
  }

  @Test
  void proxyStallHoldsBytesUntilUnstall() {
    try (RedisServer redis = RedisServer.start();
        TcpProxy proxy = TcpProxy.start(redis.port())) {
      Jedis j = RedisServer.connect(proxy.port(), SHORT_TIMEOUT);
      try {
        assertThat(j.ping()).isEqualTo("PONG");
        proxy.stall();
        assertThatThrownBy(j::ping).isInstanceOf(JedisConnectionException.class);
      } finally {
        closeQuietly(j);
      }
      proxy.unstall();
      assertThat(ping(proxy.port())).isEqualTo("PONG");
    }
  }

  @Test
  void proxyStallRepliesLetsCommandsRunButHoldsTheirReplies() {
    try (RedisServer redis = RedisServer.start();
        TcpProxy proxy = TcpProxy.start(redis.port())) {
      Jedis j = RedisServer.connect(proxy.port(), SHORT_TIMEOUT);
      try {
        proxy.stallReplies();
        assertThatThrownBy(() -> j.set("k", "v")).isInstanceOf(JedisConnectionException.class);
      } finally {
        closeQuietly(j);
      }
      try (Jedis direct = redis.jedis()) {
        assertThat(direct.get("k")).as("the command ran").isEqualTo("v");
        direct.del("k");
      }
      proxy.unstall();
      assertThat(ping(proxy.port())).isEqualTo("PONG");
    }
  }

  @Test
  void proxyClosesConnectionsWhenTheTargetIsDown() {
    RedisServer redis = RedisServer.start();
    try (TcpProxy proxy = TcpProxy.start(redis.port())) {
      redis.close();
      assertThatThrownBy(() -> ping(proxy.port())).isInstanceOf(JedisConnectionException.class);
    }
  }

  @Test
  void jvmProcessRunsAMainClassAndReportsReady() {
    try (JvmProcess child = JvmProcess.start(ReadyMain.class, List.of("-Xmx64m"))) {
      child.awaitOutputLine("ready", Timing.awaitAtMost());
      assertThat(child.waitFor(Timing.awaitAtMost())).isTrue();
      assertThat(child.exitValue()).isZero();
      assertThat(child.output()).contains("ready");
    }
  }

  @Test
  void jvmProcessKillEndsABlockedChild() {
    try (JvmProcess child = JvmProcess.start(ReadyMain.class, List.of(), "stay")) {
      child.awaitOutputLine("ready", Timing.awaitAtMost());
      assertThat(child.isAlive()).isTrue();
      child.kill();
      assertThat(child.isAlive()).isFalse();
      assertThat(child.exitValue()).isEqualTo(137);
    }
  }

  @Test
  void awaitOutputLineFailsWithTheOutputWhenTheChildExitsFirst() {
    try (JvmProcess child = JvmProcess.start(ReadyMain.class, List.of())) {
      assertThatThrownBy(() -> child.awaitOutputLine("never printed", Timing.awaitAtMost()))
          .isInstanceOf(AssertionError.class)
          .hasMessageContaining("exited")
          .hasMessageContaining("ready");
    }
  }

  @Test
  void shutdownHookKillsServersAJvmForgotToClose() {
    long serverPid;
    try (JvmProcess child = JvmProcess.start(LeakyMain.class, List.of())) {
      child.awaitOutputLine("server-pid=", Timing.awaitAtMost());
      serverPid =
          child
              .output()
              .lines()
              .filter(line -> line.startsWith("server-pid="))
              .mapToLong(line -> Long.parseLong(line.substring("server-pid=".length()).trim()))
              .findFirst()
              .orElseThrow();
      assertThat(child.waitFor(Timing.awaitAtMost())).as(child.output()).isTrue();
      assertThat(child.exitValue()).isZero();
    }
    await("redis-server " + serverPid + " killed by the child's shutdown hook")
        .atMost(Timing.awaitAtMost())
        .until(
            () -> ProcessHandle.of(serverPid).map(ProcessHandle::isAlive).orElse(false),
            alive -> !alive);
  }

  @Test
  void bundledBinaryIsExtractedAndServes() {
    Path bundled = RedisBinary.extractBundled();
    assertThat(Files.isExecutable(bundled)).isTrue();
    assertThat(RedisBinary.extractBundled()).isEqualTo(bundled);
    assertThat(RedisBinary.majorVersion(bundled)).isEqualTo(6);
    try (RedisServer redis = RedisServer.startWith(bundled);
        Jedis j = redis.jedis()) {
      assertThat(j.ping()).isEqualTo("PONG");
      assertThat(j.info("server")).contains("redis_version:6.2");
      assertThat(j.sendCommand(DEBUG, "SLEEP", "0")).isNotNull();
    }
  }

  @Test
  void invariantsCatchKeysWithoutTtl() {
    try (RedisServer redis = RedisServer.start();
        Jedis j = redis.jedis()) {
      RedisInvariants.assertNoKeys(j);
      RedisInvariants.assertNoKeysWithoutTtl(j);

      j.set("expiring", "v", SetParams.setParams().px(60_000));
      RedisInvariants.assertNoKeysWithoutTtl(j);
      assertThatThrownBy(() -> RedisInvariants.assertNoKeys(j))
          .isInstanceOf(AssertionError.class)
          .hasMessageContaining("expiring");

      j.hset("immortal", "f", "v");
      assertThatThrownBy(() -> RedisInvariants.assertNoKeysWithoutTtl(j))
          .isInstanceOf(AssertionError.class)
          .hasMessageContaining("immortal (hash)")
          .hasMessageNotContaining("expiring");

      redis.flushAll();
      RedisInvariants.assertNoKeys(j);
      RedisInvariants.assertNoSubscriptions(j);
    }
  }

  /**
   * Connects with a short timeout and PINGs. Jedis 8 connects (and sends its handshake) in the
   * constructor, so a dead or frozen server fails there already.
   */
  private static String ping(int port) {
    try (Jedis j = RedisServer.connect(port, SHORT_TIMEOUT)) {
      return j.ping();
    }
  }

  /** Closing a Jedis whose connection was cut may throw (it flushes into the dead socket). */
  private static void closeQuietly(Jedis j) {
    try {
      j.close();
    } catch (JedisConnectionException e) {
      // Expected for a broken connection.
    }
  }

  /** Child JVM main: starts a server, prints its PID and exits without closing it. */
  public static final class LeakyMain {
    /**
     * Entry point.
     *
     * @param args ignored
     */
    public static void main(String[] args) {
      RedisServer leaked = RedisServer.start();
      System.out.println("server-pid=" + leaked.pid());
      System.out.flush();
      System.exit(0);
    }
  }

  /**
   * Child JVM main: prints {@code ready}; with the argument {@code stay} it then blocks forever.
   */
  public static final class ReadyMain {
    /**
     * Entry point.
     *
     * @param args {@code stay} to block after printing
     * @throws InterruptedException never in practice (the parent kills the child)
     */
    public static void main(String[] args) throws InterruptedException {
      System.out.println("ready");
      System.out.flush();
      if (args.length > 0 && args[0].equals("stay")) {
        new CountDownLatch(1).await();
      }
    }
  }
}
