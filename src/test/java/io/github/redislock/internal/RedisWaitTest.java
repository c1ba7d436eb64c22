package io.github.redislock.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.redislock.RedisLockException;
import io.github.redislock.internal.FakeBackend.Call;
import io.github.redislock.internal.FakeBackend.Op;
import io.github.redislock.internal.Waits.RedisWait;
import io.github.redislock.internal.backend.LockKeys;
import io.github.redislock.internal.backend.Release;
import io.github.redislock.internal.kind.ExclusiveKind;
import io.github.redislock.internal.util.Ticker;
import io.github.redislock.internal.wakeup.WakeUpHub;
import io.github.redislock.testing.Timing;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * One acquisition's attempts and waits, on a fake backend. The waits park for real (a {@link
 * Signal} parks the thread), so most tests run on the system ticker with waits of a few
 * milliseconds; the yield test runs on a manual ticker, so that the yield lasts until the test ends
 * it.
 */
class RedisWaitTest {
  private static final Duration LEASE = Duration.ofSeconds(30);
  private static final String NAME = "wait-test";
  private static final LockKeys KEYS = LockKeys.of(NAME);

  private final ExecutorService io = Executors.newCachedThreadPool();
  private final Lifecycle lifecycle = new Lifecycle();
  private Ticker ticker = Ticker.SYSTEM;
  private FakeBackend backend = new FakeBackend(ticker, LEASE);
  private Releases releases =
      new Releases(
          NodeExecutor.of(Runnable::run),
          ticker,
          LEASE.toNanos(),
          new Telemetry(false, null, ticker));
  private WakeUpHub wakeUps = new WakeUpHub(List.of(), io, ticker);
  private Turns turns = new Turns(ticker, wakeUps);
  private Thread waiter;

  @AfterEach
  void stop() throws InterruptedException {
    if (waiter != null) {
      waiter.join(Timing.awaitAtMost().toMillis());
      assertThat(waiter.isAlive()).isFalse();
    }
    wakeUps.close();
    io.shutdownNow();
    assertThat(io.awaitTermination(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS))
        .isTrue();
  }

  /** Runs every piece on {@code clock} instead of the system ticker. */
  private void useTicker(Ticker clock) {
    ticker = clock;
    backend = new FakeBackend(clock, LEASE);
    releases =
        new Releases(
            NodeExecutor.of(Runnable::run),
            clock,
            LEASE.toNanos(),
            new Telemetry(false, null, clock));
    wakeUps = new WakeUpHub(List.of(), io, clock);
    turns = new Turns(clock, wakeUps);
  }

  /**
   * An acquisition of {@link #NAME}; a timed one whose budget is under {@code slowCall} runs async.
   */
  private RedisWait wait(Mode mode, long timeoutNanos, Duration slowCall) {
    Waits waits =
        new Waits(
            wakeUps,
            turns,
            releases,
            lifecycle,
            ticker,
            slowCall.toNanos(),
            LEASE.toNanos(),
            NodeExecutor.of(io));
    return waits.wait(NAME, KEYS, new ExclusiveKind(backend), mode, ticker.read() + timeoutNanos);
  }

  private RedisWait wait(Mode mode) {
    return wait(mode, 0, Duration.ZERO);
  }

  /** What a wait run in another thread ended with. */
  private static final class Outcome {
    final AtomicReference<Boolean> acquired = new AtomicReference<>();
    final AtomicReference<Throwable> failure = new AtomicReference<>();
    final AtomicBoolean interruptedAfter = new AtomicBoolean();
  }

  private Outcome runInThread(RedisWait wait) {
    Outcome outcome = new Outcome();
    waiter =
        new Thread(
            () -> {
              try {
                outcome.acquired.set(wait.run());
              } catch (Throwable t) {
                outcome.failure.set(t);
              }
              outcome.interruptedAfter.set(Thread.currentThread().isInterrupted());
            },
            "redis-wait-test");
    waiter.setDaemon(true);
    waiter.start();
    return outcome;
  }

  private static ConditionFactory await() {
    return Awaitility.await()
        .atMost(Timing.awaitAtMost())
        .pollDelay(Duration.ZERO)
        .pollInterval(Duration.ofMillis(1));
  }

  private void awaitUntil(BooleanSupplier condition) {
    await().until(condition::getAsBoolean);
  }

  private List<Call> calls(Op op) {
    return backend.log().stream().filter(call -> call.op() == op).toList();
  }

  // ---- one attempt ----

  @Test
  void onceAcquiresAFreeLock() throws InterruptedException {
    RedisWait wait = wait(Mode.ONCE);
    assertThat(wait.run()).isTrue();
    assertThat(backend.holder(KEYS.lock())).isEqualTo(wait.token());
    assertThat(wait.granted().acquired()).isTrue();
  }

  @Test
  void onceOnABusyLockReturnsFalseAfterOneAttempt() throws InterruptedException {
    backend.steal(KEYS.lock(), "someone-else");
    assertThat(wait(Mode.ONCE).run()).isFalse();
    assertThat(backend.calls(Op.TRY_ACQUIRE)).isEqualTo(1);
  }

