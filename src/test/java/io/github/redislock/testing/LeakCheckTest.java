package io.github.redislock.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.redislock.RedisLockFactory;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.engine.JupiterTestEngine;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.discovery.DiscoverySelectors;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherConfig;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPubSub;
import redis.clients.jedis.exceptions.JedisException;

/**
 * Proves the {@link LeakCheck} can fail: each fixture below is a test class that leaks one thing,
 * run through a JUnit launcher of its own (as JUnit's EngineTestKit would), and the check must
 * report the leak, with a message that names it, on the test or class that leaked it. The fixtures
 * run only from here (they are disabled elsewhere).
 */
@IntegrationTest
class LeakCheckTest {
  private static final String SELF_TEST = "redislock.leakcheck.selftest";

  /** What happened to one test or class of a fixture run. */
  record Outcome(
      String name, boolean container, TestExecutionResult.Status status, String message) {
    boolean failed() {
      return status == TestExecutionResult.Status.FAILED;
    }
  }

  /** Runs {@code fixture} through a launcher of its own, with the Jupiter engine only. */
  private static List<Outcome> run(Class<?> fixture) {
    LauncherConfig config =
        LauncherConfig.builder()
            .enableTestEngineAutoRegistration(false)
            .enableTestExecutionListenerAutoRegistration(false)
            .enableLauncherSessionListenerAutoRegistration(false)
            .enableLauncherDiscoveryListenerAutoRegistration(false)
            .enablePostDiscoveryFilterAutoRegistration(false)
            .addTestEngines(new JupiterTestEngine())
            .build();
    List<Outcome> outcomes = new CopyOnWriteArrayList<>();
    TestExecutionListener listener =
        new TestExecutionListener() {
          @Override
          public void executionFinished(TestIdentifier id, TestExecutionResult result) {
            if (id.getParentId().isPresent()) { // not the engine
              outcomes.add(
                  new Outcome(
                      id.getDisplayName(),
                      id.isContainer(),
                      result.getStatus(),
                      result.getThrowable().map(Throwable::getMessage).orElse("")));
            }
          }
        };
    LauncherFactory.create(config)
        .execute(
            LauncherDiscoveryRequestBuilder.request()
                .selectors(DiscoverySelectors.selectClass(fixture))
                .configurationParameter(SELF_TEST, "true")
                .build(),
            listener);
    return outcomes;
  }

  /** The outcome of the fixture class itself. */
  private static Outcome ofTheClass(List<Outcome> outcomes) {
    return outcomes.stream()
        .filter(Outcome::container)
        .findFirst()
        .orElseThrow(() -> new AssertionError("no class in " + outcomes));
  }

  private static Outcome outcome(List<Outcome> outcomes, String name) {
    return outcomes.stream()
        .filter(o -> o.name().equals(name))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no outcome named " + name + " in " + outcomes));
  }

  @Test
  void aCleanClassPasses() {
    List<Outcome> outcomes = run(Clean.class);

    assertThat(outcomes).hasSize(3).noneMatch(Outcome::failed);
  }

  @Test
  void aLibraryThreadLeftByATestFailsThatTestNamingTheThread() {
    List<Outcome> outcomes = run(LeaksAThread.class);

    Outcome test = outcome(outcomes, "leavesAThread()");
    assertThat(test.failed()).as("%s", outcomes).isTrue();
    assertThat(test.message())
        .contains("leak check after " + LeaksAThread.class.getName())
        .contains("threads named redis-lock-* left")
        .contains("redis-lock-self-test");
    assertThat(ofTheClass(outcomes).failed())
        .as("the class stopped its thread in @AfterAll")
        .isFalse();
  }

  @Test
  void aKeyWithoutTtlFailsTheTestNamingTheKeyAndTheNextTestStartsEmpty() {
    List<Outcome> outcomes = run(LeaksAKey.class);

    Outcome test = outcome(outcomes, "leavesAKeyWithoutTtl()");
    assertThat(test.failed()).as("%s", outcomes).isTrue();
    assertThat(test.message())
        .contains("1 key(s) without a TTL")
        .contains("self-test-key (string)")
        .contains("RedisServer[127.0.0.1:");
    assertThat(outcome(outcomes, "findsTheServerFlushed()").failed()).isFalse();
    assertThat(outcome(outcomes, "leavesAKeyWithATtl()").failed()).isFalse();
  }

