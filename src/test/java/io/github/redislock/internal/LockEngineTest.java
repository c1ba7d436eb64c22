package io.github.redislock.internal;

import static io.github.redislock.internal.EngineFixture.awaitUntil;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.redislock.LockLostEvent;
import io.github.redislock.LockLostException;
import io.github.redislock.internal.FakeBackend.Call;
import io.github.redislock.internal.FakeBackend.Op;
import io.github.redislock.internal.engine.LockEngine;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The {@code Lock} operations of the engine on a fake backend and a manual ticker: reentrancy,
 * ownership, a lost hold, and local handoff. Time stands still unless a test advances it, so a
 * handoff is always within its window.
 */
class LockEngineTest {
  private static final Duration LEASE = EngineFixture.LEASE;

  @RegisterExtension final EngineFixture fixture = EngineFixture.plain("engine-test:");
  private final ManualTicker ticker = fixture.ticker;
  private final FakeBackend backend = fixture.backend;
  private final List<LockLostEvent> lost = fixture.lost;
  private final LockEngine engine = fixture.engine;
  private final Mutexes locks = engine.exclusive();
  private final LockName name = locks.lockName("a");
  private final String key = "engine-test:a";
  private Thread other;

  /** Starts the test's other thread; the fixture joins it after the test. */
  private Thread start(Runnable task) {
    other = fixture.start("engine-test-other", task::run, new AtomicReference<>());
    return other;
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
    assertThat(engine.activity().turnsGiven()).isEqualTo(1);
  }

  @Test
  void aReleaseNobodyWaitedForGivesNoTurn() {
    locks.lock(name);
    locks.unlock(name);
    assertThat(engine.activity().turnsGiven()).isZero();
  }

  // ---- the maximum hold time of a hold a thread got from another ----

  /** Moves the clock to {@code millis} after the test's start and waits for a renewal there. */
  private void renewedAt(long start, long millis) {
    int before = backend.calls(Op.EXTEND);
    ticker.advance(start + TimeUnit.MILLISECONDS.toNanos(millis) - ticker.read());
    awaitUntil(() -> backend.calls(Op.EXTEND) > before);
  }

  /**
   * A thread queued for a lock object with a maximum hold time gets the hold by handoff from one
   * without: for that thread it is a new hold, whose maximum is its own lock object's, counted from
   * the handoff (as a condition's await that takes its signaller's hold does).
   */
  @Test
  void aHolderByHandoffHasTheMaximumOfItsOwnLockCountedFromTheHandoff() {
    long start = ticker.read();
    LockName limited = name.withMaxHoldTime(Duration.ofMillis(100));
    locks.lock(name); // no maximum
    AtomicBoolean held = new AtomicBoolean();
    AtomicBoolean done = new AtomicBoolean();
    AtomicReference<Throwable> unlocked = new AtomicReference<>();
    start(
        () -> {
          locks.lock(limited);
          held.set(true);
          awaitUntil(done::get);
          try {
            locks.unlock(limited);
          } catch (Throwable t) {
            unlocked.set(t);
          }
        });
    try {
      awaitUntil(() -> other.getState() == Thread.State.WAITING);
      ticker.advance(Duration.ofMillis(15)); // within the handoff window
      locks.unlock(name);
      awaitUntil(held::get);
      for (long millis = 20; millis <= 100; millis += 20) {
        renewedAt(start, millis); // the maximum ends at 115 ms, 100 ms after the handoff
      }
      ticker.advance(Duration.ofMillis(150)); // not renewed after 115 ms: its lease runs out
      awaitUntil(() -> !lost.isEmpty());
      assertThat(lost)
          .singleElement()
          .extracting(LockLostEvent::reason)
          .asString()
          .contains("max hold time");
    } finally {
      done.set(true);
    }
    awaitUntil(() -> !other.isAlive());
    assertThat(unlocked.get()).isInstanceOf(LockLostException.class);
  }

  /**
   * An awaiter that a signal's release handed the lock to takes that hold: its maximum hold time
   * counts from then, not from the start of the call that last renewed its entry, which its lease
   * counts from.
   */
  @Test
  void anAwaiterHandedTheLockHasItsMaximumCountedFromWhenItTakesIt() {
    long start = ticker.read(); // the awaiter's entry was last renewed now
    LockName limited = name.withMaxHoldTime(Duration.ofMillis(100));
    backend.steal(key, "rl1:handed"); // the release handed the key to the awaiter's id
    ticker.advance(Duration.ofMillis(50));
    int before = backend.calls(Op.EXTEND); // counted first: the renewer may renew at once
    assertThat(locks.takeHanded(limited, 1, "rl1:handed", start)).isTrue();
    // Its lease counts from the start: a renewal is due at once, then every 20 ms.
    awaitUntil(() -> backend.calls(Op.EXTEND) > before);
    for (long millis = 70; millis <= 130; millis += 20) {
      renewedAt(start, millis); // the maximum ends at 150 ms, 100 ms after it took the hold
    }
    ticker.advance(Duration.ofMillis(150)); // not renewed after 150 ms: its lease runs out
    awaitUntil(() -> !lost.isEmpty());
    assertThat(lost)
        .singleElement()
        .extracting(LockLostEvent::reason)
        .asString()
        .contains("max hold time");
    assertThatThrownBy(() -> locks.unlock(limited)).isInstanceOf(LockLostException.class);
  }
}