  @Test
  void aTransientFailureInOnceModeIsThrown() {
    backend.failNext(Op.TRY_ACQUIRE, 1);
    assertThatThrownBy(() -> wait(Mode.ONCE).run())
        .isInstanceOf(RedisLockException.class)
        .hasMessageContaining("injected failure of TRY_ACQUIRE");
    assertThat(backend.calls(Op.TRY_ACQUIRE)).isEqualTo(1);
  }

  @Test
  void aNonTransientFailureIsThrownInLockMode() {
    backend.failNext(
        Op.TRY_ACQUIRE, 1, () -> new RedisLockException("WRONGTYPE", new IllegalStateException()));
    assertThatThrownBy(() -> wait(Mode.UNINTERRUPTIBLE).run())
        .isInstanceOf(RedisLockException.class)
        .hasMessage("WRONGTYPE");
    assertThat(backend.calls(Op.TRY_ACQUIRE)).isEqualTo(1);
  }

  @Test
  void anAbandonedFailedAttemptIsReleased() {
    backend.loseReplyNext(Op.TRY_ACQUIRE, 1); // acquired in Redis, but the reply is lost
    assertThatThrownBy(() -> wait(Mode.ONCE).run()).isInstanceOf(RedisLockException.class);
    List<Call> attempts = calls(Op.TRY_ACQUIRE);
    assertThat(calls(Op.RELEASE))
        .singleElement()
        .extracting(Call::token)
        .isEqualTo(attempts.get(0).token());
    assertThat(backend.holder(KEYS.lock())).isNull();
  }

  // ---- retries and interrupts ----

  @Test
  void lockModeRetriesTransientFailuresUntilTheBackendRecovers() throws InterruptedException {
    backend.failNext(Op.TRY_ACQUIRE, 3);
    RedisWait wait = wait(Mode.UNINTERRUPTIBLE);
    assertThat(wait.run()).isTrue();
    assertThat(backend.calls(Op.TRY_ACQUIRE)).isEqualTo(4);
    assertThat(backend.holder(KEYS.lock())).isEqualTo(wait.token());
  }

  @Test
  void everyFailedAttemptUsesAFreshTokenAndIsCleanedUp() throws InterruptedException {
    backend.failNext(Op.TRY_ACQUIRE, 2);
    RedisWait wait = wait(Mode.UNINTERRUPTIBLE);
    assertThat(wait.run()).isTrue();
    List<String> tokens = calls(Op.TRY_ACQUIRE).stream().map(Call::token).toList();
    assertThat(tokens).doesNotHaveDuplicates().hasSize(3);
    assertThat(calls(Op.RELEASE)).extracting(Call::token).isEqualTo(tokens.subList(0, 2));
    assertThat(backend.holder(KEYS.lock())).isEqualTo(tokens.get(2));
  }

  @Test
  void lockModeKeepsRetryingThroughAnInterruptAndSetsTheFlagAgain() {
    backend.failNext(Op.TRY_ACQUIRE, Integer.MAX_VALUE);
    Outcome outcome = runInThread(wait(Mode.UNINTERRUPTIBLE));
    awaitUntil(() -> backend.calls(Op.TRY_ACQUIRE) >= 1);
    waiter.interrupt();
    int beforeInterrupt = backend.calls(Op.TRY_ACQUIRE);
    awaitUntil(() -> backend.calls(Op.TRY_ACQUIRE) > beforeInterrupt);
    backend.recover();
    awaitUntil(() -> !waiter.isAlive());
    assertThat(outcome.failure.get()).isNull();
    assertThat(outcome.acquired.get()).isTrue();
    assertThat(outcome.interruptedAfter.get()).isTrue();
  }

  @Test
  void lockModeWaitsForABusyLockThroughAnInterrupt() {
    backend.steal(KEYS.lock(), "someone-else");
    Outcome outcome = runInThread(wait(Mode.UNINTERRUPTIBLE));
    awaitUntil(() -> backend.calls(Op.TRY_ACQUIRE) >= 1);
    waiter.interrupt();
    int beforeInterrupt = backend.calls(Op.TRY_ACQUIRE);
    awaitUntil(() -> backend.calls(Op.TRY_ACQUIRE) > beforeInterrupt);
    backend.delete(KEYS.lock());
    awaitUntil(() -> !waiter.isAlive());
    assertThat(outcome.acquired.get()).isTrue();
    assertThat(outcome.interruptedAfter.get()).isTrue();
  }

  @Test
  void lockInterruptiblyThrowsWhenInterruptedWhileWaiting() {
    backend.steal(KEYS.lock(), "someone-else");
    Outcome outcome = runInThread(wait(Mode.INTERRUPTIBLE));
    awaitUntil(() -> backend.calls(Op.TRY_ACQUIRE) >= 1);
    waiter.interrupt();
    awaitUntil(() -> !waiter.isAlive());
    assertThat(outcome.failure.get()).isInstanceOf(InterruptedException.class);
    assertThat(outcome.interruptedAfter.get()).isFalse();
  }

