package io.github.redislock.observability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.github.redislock.LockLostEvent;
import io.github.redislock.RedisDistributedLock;
import io.github.redislock.RedisLockFactory;
import io.github.redislock.RedisReadWriteLock;
import io.github.redislock.contract.RedlockDeployment;
import io.github.redislock.testing.IntegrationTest;
import io.github.redislock.testing.RedisInvariants;
import io.github.redislock.testing.RedisServerExtension;
import io.github.redislock.testing.Timing;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.Jedis;

/**
 * The JFR events: a recording made around a lock workload, written to a file and read back, holds
 * the acquisitions, releases, lost holds, renewal failures and Redlock rounds with their fields.
 */
@IntegrationTest
class JfrEventsTest {
  @RegisterExtension static final RedisServerExtension redis = new RedisServerExtension();
  private final List<RedisLockFactory> factories = new ArrayList<>();
  private final List<LockLostEvent> lost = new CopyOnWriteArrayList<>();
  private String name;
  private Path file;

  @BeforeEach
  void setUp(TestInfo info) throws Exception {
    name = "jfr:" + info.getTestMethod().orElseThrow().getName();
    file = Files.createTempFile("redis-lock", ".jfr");
  }

  @AfterEach
  void tearDown() throws Exception {
    Files.deleteIfExists(file);
    RedisInvariants.closeAfterTest(redis.server(), null, factories);
  }

  private RedisLockFactory factory(Duration lease, Duration commandTimeout) {
    RedisLockFactory factory =
        RedisLockFactory.builder()
            .standalone(redis.server().uri())
            .leaseTime(lease)
            .commandTimeout(commandTimeout)
            .onLockLost(lost::add)
            .build();
    factories.add(factory);
    return factory;
  }

  /** Runs {@code workload} under a recording of every redis-lock event, and reads them back. */
  private List<RecordedEvent> record(ThrowingRunnable workload) throws Exception {
    try (Recording recording = new Recording()) {
      for (String event :
          List.of("Acquisition", "Release", "LostHold", "RenewalFailure", "RedlockRound")) {
        recording.enable("io.github.redislock." + event).withoutThreshold();
      }
      recording.start();
      workload.run();
      recording.stop();
      recording.dump(file);
    }
    return RecordingFile.readAllEvents(file).stream()
        .filter(e -> e.getEventType().getName().startsWith("io.github.redislock."))
        .toList();
  }

  private interface ThrowingRunnable {
    void run() throws Exception;
  }

  private static List<RecordedEvent> named(List<RecordedEvent> events, String type) {
    return events.stream()
        .filter(e -> e.getEventType().getName().equals("io.github.redislock." + type))
        .toList();
  }

  /** Each event names the kind of lock: the plain lock, a fair lock, a write lock, a read lock. */
  @Test
  void eventsNameTheKindOfLock() throws Exception {
    RedisLockFactory factory = factory(Duration.ofSeconds(30), Duration.ofSeconds(2));
    Lock plain = factory.getLock(name);
    Lock fair = factory.getFairLock(name + ":fair");
    RedisReadWriteLock readWrite = factory.getReadWriteLock(name + ":rw");
    List<RecordedEvent> events =
        record(
            () -> {
              for (Lock lock : List.of(plain, fair, readWrite.writeLock(), readWrite.readLock())) {
                lock.lock();
                lock.unlock();
              }
            });
    assertThat(named(events, "Acquisition"))
        .extracting(e -> e.getString("kind"))
        .containsExactly("lock", "fair", "write", "read");
    assertThat(named(events, "Release"))
        .extracting(e -> e.getString("kind"))
        .containsExactly("lock", "fair", "write", "read");
  }

  @Test
  void acquisitionsAndReleasesAreRecordedWithTheirFields() throws Exception {
    RedisLockFactory factory = factory(Duration.ofSeconds(30), Duration.ofSeconds(2));
    RedisDistributedLock lock = factory.getLock(name);
    RedisDistributedLock other =
        factory(Duration.ofSeconds(30), Duration.ofSeconds(2)).getLock(name);
    List<RecordedEvent> events =
        record(
            () -> {
              lock.lock();
              lock.lock(); // reentrant: no event
              lock.unlock();
              assertThat(other.tryLock()).isFalse();
              assertThat(other.tryLock(20, TimeUnit.MILLISECONDS)).isFalse();
              lock.unlock();
            });
    List<RecordedEvent> acquisitions = named(events, "Acquisition");
    assertThat(acquisitions)
        .extracting(e -> e.getString("outcome"))
        .containsExactly("acquired", "busy", "timed out");
    RecordedEvent first = acquisitions.get(0);
    assertThat(first.getString("lockName")).isEqualTo(name);
    assertThat(first.getInt("roundTrips")).isEqualTo(1);
    assertThat(first.getBoolean("handoff")).isFalse();
    assertThat(first.getString("kind")).isEqualTo("lock");
    assertThat(acquisitions.get(2).getInt("roundTrips")).isPositive();
    assertThat(named(events, "Release"))
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.getString("lockName")).isEqualTo(name);
              assertThat(e.getDuration("holdTime")).isPositive();
            });
  }

  @Test
  void lostHoldsAndRenewalFailuresAreRecorded() throws Exception {
    RedisLockFactory factory =
        factory(Timing.scaled(Duration.ofMillis(600)), Duration.ofMillis(50));
    RedisDistributedLock lock = factory.getLock(name);
    List<RecordedEvent> events =
        record(
            () -> {
              lock.lock();
              redis.server().pause();
              try {
                await().atMost(Timing.awaitAtMost()).until(() -> !lost.isEmpty());
              } finally {
                redis.server().resume();
              }
              assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class);
              lock.lock();
              try (Jedis jedis = redis.server().jedis()) {
                jedis.del(name);
              }
              await().atMost(Timing.awaitAtMost()).until(() -> lost.size() == 2);
              assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class);
            });
    assertThat(named(events, "RenewalFailure"))
        .isNotEmpty()
        .allSatisfy(e -> assertThat(e.getString("lockName")).isEqualTo(name));
    assertThat(named(events, "LostHold"))
        .extracting(e -> e.getString("reason"))
        .hasSize(2)
        .anySatisfy(reason -> assertThat(reason).contains("renewal failed"))
        .anySatisfy(reason -> assertThat(reason).contains("deleted"));
  }

  @Test
  void redlockRoundsAreRecordedWithEachMastersAnswer() throws Exception {
    try (RedlockDeployment masters = new RedlockDeployment(3)) {
      RedisLockFactory factory = masters.builder().build();
      factories.add(factory);
      RedisDistributedLock lock = factory.getLock(name);
      masters.servers().get(2).kill();
      List<RecordedEvent> events = record(() -> lock.runLocked(() -> {}));
      assertThat(named(events, "RedlockRound"))
          .first()
          .satisfies(
              e -> {
                assertThat(e.getString("lockName")).isEqualTo(name);
                assertThat(e.getInt("masters")).isEqualTo(3);
                assertThat(e.getInt("granted")).isEqualTo(2);
                assertThat(e.getInt("denied")).isZero();
                assertThat(e.getInt("failed")).isEqualTo(1);
                assertThat(e.getBoolean("acquired")).isTrue();
              });
      factory.close();
    }
  }
}
