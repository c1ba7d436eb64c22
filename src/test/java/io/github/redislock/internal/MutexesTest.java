package io.github.redislock.internal;

import static io.github.redislock.internal.EngineFixture.awaitUntil;
import static io.github.redislock.internal.EngineFixture.join;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.redislock.LockLostEvent;
import io.github.redislock.LockLostException;
import io.github.redislock.internal.FakeBackend.Call;
import io.github.redislock.internal.FakeBackend.Op;
import io.github.redislock.internal.backend.ConditionKeys;
import io.github.redislock.internal.backend.Release;
import io.github.redislock.internal.engine.LockEngine;
import io.github.redislock.internal.util.Tokens;
import io.github.redislock.testing.Timing;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The exclusive mode of the acquisition pipeline ({@link Mutexes} over {@link Acquisitions}), wired
 * by a {@link LockEngine} on a fake backend and a manual ticker: what each {@code Lock} call does
 * in Redis on a free and a busy name, reentry, the release of the last hold, a lost hold's
 * revocation, interrupts, close, and the bounds of local handoff. "Another process" is a token of
 * the fake's key that no thread of this engine holds.
 */
class MutexesTest {
  private static final Duration LEASE = EngineFixture.LEASE;

  @RegisterExtension final EngineFixture fixture = EngineFixture.plain("mutexes-test:");
  private final ManualTicker ticker = fixture.ticker;
  private final FakeBackend backend = fixture.backend;
  private final List<LockLostEvent> lost = fixture.lost;
  private final LockEngine engine = fixture.engine;
  private final Mutexes locks = engine.exclusive();
  private final LockName name = locks.lockName("a");
  private final String key = "mutexes-test:a";

  /** Waits until {@code count} threads are queued locally behind the holder of {@link #name}. */
  private void awaitQueued(int count) {
    awaitUntil(() -> locks.getQueueLength(name) == count);
  }

  // ---- free and busy names ----

  @Test
  void tryLockOnAFreeNameTakesItsKeyAndTheLastUnlockDeletesIt() {
    assertThat(locks.tryLock(name)).isTrue();
    assertThat(backend.holder(key)).startsWith(Tokens.PREFIX);
    assertThat(locks.isHeldByCurrentThread(name)).isTrue();
    assertThat(fixture.namesInUse()).isEqualTo(1);
    assertThat(engine.activity().renewingHolds()).isEqualTo(1);

    locks.unlock(name);
    assertThat(backend.holder(key)).isNull();
    assertThat(backend.calls(Op.TRY_ACQUIRE)).isEqualTo(1);
    assertThat(backend.calls(Op.RELEASE)).isEqualTo(1);
    assertThat(locks.isHeldByCurrentThread(name)).isFalse();
    assertThat(fixture.namesInUse()).isZero();
    assertThat(engine.activity().renewingHolds()).isZero();
  }

  @Test
  void tryLockOnANameAnotherProcessHoldsMakesOneAttemptAndLeavesNothing() {
    backend.steal(key, "another-process");
    assertThat(locks.tryLock(name)).isFalse();
    assertThat(backend.calls(Op.TRY_ACQUIRE)).isEqualTo(1);
    assertThat(backend.holder(key)).isEqualTo("another-process");
    assertThat(locks.getQueueLength(name)).isZero();
    assertThat(fixture.namesInUse()).isZero();
    assertThat(backend.calls(Op.RELEASE)).isZero();
  }

  @Test
  void everyFormOfLockReentersWithoutARedisCallAndOnlyTheLastUnlockReleases()
      throws InterruptedException {
    locks.lock(name);
    String token = backend.holder(key);
    assertThat(locks.tryLock(name)).isTrue();
    assertThat(locks.tryLock(name, TimeUnit.SECONDS.toNanos(1))).isTrue();
    assertThat(locks.tryLock(name, 0)).isTrue();
    locks.lockInterruptibly(name);
    assertThat(locks.getHoldCount(name)).isEqualTo(5);
    assertThat(backend.log()).extracting(Call::op).containsExactly(Op.TRY_ACQUIRE);

    for (int held = 4; held >= 1; held--) {
      locks.unlock(name);
      assertThat(locks.getHoldCount(name)).isEqualTo(held);
    }
    assertThat(backend.calls(Op.RELEASE)).isZero();
    assertThat(backend.holder(key)).isEqualTo(token);

    locks.unlock(name);
    assertThat(backend.holder(key)).isNull();
    assertThat(backend.log())
        .filteredOn(call -> call.op() == Op.RELEASE)
        .singleElement()
        .extracting(Call::token)
        .isEqualTo(token);
  }

