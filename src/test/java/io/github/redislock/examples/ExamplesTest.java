package io.github.redislock.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.github.redislock.testing.IntegrationTest;
import io.github.redislock.testing.RedisServer;
import io.github.redislock.testing.Timing;
import java.net.URI;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisConnectionException;

/**
 * Runs every example against a real {@code redis-server}, so the examples (and the README that
 * points at them) cannot rot: each one's result is checked, and afterwards no example key is left
 * (the locks' own {@code :lock-meta} hashes expire by themselves) and no thread keeps running.
 */
@IntegrationTest
class ExamplesTest {
  private static RedisServer redis;

  private Set<Thread> threadsBefore;

  @BeforeAll
  static void startRedis() {
    redis = RedisServer.start();
  }

  @AfterAll
  static void stopRedis() {
    if (redis != null) {
      redis.close();
    }
  }

  @BeforeEach
  void rememberThreads() {
    threadsBefore = new HashSet<>(Thread.getAllStackTraces().keySet());
  }

  @AfterEach
  void nothingLeftBehind() {
    try (Jedis j = redis.jedis()) {
      Set<String> left =
          j.keys("*").stream()
              .filter(key -> !key.endsWith(":lock-meta"))
              .collect(Collectors.toSet());
      assertThat(left).as("keys left by the example").isEmpty();
    }
    await("no non-daemon thread left, which would keep an example's JVM alive")
        .atMost(Timing.awaitAtMost())
        .pollInSameThread()
        .untilAsserted(
            () ->
                assertThat(Thread.getAllStackTraces().keySet())
                    .filteredOn(t -> t.isAlive() && !t.isDaemon() && !threadsBefore.contains(t))
                    .extracting(Thread::getName)
                    .isEmpty());
  }

  @Test
  void reentrantLockDropInSellsEverySeatExactlyOnce() throws Exception {
    ReentrantLockDropIn.Result result = ReentrantLockDropIn.run(redis.uri());

    assertThat(result.reserved()).isEqualTo(result.seats());
    assertThat(result.free()).isZero();
    assertThat(result.refused()).isEqualTo(result.requests() - result.seats());
  }

  @Test
  void lockPassedToExistingCodeKeepsTheTotalAndAllowsNoOverdraft() throws Exception {
    LockPassedToExistingCode.Result result = LockPassedToExistingCode.run(redis.uri());

    assertThat(result.totalAfter()).isEqualTo(result.totalBefore());
    assertThat(result.lowestBalance()).isNotNegative();
  }

  @Test
  void synchronizedRewrittenIssuesEveryInvoiceNumberOnce() throws Exception {
    SynchronizedRewritten.Result result = SynchronizedRewritten.run(redis.uri());

    assertThat(result.distinct()).isEqualTo(result.issued());
    assertThat(result.last()).isEqualTo(result.issued());
  }

  @Test
  void fairJobClaimingClaimsEveryJobOnceAndGivesEveryWorkerTurns() throws Exception {
    FairJobClaiming.Result result = FairJobClaiming.run(redis.uri());

    assertThat(result.claimed()).isEqualTo(result.jobs());
    assertThat(result.distinct()).isEqualTo(result.jobs());
    assertThat(result.claimsByWorker()).allMatch(claims -> claims > 0);
  }

  @Test
  void readMostlyCacheReadsConsistentlyAndRebuildsOncePerInvalidation() throws Exception {
    ReadMostlyCache.Result result = ReadMostlyCache.run(redis.uri());

    assertThat(result.inconsistent()).isZero();
    assertThat(result.invalidations()).isPositive();
    assertThat(result.loads()).isEqualTo(result.invalidations() + 1L);
  }

  @Test
  void demoCountsExactlyAcrossWorkerJvms() throws Exception {
    Demo.Result result = Demo.run(redis.uri(), 2, 2, 50);

    assertThat(result.expected()).isEqualTo(200);
    assertThat(result.counter()).isEqualTo(200);
    assertThat(result.isExact()).isTrue();
    assertThat(result.maxFencingToken()).isGreaterThan(result.minFencingToken());
  }

  @Test
  void boundedBufferAcrossProcessesDeliversEveryItemOnce() throws Exception {
    BoundedBufferAcrossProcesses.Result result = BoundedBufferAcrossProcesses.run(redis.uri());

    assertThat(result.taken()).isEqualTo(result.produced());
    assertThat(result.distinct()).isEqualTo(result.produced());
    assertThat(result.left()).isZero();
  }

  @Test
  void runUnderTheLockCountsEveryIncrementAndRunsTheReportOnce() throws Exception {
    RunUnderTheLock.Result result = RunUnderTheLock.run(redis.uri());

    assertThat(result.value()).isEqualTo(result.increments());
    assertThat(result.total()).isEqualTo(result.increments());
    assertThat(result.rejected()).isZero();
    assertThat(result.reportSkips()).isEqualTo(3);
    assertThat(result.reportRuns()).isOne();
  }

  @Test
  void asyncPipelineTakesTheLockInOneStageAndReleasesItInAnother() {
    AsyncPipeline.Result result = AsyncPipeline.run(redis.uri());

    assertThat(result.balance()).isEqualTo(1000 - result.orders());
    assertThat(result.mostAtOnce()).isOne();
    assertThat(result.releasedElsewhere()).isEqualTo(result.orders());
  }

  @Test
  void mainsRunAgainstTheRedisNamedByTheSystemProperty() throws Exception {
    String previous = System.setProperty(ExampleRedis.PROPERTY, redis.uri());
    try {
      try (ExampleRedis located = ExampleRedis.locate()) {
        assertThat(located.uri()).isEqualTo(redis.uri());
      }
      ReentrantLockDropIn.main(new String[0]);
      LockPassedToExistingCode.main(new String[0]);
      SynchronizedRewritten.main(new String[0]);
      FairJobClaiming.main(new String[0]);
      ReadMostlyCache.main(new String[0]);
      RunUnderTheLock.main(new String[0]);
      AsyncPipeline.main(new String[0]);
    } finally {
      if (previous == null) {
        System.clearProperty(ExampleRedis.PROPERTY);
      } else {
        System.setProperty(ExampleRedis.PROPERTY, previous);
      }
    }
    assertThat(redis.isRunning()).as("an external Redis is left running").isTrue();
  }

  @Test
  void withoutRedisUrlTheExamplesStartAndStopTheirOwnServer() {
    assumeTrue(
        System.getProperty(ExampleRedis.PROPERTY) == null
            && System.getenv(ExampleRedis.ENVIRONMENT) == null);

    int port;
    try (ExampleRedis own = ExampleRedis.locate()) {
      assertThat(own.uri()).isNotEqualTo(redis.uri());
      port = URI.create(own.uri()).getPort();
      try (Jedis j = RedisServer.connect(port, Duration.ofSeconds(2))) {
        assertThat(j.ping()).isEqualTo("PONG");
      }
    }
    assertThatThrownBy(() -> RedisServer.connect(port, Duration.ofSeconds(2)).close())
        .as("the server it started is stopped on close")
        .isInstanceOf(JedisConnectionException.class);
  }
}