  @Test
  void lockInterruptiblyThrowsWhenInterruptedWhileBackingOff() {
    backend.failNext(Op.TRY_ACQUIRE, Integer.MAX_VALUE);
    Outcome outcome = runInThread(wait(Mode.INTERRUPTIBLE));
    awaitUntil(() -> backend.calls(Op.TRY_ACQUIRE) >= 1);
    waiter.interrupt();
    awaitUntil(() -> !waiter.isAlive());
    assertThat(outcome.failure.get()).isInstanceOf(InterruptedException.class);
  }

  // ---- deadlines ----

  @Test
  void aTimedWaitOnABusyLockReturnsFalseAtItsDeadline() throws InterruptedException {
    backend.steal(KEYS.lock(), "someone-else");
    RedisWait wait = wait(Mode.TIMED, TimeUnit.MILLISECONDS.toNanos(20), Duration.ZERO);
    assertThat(wait.run()).isFalse();
    assertThat(backend.calls(Op.TRY_ACQUIRE)).isGreaterThanOrEqualTo(1);
  }

  @Test
  void aTimedWaitThrowsTheFailureWhenRedisIsDownAtItsDeadline() {
    backend.failNext(Op.TRY_ACQUIRE, Integer.MAX_VALUE);
    RedisWait wait = wait(Mode.TIMED, TimeUnit.MILLISECONDS.toNanos(20), Duration.ZERO);
    assertThatThrownBy(wait::run)
        .isInstanceOf(RedisLockException.class)
        .hasMessageContaining("injected failure of TRY_ACQUIRE");
  }

  @Test
  void aTimedAttemptAbandonedAtTheDeadlineIsReleasedWhenItCompletes() {
    CountDownLatch gate = backend.stallNext(Op.TRY_ACQUIRE);
    // the budget is under the slow-call bound: the attempt runs on the I/O executor
    RedisWait wait = wait(Mode.TIMED, TimeUnit.MILLISECONDS.toNanos(1), Duration.ofSeconds(1));
    assertThatThrownBy(wait::run)
        .isInstanceOf(RedisLockException.class)
        .hasMessageContaining("did not answer before the deadline");
    String attempt = calls(Op.TRY_ACQUIRE).get(0).token();
    assertThat(calls(Op.RELEASE)).as("not before the attempt is done").isEmpty();
    gate.countDown(); // the attempt acquires now, for nobody
    // the key is free before the stalled attempt takes it: wait for the release, not for "free"
    awaitUntil(() -> !calls(Op.RELEASE).isEmpty());
    assertThat(calls(Op.RELEASE)).extracting(Call::token).containsExactly(attempt);
    awaitUntil(() -> backend.holder(KEYS.lock()) == null);
  }

  // ---- close ----

  @Test
  void aClosedFactoryRefusesToWait() {
    lifecycle.close();
    assertThatThrownBy(() -> wait(Mode.UNINTERRUPTIBLE).run())
        .isInstanceOf(IllegalStateException.class);
    assertThat(backend.calls(Op.TRY_ACQUIRE)).isZero();
  }

  @Test
  void closingTheFactoryWakesAWaiterWhichThenThrows() {
    backend.setForever(KEYS.lock(), "not-ours"); // a foreign key that never expires
    Outcome outcome = runInThread(wait(Mode.UNINTERRUPTIBLE));
    awaitUntil(() -> backend.calls(Op.TRY_ACQUIRE) >= 1);
    lifecycle.close();
    wakeUps.close();
    awaitUntil(() -> !waiter.isAlive());
    assertThat(outcome.failure.get()).isInstanceOf(IllegalStateException.class);
  }

  // ---- turns ----

  @Test
  void theYieldOwedIsPaidBeforeTheFirstAttempt() {
    ManualTicker manual = new ManualTicker();
    useTicker(manual);
    turns.released(NAME, KEYS, new Release(true, 1)); // another process waited
    Outcome outcome = runInThread(wait(Mode.UNINTERRUPTIBLE));
    awaitUntil(() -> waiter.getState() == Thread.State.TIMED_WAITING || !waiter.isAlive());
    assertThat(backend.calls(Op.TRY_ACQUIRE)).isZero(); // the lock is free, yet no attempt
    assertThat(waiter.isAlive()).isTrue();
    manual.advance(turns.yieldNanos());
    awaitUntil(() -> !waiter.isAlive());
    assertThat(outcome.acquired.get()).isTrue();
    assertThat(backend.calls(Op.TRY_ACQUIRE)).isEqualTo(1);
  }

  @Test
  void onceDoesNotPayTheYieldAndLeavesItOwed() throws InterruptedException {
    ManualTicker manual = new ManualTicker();
    useTicker(manual);
    turns.released(NAME, KEYS, new Release(true, 1)); // another process waited
    assertThat(wait(Mode.ONCE).run()).isTrue();
    assertThat(turns.takeYieldNanos(NAME)).isPositive();
  }
}
