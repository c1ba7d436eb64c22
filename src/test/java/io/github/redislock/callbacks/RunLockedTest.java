package io.github.redislock.callbacks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.github.redislock.LockLostEvent;
import io.github.redislock.LockLostException;
import io.github.redislock.RedisDistributedLock;
import io.github.redislock.RedisLockFactory;
import io.github.redislock.RedisReadWriteLock;
import io.github.redislock.testing.IntegrationTest;
import io.github.redislock.testing.RedisInvariants;
import io.github.redislock.testing.RedisServerExtension;
import io.github.redislock.testing.Timing;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.Jedis;

/**
 * {@code runLocked}, {@code callLocked} and {@code tryRunLocked}: the lock is held while the action
 * runs and released after it, whatever it does; exceptions pass through; a hold lost meanwhile is
 * reported when the action ends.
 */
@IntegrationTest
class RunLockedTest {
  @RegisterExtension static final RedisServerExtension redis = new RedisServerExtension();
  private final List<RedisLockFactory> factories = new ArrayList<>();
  private final List<LockLostEvent> lost = new CopyOnWriteArrayList<>();
  private ExecutorService threads;
  private String name;

  @BeforeEach
  void setUp(TestInfo info) {
    name = "run:" + info.getTestMethod().orElseThrow().getName();
    threads = Executors.newCachedThreadPool();
  }

  @AfterEach
  void tearDown() throws InterruptedException {
    RedisInvariants.closeAfterTest(redis.server(), threads, factories, name);
  }

  private RedisLockFactory factory() {
    RedisLockFactory factory =
        RedisLockFactory.builder()
            .standalone(redis.server().uri())
            .leaseTime(Timing.scaled(Duration.ofMillis(600)))
            .onLockLost(lost::add)
            .build();
    factories.add(factory);
    return factory;
  }

  private boolean keyExists() {
    try (Jedis jedis = redis.server().jedis()) {
      return jedis.exists(name);
    }
  }

  /** Whether another factory (another process, for Redis) can take the lock now. */
  private boolean freeForOthers(RedisLockFactory other) {
    RedisDistributedLock lock = other.getLock(name);
    if (lock.tryLock()) {
      lock.unlock();
      return true;
    }
    return false;
  }

  @Test
  void runLockedRunsTheActionHoldingTheLockAndReleasesItAfter() {
    RedisDistributedLock lock = factory().getLock(name);
    RedisLockFactory other = factory();
    AtomicBoolean ran = new AtomicBoolean();
    lock.runLocked(
        () -> {
          assertThat(lock.isHeldByCurrentThread()).isTrue();
          assertThat(freeForOthers(other)).as("others excluded while it runs").isFalse();
          ran.set(true);
        });
    assertThat(ran).isTrue();
    assertThat(lock.isHeldByCurrentThread()).isFalse();
    assertThat(keyExists()).isFalse();
  }

  @Test
  void runLockedPassesTheActionsExceptionThroughAndReleases() {
    RedisDistributedLock lock = factory().getLock(name);
    IllegalStateException thrown = new IllegalStateException("boom");
    assertThatThrownBy(
            () ->
                lock.runLocked(
                    () -> {
                      throw thrown;
                    }))
        .isSameAs(thrown);
    assertThat(lock.isHeldByCurrentThread()).isFalse();
    assertThat(keyExists()).isFalse();
  }

  @Test
  void runLockedInsideTheLockCountsReentrantly() {
    RedisDistributedLock lock = factory().getLock(name);
    lock.runLocked(() -> lock.runLocked(() -> assertThat(lock.getHoldCount()).isEqualTo(2)));
    assertThat(lock.getHoldCount()).isZero();
  }

  @Test
  void callLockedReturnsTheResultAndReleases() throws Exception {
    RedisDistributedLock lock = factory().getLock(name);
    int result = lock.callLocked(() -> lock.isHeldByCurrentThread() ? 42 : -1);
    assertThat(result).isEqualTo(42);
    assertThat(keyExists()).isFalse();
  }

  @Test
  void callLockedPassesACheckedExceptionThroughAndReleases() {
    RedisDistributedLock lock = factory().getLock(name);
    IOException thrown = new IOException("disk full");
    assertThatThrownBy(
            () ->
                lock.callLocked(
                    () -> {
                      throw thrown;
                    }))
        .isSameAs(thrown);
    assertThat(lock.isHeldByCurrentThread()).isFalse();
    assertThat(keyExists()).isFalse();
  }

  @Test
  void tryRunLockedRunsAndReturnsTrueWhenTheLockIsFree() throws Exception {
    RedisDistributedLock lock = factory().getLock(name);
    AtomicBoolean ran = new AtomicBoolean();
    assertThat(lock.tryRunLocked(Duration.ZERO, () -> ran.set(lock.isHeldByCurrentThread())))
        .isTrue();
    assertThat(ran).isTrue();
    assertThat(keyExists()).isFalse();
  }

