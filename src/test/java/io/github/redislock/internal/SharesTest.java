package io.github.redislock.internal;

import static io.github.redislock.internal.EngineFixture.awaitUntil;
import static io.github.redislock.internal.EngineFixture.join;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.redislock.LockLostEvent;
import io.github.redislock.LockLostException;
import io.github.redislock.internal.FakeBackend.Op;
import io.github.redislock.internal.engine.LockEngine;
import io.github.redislock.internal.engine.ReadWriteFamily;
import io.github.redislock.testing.Timing;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The shared mode of the acquisition pipeline ({@link Shares}, the read locks) beside its exclusive
 * mode (the write locks), wired by a {@link LockEngine} on a fake backend with its model of the
 * read-write scripts and a manual ticker: a share per reading thread, reentry, the last unlock's
 * release, a lost share, a downgrade and a refused upgrade.
 */
class SharesTest {
  private static final Duration LEASE = EngineFixture.LEASE;

  @RegisterExtension final EngineFixture fixture = EngineFixture.readWrite("shares-test:");
  private final ManualTicker ticker = fixture.ticker;
  private final FakeBackend backend = fixture.backend;
  private final List<LockLostEvent> lost = fixture.lost;
  private final LockEngine engine = fixture.engine;
  private final ReadWriteFamily locks = engine.readWrite();
  private final LockName name = locks.lockName("a");
  private final String key = "shares-test:a";
  private final String sharesKey = name.keys.readShares();
  private final String intentsKey = name.keys.writerIntents();

  private static boolean await(CountDownLatch latch) throws InterruptedException {
    return latch.await(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS);
  }

  /** Another reading thread: it takes the read lock, then holds it until {@code release}. */
  private Thread reader(
      CountDownLatch reading, CountDownLatch release, AtomicReference<Throwable> failure) {
    return fixture.start(
        "reader",
        () -> {
          locks.lockRead(name);
          reading.countDown();
          release.await();
          locks.unlockRead(name);
        },
        failure);
  }

  @Test
  void eachReadingThreadHoldsAShareOfItsOwnAndTheLastUnlockGivesItBack() throws Exception {
    locks.lockRead(name);
    CountDownLatch reading = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Thread other = reader(reading, release, failure);
    assertThat(await(reading)).isTrue();

    assertThat(backend.shares(sharesKey)).hasSize(2);
    assertThat(locks.getReadLockCount(name)).isEqualTo(2);
    assertThat(locks.getReadHoldCount(name)).isEqualTo(1);
    assertThat(engine.activity().renewingHolds()).isEqualTo(2);
    assertThat(backend.calls(Op.TRY_READ)).isEqualTo(2);

    release.countDown();
    join(other);
    assertThat(failure.get()).isNull();
    assertThat(backend.shares(sharesKey)).hasSize(1);
    assertThat(locks.getReadHoldCount(name)).isEqualTo(1);
    assertThat(fixture.namesInUse()).isEqualTo(1);

    locks.unlockRead(name);
    assertThat(backend.shares(sharesKey)).isEmpty();
    assertThat(backend.calls(Op.RELEASE_SHARE)).isEqualTo(2);
    assertThat(fixture.namesInUse()).isZero();
    assertThat(engine.activity().renewingHolds()).isZero();
  }

  @Test
  void readReentryIsCountedWithoutARedisCallAndOnlyTheLastUnlockReleases() throws Exception {
    locks.lockRead(name);
    assertThat(locks.tryLockRead(name)).isTrue();
    assertThat(locks.tryLockRead(name, TimeUnit.SECONDS.toNanos(1))).isTrue();
    locks.lockReadInterruptibly(name);
    assertThat(locks.getReadHoldCount(name)).isEqualTo(4);
    assertThat(backend.calls(Op.TRY_READ)).isEqualTo(1);
    String share = backend.shares(sharesKey).iterator().next();

    for (int held = 3; held >= 1; held--) {
      locks.unlockRead(name);
      assertThat(locks.getReadHoldCount(name)).isEqualTo(held);
    }
    assertThat(backend.calls(Op.RELEASE_SHARE)).isZero();
    assertThat(backend.shares(sharesKey)).containsExactly(share);

    locks.unlockRead(name);
    assertThat(backend.shares(sharesKey)).isEmpty();
    assertThat(backend.log())
        .filteredOn(call -> call.op() == Op.RELEASE_SHARE)
        .singleElement()
        .extracting(FakeBackend.Call::token)
        .isEqualTo(share);
    assertThat(fixture.namesInUse()).isZero();
    assertThatThrownBy(() -> locks.unlockRead(name))
        .isExactlyInstanceOf(IllegalMonitorStateException.class);
  }

  @Test
  void aReadLockWaitsForAWriterOfAnotherProcess() {
    backend.steal(key, "another-process");
    assertThat(locks.tryLockRead(name)).isFalse();
    assertThat(backend.calls(Op.TRY_READ)).isEqualTo(1);
    assertThat(backend.shares(sharesKey)).isEmpty();
    assertThat(fixture.namesInUse()).isZero();
  }