  @Test
  void aKeyWithoutTtlOnAServerClosedInAfterEachIsFoundAsItStops() {
    List<Outcome> outcomes = run(LeaksAKeyOnAServerPerTest.class);

    Outcome test = outcome(outcomes, "leavesAKeyWithoutTtl()");
    assertThat(test.failed()).as("%s", outcomes).isTrue();
    assertThat(test.message()).contains("self-test-key (string)");
  }

  @Test
  void aSubscriptionLeftOpenFailsTheTestNamingTheChannel() throws InterruptedException {
    List<Outcome> outcomes = run(LeavesASubscription.class);

    Outcome test = outcome(outcomes, "leavesASubscription()");
    assertThat(test.failed()).as("%s", outcomes).isTrue();
    assertThat(test.message()).contains("subscribed channels: [self-test-channel]");
    LeavesASubscription.thread.join(Timing.awaitAtMost().toMillis());
    assertThat(LeavesASubscription.thread.isAlive())
        .as("the subscriber ends: its connection was closed after the check")
        .isFalse();
  }

  @Test
  void aServerLeftRunningFailsTheClassAndIsClosed() {
    List<Outcome> outcomes = run(LeavesAServerRunning.class);

    assertThat(outcome(outcomes, "startsAServer()").failed()).isFalse();
    Outcome container = ofTheClass(outcomes);
    assertThat(container.failed()).as("%s", outcomes).isTrue();
    assertThat(container.message())
        .contains("leak check after the class " + LeavesAServerRunning.class.getName())
        .contains("left running by the class (closed now)");
    assertThat(LeavesAServerRunning.server.isRunning()).isFalse();
  }

  @Test
  void threadsSharedAcrossTestsOnPurposeAreCheckedAfterTheClassOnly() {
    assertThat(run(SharesAThread.class)).hasSize(3).noneMatch(Outcome::failed);

    List<Outcome> unsaid = run(SharesAThreadUnsaid.class);
    assertThat(unsaid).filteredOn(Outcome::failed).hasSize(2);
    assertThat(outcome(unsaid, "first()").message()).contains("redis-lock-self-test-shared");

    try {
      List<Outcome> kept = run(KeepsASharedThread.class);
      Outcome container = ofTheClass(kept);
      assertThat(container.failed()).as("%s", kept).isTrue();
      assertThat(container.message())
          .contains("leak check after the class")
          .contains("redis-lock-self-test-kept");
    } finally {
      KeepsASharedThread.thread.stop();
    }
  }

  @Test
  void sharingWithoutSayingWhyFailsTheClass() {
    List<Outcome> outcomes = run(SharesWithoutAReason.class);

    Outcome container = ofTheClass(outcomes);
    assertThat(container.failed()).isTrue();
    assertThat(container.message())
        .contains(SharesWithoutAReason.class.getName())
        .contains("shares [THREADS] across tests without saying why");
  }

  // ---- the fixtures ----

