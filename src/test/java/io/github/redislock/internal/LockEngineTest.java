package io.github.redislock.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.redislock.LockLostEvent;
import io.github.redislock.LockLostException;
import io.github.redislock.internal.FakeBackend.Call;
import io.github.redislock.internal.FakeBackend.Op;
import io.github.redislock.internal.Mutexes.LockName;
import io.github.redislock.testing.RedisInvariants;
import io.github.redislock.testing.Timing;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The {@code Lock} operations of the engine on a fake backend and a manual ticker: reentrancy,
 * ownership, a lost hold, and local handoff. Time stands still unless a test advances it, so a
 * handoff is always within its window.
 */
class LockEngineTest {
  private static final Duration LEASE = Duration.ofMillis(60); // the renewer ticks every 10 ms

  private final ManualTicker ticker = new ManualTicker();
  private final FakeBackend backend = new FakeBackend(ticker, LEASE);
  private final List<LockLostEvent> lost = new CopyOnWriteArrayList<>();
  private final LockEngine engine =
      new LockEngine(
          backend,
          List.of(),
          new Settings("engine-test:", LEASE, Duration.ofSeconds(1), lost::add, ticker));
  private final Mutexes locks = engine.exclusive();
  private final LockName name = locks.lockName("a");
  private final String key = "engine-test:a";
  private Thread other;

  @AfterEach
  void close() throws InterruptedException {
    if (other != null) {
      other.join(Timing.awaitAtMost().toMillis());
      assertThat(other.isAlive()).isFalse();
    }
    engine.close();
    assertThat(backend.isClosed()).isTrue();
    RedisInvariants.assertNoThreads("redis-lock-"); // renewer and I/O threads end at close
  }

  private Thread start(Runnable task) {
    other = new Thread(task, "engine-test-other");
    other.setDaemon(true);
    other.start();
    return other;
  }

  private static void awaitUntil(BooleanSupplier condition) {
    Awaitility.await()
        .atMost(Timing.awaitAtMost())
        .pollDelay(Duration.ZERO)
        .pollInterval(Duration.ofMillis(1))
        .until(condition::getAsBoolean);
  }

  @Test
  void reentrantLocksAreCountedInTheJvmAndTouchRedisOnce() {
    locks.lock(name);
    locks.lock(name);
    assertThat(locks.getHoldCount(name)).isEqualTo(2);
    locks.unlock(name);
    assertThat(locks.getHoldCount(name)).isEqualTo(1);
    assertThat(backend.calls(Op.RELEASE)).isZero();
    locks.unlock(name);
    assertThat(locks.getHoldCount(name)).isZero();
    assertThat(backend.calls(Op.TRY_ACQUIRE)).isEqualTo(1);
    assertThat(backend.calls(Op.RELEASE)).isEqualTo(1);
    assertThat(backend.holder(key)).isNull();
  }

  @Test
  void tryLockAnswersFalseWhileAnotherProcessHoldsTheLock() {
    backend.steal(key, "another-process");
    assertThat(locks.tryLock(name)).isFalse();
    assertThat(locks.isHeldByCurrentThread(name)).isFalse();
  }

  @Test
  void unlockByAThreadThatDoesNotHoldTheLockIsIllegal() {
    locks.lock(name);
    AtomicReference<Throwable> thrown = new AtomicReference<>();
    start(
        () -> {
          try {
            locks.unlock(name);
          } catch (Throwable t) {
            thrown.set(t);
          }
        });
    awaitUntil(() -> !other.isAlive());
    assertThat(thrown.get()).isExactlyInstanceOf(IllegalMonitorStateException.class);
    assertThat(locks.isHeldByCurrentThread(name)).isTrue();
    locks.unlock(name);
  }

  @Test
  void aLossFoundByRenewalIsReportedOnceAndThrownByTheNextUnlockOnly() {
    locks.lock(name);
    locks.lock(name);
    backend.steal(key, "another-process");
    ticker.advance(LEASE.toNanos() / 3); // a renewal is due
    awaitUntil(() -> !lost.isEmpty());
    assertThat(locks.isHeldByCurrentThread(name)).isFalse();
    assertThatThrownBy(() -> locks.unlock(name))
        .isInstanceOf(LockLostException.class)
        .hasMessageContaining(LossReporter.NOT_OURS);
    assertThatThrownBy(() -> locks.unlock(name))
        .isExactlyInstanceOf(IllegalMonitorStateException.class);
    assertThat(lost).singleElement().extracting(LockLostEvent::lockName).isEqualTo("a");
    assertThat(backend.calls(Op.RELEASE)).isZero();
  }

  @Test
  void closingTheFactoryReportsAHeldLockLost() {
    locks.lock(name);
    engine.close();
    assertThat(lost)
        .singleElement()
        .extracting(LockLostEvent::reason)
        .isEqualTo("the lock factory was closed");
    assertThatThrownBy(() -> locks.unlock(name)).isInstanceOf(LockLostException.class);
  }

  @Test
  void aThreadQueuedLocallyTakesTheHoldByHandoffWithoutARoundTrip() {
    locks.lock(name);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    start(
        () -> {
          try {
            locks.lock(name);
            locks.unlock(name);
          } catch (Throwable t) {
            failure.set(t);
          }
        });
    awaitUntil(() -> other.getState() == Thread.State.WAITING);
    String token = backend.holder(key);
    locks.unlock(name);
    awaitUntil(() -> !other.isAlive());
    assertThat(failure.get()).isNull();
    assertThat(backend.calls(Op.TRY_ACQUIRE)).isEqualTo(1);
    assertThat(backend.log())
        .filteredOn(call -> call.op() == Op.RELEASE)
        .singleElement()
        .extracting(Call::token)
        .isEqualTo(token);
    assertThat(backend.holder(key)).isNull();
  }

  @Test
  void aHolderByHandoffGetsAGreaterFencingToken() {
    locks.lock(name);
    long first = locks.getFencingToken(name);
    AtomicLong second = new AtomicLong();
    start(
        () -> {
          locks.lock(name);
          try {
            second.set(locks.getFencingToken(name));
          } finally {
            locks.unlock(name);
          }
        });
    awaitUntil(() -> other.getState() == Thread.State.WAITING);
    locks.unlock(name);
    awaitUntil(() -> !other.isAlive());
    assertThat(second.get()).isGreaterThan(first);
    assertThat(backend.calls(Op.TRY_ACQUIRE)).isEqualTo(1);
  }

  @Test
  void aReleaseOtherProcessesWaitedForGivesThemTheNextTurn() {
    backend.listenersOnRelease(1); // this factory has no subscription of its own
    locks.lock(name);
    locks.unlock(name);
    assertThat(engine.turnsGiven()).isEqualTo(1);
  }

  @Test
  void aReleaseNobodyWaitedForGivesNoTurn() {
    locks.lock(name);
    locks.unlock(name);
    assertThat(engine.turnsGiven()).isZero();
  }
}