  /**
   * A share found gone by its renewal is reported once and no longer renewed; its thread learns of
   * the loss at its next unlock, once; another thread's share of the name is not touched. (That it
   * is forgotten before its thread calls again is pinned by the next test, where the name's use
   * shows it.)
   */
  @Test
  void aLostShareIsToldToItsThreadOnceAndLeavesOtherSharesAlone() throws Exception {
    locks.lockRead(name);
    locks.lockRead(name);
    String mine = backend.shares(sharesKey).iterator().next();
    CountDownLatch reading = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Thread other = reader(reading, release, failure);
    assertThat(await(reading)).isTrue();

    backend.deleteShare(sharesKey, mine);
    ticker.advance(LEASE.toNanos() / 3); // a renewal is due: it finds the share gone
    awaitUntil(() -> !lost.isEmpty());
    assertThat(lost).singleElement().extracting(LockLostEvent::lockName).isEqualTo("a");
    awaitUntil(() -> engine.activity().renewingHolds() == 1); // the other reader's only
    assertThat(locks.getReadHoldCount(name)).isZero();

    assertThatThrownBy(() -> locks.unlockRead(name))
        .isExactlyInstanceOf(LockLostException.class)
        .hasMessageContaining(LossReporter.NOT_OURS);
    assertThatThrownBy(() -> locks.unlockRead(name))
        .isExactlyInstanceOf(IllegalMonitorStateException.class);

    release.countDown();
    join(other);
    assertThat(failure.get()).as("the other reader's unlock").isNull();
    assertThat(backend.calls(Op.RELEASE_SHARE)).isEqualTo(1); // the other reader's
    assertThat(backend.shares(sharesKey)).isEmpty();
    assertThat(fixture.namesInUse()).isZero();
  }

  @Test
  void aLostShareLeavesItsNameUnusedBeforeItsThreadCallsAgain() {
    locks.lockRead(name);
    backend.deleteShare(sharesKey, backend.shares(sharesKey).iterator().next());
    ticker.advance(LEASE.toNanos() / 3);
    awaitUntil(() -> !lost.isEmpty());

    assertThat(fixture.namesInUse()).isZero();
    assertThat(engine.activity().renewingHolds()).isZero();
    assertThatThrownBy(() -> locks.tryLockRead(name))
        .as("an acquisition learns of the loss too")
        .isExactlyInstanceOf(LockLostException.class);
    assertThat(locks.tryLockRead(name)).isTrue(); // told once: then a new share
    locks.unlockRead(name);
    assertThat(backend.calls(Op.TRY_READ)).isEqualTo(2);
    assertThat(fixture.namesInUse()).isZero();
  }

  // ---- between the modes, in one thread ----

  @Test
  void aWriterTakesTheReadLockAndKeepsItAfterItsWriteUnlock() {
    locks.lockWrite(name);
    String writer = backend.holder(key);
    locks.lockRead(name); // a downgrade
    assertThat(locks.getReadHoldCount(name)).isEqualTo(1);
    assertThat(backend.shares(sharesKey)).hasSize(1);

    locks.unlockWrite(name);
    assertThat(backend.holder(key)).isNull();
    assertThat(backend.log())
        .filteredOn(call -> call.op() == Op.RELEASE)
        .singleElement()
        .extracting(FakeBackend.Call::token)
        .isEqualTo(writer);
    assertThat(locks.isWriteLockedByCurrentThread(name)).isFalse();
    assertThat(locks.getReadHoldCount(name)).isEqualTo(1);
    assertThat(fixture.namesInUse()).isEqualTo(1);

    locks.unlockRead(name);
    assertThat(backend.shares(sharesKey)).isEmpty();
    assertThat(fixture.namesInUse()).isZero();
  }

  @Test
  void aReaderMayNotTakeTheWriteLock() {
    locks.lockRead(name);
    assertThatThrownBy(() -> locks.lockWrite(name))
        .isExactlyInstanceOf(IllegalMonitorStateException.class)
        .hasMessageContaining("holds the read lock");
    assertThatThrownBy(() -> locks.tryLockWrite(name))
        .isExactlyInstanceOf(IllegalMonitorStateException.class);
    assertThatThrownBy(() -> locks.tryLockWrite(name, TimeUnit.SECONDS.toNanos(1)))
        .isExactlyInstanceOf(IllegalMonitorStateException.class);
    assertThat(backend.calls(Op.TRY_WRITE)).isZero();
    assertThat(locks.getReadHoldCount(name)).isEqualTo(1);
    assertThat(backend.intents(intentsKey)).isEmpty();
    locks.unlockRead(name);
    assertThat(fixture.namesInUse()).isZero();
  }

  // ---- between threads ----

  /**
   * A writer waits for the readers' shares and leaves an intent that holds later readers back (but
   * not a barging {@code tryLock()}); once the last share goes, it takes the lock and its intent
   * goes.
   */
  @Test
  void aWaitingWriterHoldsLaterReadersBackAndTakesTheLockOnceTheSharesGo() throws Exception {
    locks.lockRead(name);
    CountDownLatch writing = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Thread writer =
        fixture.start(
            "writer",
            () -> {
              locks.lockWrite(name);
              writing.countDown();
              release.await();
              locks.unlockWrite(name);
            },
            failure);
    awaitUntil(() -> !backend.intents(intentsKey).isEmpty());

    AtomicInteger refused = new AtomicInteger();
    AtomicReference<Throwable> readFailure = new AtomicReference<>();
    Thread later =
        fixture.start(
            "later-reader",
            () -> {
              if (!locks.tryLockRead(name, 0)) {
                refused.incrementAndGet();
              }
              if (locks.tryLockRead(name)) { // barges
                locks.unlockRead(name);
              }
            },
            readFailure);
    join(later);
    assertThat(readFailure.get()).isNull();
    assertThat(refused.get()).as("held back by the intent").isEqualTo(1);

    locks.unlockRead(name); // the last share: the writer re-checks by the shares' lease at most
    fixture.advanceUntil(() -> writing.getCount() == 0);
    assertThat(backend.intents(intentsKey)).isEmpty();
    assertThat(backend.holder(key)).isNotNull();
    release.countDown();
    join(writer);
    assertThat(failure.get()).isNull();
    assertThat(backend.holder(key)).isNull();
    assertThat(fixture.namesInUse()).isZero();
  }
}