  @Test
  void aTimedTryLockOnABusyNameGivesUpAtItsDeadlineAndLeavesNothing() throws Exception {
    backend.setForever(key, "another-process");
    AtomicReference<Boolean> acquired = new AtomicReference<>();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Thread other =
        fixture.start(
            "timed",
            () -> acquired.set(locks.tryLock(name, TimeUnit.MILLISECONDS.toNanos(50))),
            failure);
    awaitUntil(() -> backend.calls(Op.TRY_ACQUIRE) >= 1);
    fixture.advanceUntil(() -> !other.isAlive()); // past the deadline

    assertThat(failure.get()).isNull();
    assertThat(acquired.get()).isFalse();
    assertThat(backend.holder(key)).isEqualTo("another-process");
    assertThat(backend.calls(Op.RELEASE)).isZero();
    assertThat(fixture.namesInUse()).isZero();
    assertThat(locks.getQueueLength(name)).isZero();
  }

  @Test
  void lockWaitsWhileAnotherProcessHoldsTheNameAndTakesItOnceFree() throws Exception {
    backend.steal(key, "another-process");
    CountDownLatch held = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    AtomicReference<String> token = new AtomicReference<>();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Thread other =
        fixture.start(
            "waiter",
            () -> {
              locks.lock(name);
              token.set(backend.holder(key));
              held.countDown();
              release.await();
              locks.unlock(name);
            },
            failure);
    awaitUntil(() -> backend.calls(Op.TRY_ACQUIRE) >= 1);
    assertThat(locks.getQueueLength(name)).as("the head waits for Redis").isEqualTo(1);
    assertThat(fixture.namesInUse()).isEqualTo(1);

    backend.delete(key); // the other process lets go; nobody publishes a wake-up here
    fixture.advanceUntil(() -> held.getCount() == 0); // the re-check is due by the holder's lease
    assertThat(token.get()).startsWith(Tokens.PREFIX);
    release.countDown();
    join(other);

    assertThat(failure.get()).isNull();
    assertThat(backend.holder(key)).isNull();
    assertThat(fixture.namesInUse()).isZero();
  }

  // ---- ownership ----

  @Test
  void unlockOfANameNeverLockedIsIllegalAndLeavesNoName() {
    assertThatThrownBy(() -> locks.unlock(name))
        .isExactlyInstanceOf(IllegalMonitorStateException.class);
    assertThat(fixture.namesInUse()).isZero();
    assertThat(backend.log()).isEmpty();
  }

  // ---- signals pending on a hold ----

  /**
   * Signals given under a hold travel with its release: the last unlock (not a reentrant one)
   * releases through their sender, the condition's release script, once, with every signal; never
   * by a handoff to the thread queued in this JVM, which then acquires in Redis.
   */
  @Test
  void aHoldWithPendingSignalsIsReleasedByTheirSenderAndNeverHandedOff() throws Exception {
    locks.lock(name);
    ConditionKeys condition = ConditionKeys.of(name.keys, "c", false);
    List<Map<ConditionKeys, Integer>> sent = new CopyOnWriteArrayList<>();
    PendingSignals signals =
        locks
            .currentHold(name)
            .pendingSignals(
                pending -> {
                  sent.add(Map.copyOf(pending.counts()));
                  backend.delete(key); // the script's release, beside recording the signals
                  return Release.RELEASED;
                });
    signals.add(condition, false);
    signals.add(condition, false);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Thread other =
        fixture.start(
            "queued",
            () -> {
              locks.lock(name);
              locks.unlock(name);
            },
            failure);
    awaitQueued(1);

    locks.lock(name);
    locks.unlock(name); // reentrant: nothing sent
    assertThat(sent).isEmpty();
    locks.unlock(name);
    join(other);
    assertThat(failure.get()).isNull();
    assertThat(sent).containsExactly(Map.of(condition, 2));
    assertThat(backend.calls(Op.TRY_ACQUIRE))
        .as("the queued thread acquired in Redis")
        .isEqualTo(2);
    assertThat(backend.calls(Op.RELEASE)).as("its own release only").isEqualTo(1);
    assertThat(backend.holder(key)).isNull();
    assertThat(fixture.namesInUse()).isZero();
  }

  /**
   * A release with signals that finds the hold gone (its script answers "not ours") throws {@link
   * LockLostException} from the unlock, and the name is left.
   */
  @Test
  void aReleaseWithSignalsThatFindsTheHoldGoneThrowsLockLostAndLeavesTheName() {
    locks.lock(name);
    locks
        .currentHold(name)
        .pendingSignals(pending -> Release.NOT_OURS)
        .add(ConditionKeys.of(name.keys, "c", false), true);

    assertThatThrownBy(() -> locks.unlock(name))
        .isExactlyInstanceOf(LockLostException.class)
        .hasMessageContaining(LossReporter.NOT_OURS);
    assertThat(locks.isHeldByCurrentThread(name)).isFalse();
    assertThat(fixture.namesInUse()).isZero();
    backend.delete(key); // the model's key: this sender released nothing
  }