  @Test
  void tryRunLockedReturnsFalseWithoutRunningWhileAnotherProcessHoldsTheLock() throws Exception {
    RedisDistributedLock lock = factory().getLock(name);
    RedisDistributedLock held = factory().getLock(name);
    held.lock();
    try {
      AtomicBoolean ran = new AtomicBoolean();
      AtomicBoolean busy = new AtomicBoolean();
      assertThat(lock.tryRunLocked(Duration.ofMillis(50), () -> ran.set(true))).isFalse();
      assertThat(lock.tryRunLocked(Duration.ZERO, () -> ran.set(true), () -> busy.set(true)))
          .isFalse();
      assertThat(ran).isFalse();
      assertThat(busy).as("onBusy called").isTrue();
    } finally {
      held.unlock();
    }
  }

  @Test
  void tryRunLockedDoesNotCallOnBusyWhenItRan() throws Exception {
    RedisDistributedLock lock = factory().getLock(name);
    AtomicBoolean busy = new AtomicBoolean();
    assertThat(lock.tryRunLocked(Duration.ofSeconds(1), () -> {}, () -> busy.set(true))).isTrue();
    assertThat(busy).isFalse();
  }

  @Test
  void tryRunLockedThrowsInterruptedExceptionWhenInterrupted() {
    RedisDistributedLock lock = factory().getLock(name);
    AtomicBoolean ran = new AtomicBoolean();
    Thread.currentThread().interrupt();
    assertThatThrownBy(() -> lock.tryRunLocked(Duration.ofSeconds(1), () -> ran.set(true)))
        .isInstanceOf(InterruptedException.class);
    assertThat(Thread.interrupted()).isFalse();
    assertThat(ran).isFalse();
  }

  @Test
  void aHoldLostWhileTheActionRunsIsReportedWhenItEnds() {
    RedisDistributedLock lock = factory().getLock(name);
    assertThatThrownBy(() -> lock.runLocked(this::loseTheHold))
        .isInstanceOf(LockLostException.class);
    assertThat(lock.isHeldByCurrentThread()).isFalse();
  }

  @Test
  void anActionsExceptionWinsOverTheLostHoldWhichIsSuppressed() {
    RedisDistributedLock lock = factory().getLock(name);
    IllegalStateException thrown = new IllegalStateException("boom");
    assertThatThrownBy(
            () ->
                lock.callLocked(
                    () -> {
                      loseTheHold();
                      throw thrown;
                    }))
        .isSameAs(thrown)
        .satisfies(
            e -> assertThat(e.getSuppressed()).hasExactlyElementsOfTypes(LockLostException.class));
  }

  private void loseTheHold() {
    try (Jedis jedis = redis.server().jedis()) {
      jedis.del(name);
    }
    await().atMost(Timing.awaitAtMost()).until(() -> !lost.isEmpty());
  }

  @Test
  void theFairLockRunsActionsUnderTheLock() throws Exception {
    RedisDistributedLock fair = factory().getFairLock(name);
    assertThat(fair.callLocked(fair::isHeldByCurrentThread)).isTrue();
    assertThat(fair.tryRunLocked(Duration.ofSeconds(1), () -> {})).isTrue();
    assertThat(keyExists()).isFalse();
  }

  @Test
  void theReadAndWriteLocksRunActionsUnderTheLock() throws Exception {
    RedisReadWriteLock rw = factory().getReadWriteLock(name);
    RedisReadWriteLock other = factory().getReadWriteLock(name);
    rw.readLock()
        .runLocked(
            () -> {
              assertThat(rw.getReadHoldCount()).isOne();
              assertThat(other.writeLock().tryLock()).isFalse();
            });
    assertThat(rw.getReadHoldCount()).isZero();
    assertThat(
            rw.writeLock()
                .callLocked(() -> rw.isWriteLockedByCurrentThread() && !other.readLock().tryLock()))
        .isTrue();
    assertThat(rw.writeLock().tryRunLocked(Duration.ofSeconds(1), () -> {})).isTrue();
    assertThat(rw.readLock().tryRunLocked(Duration.ofSeconds(1), () -> {})).isTrue();
    assertThat(rw.isWriteLocked()).isFalse();
  }

  @Test
  void nullArgumentsAreRefusedNamingThemAndTakeNothing() {
    RedisDistributedLock lock = factory().getLock(name);
    Duration second = Duration.ofSeconds(1);
    assertThatThrownBy(() -> lock.runLocked(null)).hasMessageContaining("action");
    assertThatThrownBy(() -> lock.callLocked(null)).hasMessageContaining("action");
    assertThatThrownBy(() -> lock.tryRunLocked(null, () -> {})).hasMessageContaining("timeout");
    assertThatThrownBy(() -> lock.tryRunLocked(second, null)).hasMessageContaining("action");
    assertThatThrownBy(() -> lock.tryRunLocked(second, () -> {}, null))
        .hasMessageContaining("onBusy");
    assertThatThrownBy(() -> lock.tryAcquire(null)).hasMessageContaining("timeout");
    assertThat(lock.isLocked()).isFalse();
    assertThat(keyExists()).isFalse();
  }

  @Test
  void aNegativeTimeoutMakesOneAttemptLikeTryLock() throws Exception {
    RedisDistributedLock lock = factory().getLock(name);
    AtomicBoolean ran = new AtomicBoolean();
    assertThat(lock.tryRunLocked(Duration.ofSeconds(-5), () -> ran.set(true))).isTrue();
    assertThat(ran).isTrue();
    assertThat(keyExists()).isFalse();
  }
}