  /** Disables the fixtures unless {@link LeakCheckTest} runs them. */
  static final class OnlyInSelfTest implements ExecutionCondition {
    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
      return context.getConfigurationParameter(SELF_TEST).isPresent()
          ? ConditionEvaluationResult.enabled("run by LeakCheckTest")
          : ConditionEvaluationResult.disabled("a fixture of LeakCheckTest, run only by it");
    }
  }

  /** A thread blocked until stopped. */
  static final class Parked {
    private final CountDownLatch release = new CountDownLatch(1);
    private final Thread thread;

    Parked(String name) {
      thread =
          new Thread(
              () -> {
                try {
                  release.await();
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              },
              name);
      thread.setDaemon(true);
      thread.start();
    }

    void stop() {
      release.countDown();
      try {
        thread.join(Timing.awaitAtMost().toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      assertThat(thread.isAlive()).isFalse();
    }
  }

  @IntegrationTest
  @ExtendWith(OnlyInSelfTest.class)
  static class Clean {
    @RegisterExtension static final RedisServerExtension redis = new RedisServerExtension();

    @Test
    void usesAFactoryAndClosesIt() {
      try (RedisLockFactory factory =
          RedisLockFactory.builder().standalone(redis.server().uri()).build()) {
        var lock = factory.getLock("self-test-lock");
        lock.lock();
        lock.unlock();
      }
    }

    @Test
    void leavesOnlyKeysThatExpire() {
      try (Jedis j = redis.server().jedis()) {
        j.setex("self-test-key", 60, "v");
      }
    }
  }

  @IntegrationTest
  @ExtendWith(OnlyInSelfTest.class)
  static class LeaksAThread {
    static Parked thread;

    @AfterAll
    static void stopTheThread() {
      thread.stop();
    }

    @Test
    void leavesAThread() {
      thread = new Parked("redis-lock-self-test");
    }
  }

  @IntegrationTest
  @ExtendWith(OnlyInSelfTest.class)
  @TestMethodOrder(MethodOrderer.OrderAnnotation.class)
  static class LeaksAKey {
    @RegisterExtension static final RedisServerExtension redis = new RedisServerExtension();

    @Test
    @Order(1)
    void leavesAKeyWithoutTtl() {
      try (Jedis j = redis.server().jedis()) {
        j.set("self-test-key", "v");
      }
    }

    @Test
    @Order(2)
    void findsTheServerFlushed() {
      try (Jedis j = redis.server().jedis()) {
        assertThat(j.dbSize()).isZero();
      }
    }

    @Test
    @Order(3)
    void leavesAKeyWithATtl() {
      try (Jedis j = redis.server().jedis()) {
        j.setex("self-test-key", 60, "v");
      }
    }
  }

  @IntegrationTest
  @ExtendWith(OnlyInSelfTest.class)
  static class LeaksAKeyOnAServerPerTest {
    private RedisServer server;

    @BeforeEach
    void start() {
      server = RedisServer.start();
    }

    @AfterEach
    void stop() {
      server.close();
    }

    @Test
    void leavesAKeyWithoutTtl() {
      try (Jedis j = server.jedis()) {
        j.set("self-test-key", "v");
      }
    }
  }

  @IntegrationTest
  @ExtendWith(OnlyInSelfTest.class)
  static class LeavesASubscription {
    @RegisterExtension static final RedisServerExtension redis = new RedisServerExtension();
    static Thread thread;

    /** The subscription lives on a connection that is closed after the check, which sees it. */
    @Test
    void leavesASubscription() {
      Jedis j = LeakCheck.closeAfterCheck(redis.server().jedis());
      thread =
          new Thread(
              () -> {
                try {
                  j.subscribe(
                      new JedisPubSub() {
                        @Override
                        public void onMessage(String channel, String message) {}
                      },
                      "self-test-channel");
                } catch (JedisException e) {
                  // The connection was closed after the check.
                }
              },
              "self-test-subscriber");
      thread.start();
      try (Jedis raw = redis.server().jedis()) {
        await("subscribed")
            .atMost(Timing.awaitAtMost())
            .until(() -> raw.pubsubNumSub("self-test-channel").get("self-test-channel") == 1L);
      }
    }
  }

  @IntegrationTest
  @ExtendWith(OnlyInSelfTest.class)
  static class LeavesAServerRunning {
    static RedisServer server;

    @Test
    void startsAServer() {
      server = RedisServer.start();
    }
  }

  @IntegrationTest(
      sharedAcrossTests = LeakCheck.Shared.THREADS,
      because = "the fixture of a test that proves the opt-out")
  @ExtendWith(OnlyInSelfTest.class)
  static class SharesAThread {
    static Parked thread;

    @BeforeAll
    static void startTheThread() {
      thread = new Parked("redis-lock-self-test-shared");
    }

    @AfterAll
    static void stopTheThread() {
      thread.stop();
    }

    @Test
    void first() {}

    @Test
    void second() {}
  }

  /** The same, without the opt-out: each test fails. */
  @IntegrationTest
  static class SharesAThreadUnsaid extends SharesAThread {}

  @IntegrationTest(
      sharedAcrossTests = LeakCheck.Shared.THREADS,
      because = "the fixture of a test that proves the opt-out")
  @ExtendWith(OnlyInSelfTest.class)
  static class KeepsASharedThread {
    static Parked thread;

    @BeforeAll
    static void startTheThread() {
      thread = new Parked("redis-lock-self-test-kept");
    }

    @Test
    void test() {}
  }

  @IntegrationTest(sharedAcrossTests = LeakCheck.Shared.THREADS)
  @ExtendWith(OnlyInSelfTest.class)
  static class SharesWithoutAReason {
    @Test
    void test() {}
  }
}