  // ---- a lost hold ----

  /**
   * A hold found gone by its renewal is revoked at once: the thread queued behind its owner takes
   * the name while the owner has not called anything yet; the owner's next unlock learns of the
   * loss, once.
   */
  @Test
  void aLostHoldIsRevokedAtOnceAndTheQueuedThreadTakesTheName() throws Exception {
    locks.lock(name);
    CountDownLatch held = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Thread other =
        fixture.start(
            "queued",
            () -> {
              locks.lock(name);
              held.countDown();
              release.await();
              locks.unlock(name);
            },
            failure);
    awaitQueued(1);

    backend.delete(key); // gone behind its owner's back
    ticker.advance(LEASE.toNanos() / 3); // a renewal is due: it finds the key gone
    assertThat(held.await(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS))
        .as("the queued thread took the name before its former owner unlocked")
        .isTrue();
    // the listener hears of the loss after the name was handed on: the queued thread may run first
    awaitUntil(() -> !lost.isEmpty());
    assertThat(lost).singleElement().extracting(LockLostEvent::lockName).isEqualTo("a");
    assertThat(locks.isHeldByCurrentThread(name)).isFalse();
    assertThat(locks.getHoldCount(name)).isZero();

    assertThatThrownBy(() -> locks.unlock(name))
        .isExactlyInstanceOf(LockLostException.class)
        .hasMessageContaining(LossReporter.NOT_OURS);
    assertThatThrownBy(() -> locks.unlock(name))
        .isExactlyInstanceOf(IllegalMonitorStateException.class);

    release.countDown();
    join(other);
    assertThat(failure.get()).isNull();
    assertThat(backend.calls(Op.TRY_ACQUIRE)).isEqualTo(2); // the new owner's own acquisition
    assertThat(backend.calls(Op.RELEASE)).isEqualTo(1); // its release only
    assertThat(backend.holder(key)).isNull();
    assertThat(fixture.namesInUse()).isZero();
  }

  /**
   * A lost hold leaves its name unused at once, before its owner calls again; the owner's next
   * acquisition of the name (not only an unlock) learns of the loss, once.
   */
  @Test
  void aLostHoldFreesItsNameAtOnceAndTheOwnersNextAcquisitionLearnsOfIt() {
    locks.lock(name);
    locks.lock(name);
    backend.steal(key, "another-process");
    ticker.advance(LEASE.toNanos() / 3);
    awaitUntil(() -> !lost.isEmpty());

    assertThat(fixture.namesInUse()).isZero();
    assertThat(engine.activity().renewingHolds()).isZero();
    assertThatThrownBy(() -> locks.tryLock(name))
        .isExactlyInstanceOf(LockLostException.class)
        .hasMessageContaining(LossReporter.NOT_OURS);
    assertThat(backend.calls(Op.TRY_ACQUIRE)).as("refused before any attempt").isEqualTo(1);
    assertThatThrownBy(() -> locks.unlock(name))
        .isExactlyInstanceOf(IllegalMonitorStateException.class);
    assertThat(locks.tryLock(name)).as("another process holds it").isFalse();
    assertThat(backend.calls(Op.RELEASE)).isZero();
    assertThat(fixture.namesInUse()).isZero();
  }

  // ---- interrupts and close ----

  @Test
  void anInterruptedLockInterruptiblyQueuedLocallyLeavesNothingBehind() throws Exception {
    locks.lock(name);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Thread other = fixture.start("interrupted", () -> locks.lockInterruptibly(name), failure);
    awaitQueued(1);
    other.interrupt();
    join(other);

    assertThat(failure.get()).isInstanceOf(InterruptedException.class);
    assertThat(locks.getQueueLength(name)).isZero();
    assertThat(fixture.namesInUse()).isEqualTo(1); // the holder's

    locks.unlock(name); // nobody queued: a release, no handoff
    assertThat(backend.calls(Op.TRY_ACQUIRE)).isEqualTo(1);
    assertThat(backend.calls(Op.RELEASE)).isEqualTo(1);
    assertThat(backend.holder(key)).isNull();
    assertThat(fixture.namesInUse()).isZero();
  }

  @Test
  void anInterruptedLockInterruptiblyWaitingForRedisLeavesNothingBehind() throws Exception {
    backend.setForever(key, "another-process");
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Thread other = fixture.start("interrupted", () -> locks.lockInterruptibly(name), failure);
    awaitUntil(() -> backend.calls(Op.TRY_ACQUIRE) >= 1);
    other.interrupt();
    join(other);

    assertThat(failure.get()).isInstanceOf(InterruptedException.class);
    assertThat(locks.getQueueLength(name)).isZero();
    assertThat(fixture.namesInUse()).isZero();
    assertThat(backend.holder(key)).isEqualTo("another-process");
    assertThat(backend.calls(Op.RELEASE)).isZero();
  }

  @Test
  void closingTheFactoryWakesLocallyQueuedThreadsWithIllegalState() throws Exception {
    locks.lock(name);
    AtomicReference<Throwable> first = new AtomicReference<>();
    AtomicReference<Throwable> second = new AtomicReference<>();
    Thread one = fixture.start("queued-1", () -> locks.lock(name), first);
    Thread two =
        fixture.start("queued-2", () -> locks.tryLock(name, TimeUnit.HOURS.toNanos(1)), second);
    awaitQueued(2);

    engine.close();
    join(one);
    join(two);
    assertThat(first.get()).isExactlyInstanceOf(IllegalStateException.class);
    assertThat(second.get()).isExactlyInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> locks.unlock(name)).isInstanceOf(LockLostException.class);
    assertThatThrownBy(() -> locks.lock(name)).isExactlyInstanceOf(IllegalStateException.class);
    assertThat(backend.calls(Op.TRY_ACQUIRE)).isEqualTo(1);
  }

  @Test
  void closingTheFactoryWakesAThreadWaitingForRedisWithIllegalState() throws Exception {
    backend.setForever(key, "another-process");
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Thread other = fixture.start("waiter", () -> locks.lock(name), failure);
    awaitUntil(() -> backend.calls(Op.TRY_ACQUIRE) >= 1);

    engine.close();
    join(other);
    assertThat(failure.get()).isExactlyInstanceOf(IllegalStateException.class);
    assertThat(fixture.namesInUse()).isZero();
  }

  // ---- local handoff ----

  /**
   * {@value LocalHandoff#MAX_HANDOFFS} holders in a row take the hold by handoff; the next unlock
   * releases it in Redis, and the next thread acquires it there.
   */
  @Test
  void aHoldPassesToAtMostSixteenHoldersInARowThenGoesBackToRedis() throws Exception {
    int threads = LocalHandoff.MAX_HANDOFFS + 1;
    locks.lock(name);
    String first = backend.holder(key);
    List<AtomicReference<Throwable>> failures = new ArrayList<>();
    List<Thread> queued = new ArrayList<>();
    for (int i = 0; i < threads; i++) {
      AtomicReference<Throwable> failure = new AtomicReference<>();
      failures.add(failure);
      queued.add(
          fixture.start(
              "queued-" + i,
              () -> {
                locks.lock(name);
                locks.unlock(name);
              },
              failure));
    }
    awaitQueued(threads);

    locks.unlock(name); // the first handoff: every other thread is queued
    for (Thread thread : queued) {
      join(thread);
    }
    assertThat(failures).allSatisfy(failure -> assertThat(failure.get()).isNull());
    List<Call> redis = backend.log().stream().filter(call -> call.op() != Op.EXTEND).toList();
    assertThat(redis)
        .extracting(Call::op)
        .containsExactly(Op.TRY_ACQUIRE, Op.RELEASE, Op.TRY_ACQUIRE, Op.RELEASE);
    assertThat(redis.get(1).token()).isEqualTo(first); // released by the 16th holder after it
    assertThat(backend.holder(key)).isNull();
    assertThat(fixture.namesInUse()).isZero();
  }

  /**
   * A hold acquired in Redis {@value LocalHandoff#MAX_HANDOFF_MILLIS} ms ago or more is released,
   * not handed off: the queued thread acquires in Redis.
   */
  @Test
  void aHoldPastTheHandoffWindowIsReleasedAndTheQueuedThreadAcquiresInRedis() throws Exception {
    locks.lock(name);
    String first = backend.holder(key);
    AtomicReference<String> second = new AtomicReference<>();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Thread other =
        fixture.start(
            "queued",
            () -> {
              locks.lock(name);
              second.set(backend.holder(key));
              locks.unlock(name);
            },
            failure);
    awaitQueued(1);
    ticker.advance(Duration.ofMillis(LocalHandoff.MAX_HANDOFF_MILLIS));

    locks.unlock(name);
    join(other);
    assertThat(failure.get()).isNull();
    assertThat(backend.calls(Op.TRY_ACQUIRE)).isEqualTo(2);
    assertThat(backend.calls(Op.RELEASE)).isEqualTo(2);
    assertThat(second.get()).startsWith(Tokens.PREFIX).isNotEqualTo(first);
    assertThat(fixture.namesInUse()).isZero();
  }
}
