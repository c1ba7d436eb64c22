package io.github.redislock.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.redislock.internal.FakeBackend.Op;
import io.github.redislock.internal.backend.Acquisition;
import io.github.redislock.internal.backend.LockKeys;
import io.github.redislock.internal.kind.ExclusiveKind;
import io.github.redislock.internal.util.Tokens;
import io.github.redislock.testing.Timing;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Local handoff's bounds (by the ticker and by count), and what becomes of a handed-off hold: taken
 * by the next owner, or released when it is expired or nobody takes it.
 */
class LocalHandoffTest {
  private static final Duration LEASE = Duration.ofSeconds(30);
  private static final long WINDOW = TimeUnit.MILLISECONDS.toNanos(LocalHandoff.MAX_HANDOFF_MILLIS);
  private static final LockKeys KEYS = LockKeys.of("handoff-test");

  private final ManualTicker ticker = new ManualTicker();
  private final FakeBackend backend = new FakeBackend(ticker, LEASE);
  private final Releases releases =
      new Releases(
          NodeExecutor.of(Runnable::run),
          ticker,
          LEASE.toNanos(),
          new Telemetry(false, null, ticker));
  private final LocalHandoff handoff = new LocalHandoff(ticker, releases, new Lifecycle());
  private final NameState state = new NameState("handoff-test", KEYS, new Lifecycle(), false);
  private final List<Thread> threads = new ArrayList<>();

  @AfterEach
  void letQueuedThreadsFinish() throws InterruptedException {
    while (state.local.isHeldByCurrentThread()) {
      state.local.unlockOnce();
    }
    for (Thread thread : threads) {
      thread.join(Timing.awaitAtMost().toMillis());
      assertThat(thread.isAlive()).isFalse();
    }
  }

  /** A hold acquired in Redis now, valid for {@code valid} (the key's lease is {@link #LEASE}). */
  private Hold acquire(Duration valid) {
    String token = Tokens.next();
    Acquisition granted = backend.tryAcquire(KEYS, token, false, false);
    assertThat(granted.acquired()).isTrue();
    long now = ticker.read();
    return new Hold(
        new ExclusiveKind(backend),
        null,
        state.name,
        KEYS,
        token,
        0,
        null,
        now,
        now + valid.toNanos(),
        ticker);
  }

  /**
   * Starts a thread that queues for {@code state.local} (which the caller holds), runs {@code
   * whenOwner} once it owns it, and leaves; returns once it is queued.
   */
  private Thread queue(Runnable whenOwner) {
    assertThat(state.local.isHeldByCurrentThread()).isTrue();
    Thread thread =
        new Thread(
            () -> {
              state.local.lock();
              try {
                whenOwner.run();
              } finally {
                state.local.unlockOnce();
              }
            },
            "queued-for-handoff-test");
    thread.setDaemon(true);
    threads.add(thread);
    thread.start();
    await()
        .atMost(Timing.awaitAtMost())
        .pollDelay(Duration.ZERO)
        .pollInterval(Duration.ofMillis(1))
        .until(() -> state.local.isQueued(thread));
    return thread;
  }

  /**
   * An unlock that hands its hold off as the factory closes (a waiter was queued when it looked,
   * and the close woke it away) finds the local queue closed when it releases the orphan: it
   * returns as an unlock does, and leaves the hold to the close (which reports it lost; its key
   * expires with its lease), rather than throwing the closed factory's {@code
   * IllegalStateException}.
   */
  @Test
  void aHandOffAsTheFactoryClosesLeavesTheOrphanToTheClose() {
    Lifecycle lifecycle = new Lifecycle();
    NameState closing = new NameState("handoff-test", KEYS, lifecycle, false);
    Hold hold = acquire(LEASE);
    closing.local.lock();
    lifecycle.close();
    assertThat(handoff.handOff(closing, hold)).isTrue();
    assertThat(closing.local.isHeldByCurrentThread()).isFalse();
    assertThat(closing.handoff).isSameAs(hold);
    assertThat(backend.calls(Op.RELEASE)).isZero();
  }

  @Test
  void mayHandOffOnlyWithinTwentyMillisOfTheRedisAcquisition() {
    Hold hold = acquire(LEASE);
    state.local.lock();
    queue(() -> {});
    ticker.advance(WINDOW - 1);
    assertThat(handoff.mayHandOff(state, hold)).isTrue();
    ticker.advance(1);
    assertThat(handoff.mayHandOff(state, hold)).isFalse();
  }

  @Test
  void mayHandOffAtMostSixteenHoldersInARow() {
    Hold hold = acquire(LEASE);
    state.local.lock();
    queue(() -> {});
    state.handoffs = LocalHandoff.MAX_HANDOFFS - 1;
    assertThat(handoff.mayHandOff(state, hold)).isTrue();
    state.handoffs = LocalHandoff.MAX_HANDOFFS;
    assertThat(handoff.mayHandOff(state, hold)).isFalse();
  }

  @Test
  void anAcquisitionInRedisStartsTheCountOfHandoffsAgain() {
    Hold hold = acquire(LEASE);
    state.local.lock();
    queue(() -> {});
    state.handoffs = LocalHandoff.MAX_HANDOFFS;
    handoff.acquiredInRedis(state);
    assertThat(state.handoffs).isZero();
    assertThat(handoff.mayHandOff(state, hold)).isTrue();
  }

  @Test
  void mayNotHandOffWithoutAQueuedThread() {
    Hold hold = acquire(LEASE);
    state.local.lock();
    assertThat(handoff.mayHandOff(state, hold)).isFalse();
  }

  @Test
  void mayNotHandOffAnExpiredHold() {
    Hold hold = acquire(Duration.ofMillis(10));
    state.local.lock();
    queue(() -> {});
    ticker.advance(Duration.ofMillis(10));
    assertThat(handoff.mayHandOff(state, hold)).isFalse();
  }

  @Test
  void mayNotHandOffALostHold() {
    Hold hold = acquire(LEASE);
    state.local.lock();
    queue(() -> {});
    hold.markLost("renewal found the key gone");
    assertThat(handoff.mayHandOff(state, hold)).isFalse();
  }

  @Test
  void aHandoffPassesTheHoldToTheQueuedThreadWithoutARelease() throws InterruptedException {
    Hold hold = acquire(LEASE);
    state.local.lock();
    state.hold = hold;
    AtomicReference<Hold> taken = new AtomicReference<>();
    Thread next = queue(() -> taken.set(handoff.take(state)));
    handoff.handOff(state, hold);
    next.join(Timing.awaitAtMost().toMillis());
    assertThat(taken.get()).isSameAs(hold);
    assertThat(state.local.isHeldByCurrentThread()).isFalse();
    assertThat(state.hold).isNull();
    assertThat(state.handoffs).isEqualTo(1);
    assertThat(hold.reportedToken()).isZero(); // the new holder gets a token of its own
    assertThat(backend.calls(Op.RELEASE)).isZero();
  }

  @Test
  void takeReturnsAValidHandedHoldOnce() {
    Hold hold = acquire(LEASE);
    state.handoff = hold;
    assertThat(handoff.take(state)).isSameAs(hold);
    assertThat(handoff.take(state)).isNull();
    assertThat(backend.calls(Op.RELEASE)).isZero();
  }

  @Test
  void takeReleasesAnExpiredHandedHold() {
    Hold hold = acquire(Duration.ofMillis(10)); // the key's lease is longer than the hold's
    state.handoff = hold;
    ticker.advance(Duration.ofMillis(10));
    assertThat(handoff.take(state)).isNull();
    assertThat(hold.isHeld()).isFalse();
    assertThat(backend.calls(Op.RELEASE)).isEqualTo(1);
    assertThat(backend.holder(KEYS.lock())).isNull();
  }

  @Test
  void takeDoesNotReleaseAHandedHoldThatWasLost() {
    Hold hold = acquire(LEASE);
    state.handoff = hold;
    hold.markLost("renewal found the key gone");
    assertThat(handoff.take(state)).isNull();
    assertThat(backend.calls(Op.RELEASE)).isZero();
  }

  @Test
  void releaseOrphanReleasesAHandoffNobodyTakes() {
    Hold hold = acquire(LEASE);
    state.handoff = hold;
    handoff.releaseOrphan(state);
    assertThat(state.handoff).isNull();
    assertThat(hold.isHeld()).isFalse();
    assertThat(backend.holder(KEYS.lock())).isNull();
  }

  @Test
  void releaseOrphanLeavesTheHandoffToAQueuedThread() {
    Hold hold = acquire(LEASE);
    state.local.lock();
    queue(() -> {});
    state.handoff = hold;
    handoff.releaseOrphan(state);
    assertThat(state.handoff).isSameAs(hold);
    assertThat(backend.calls(Op.RELEASE)).isZero();
    state.handoff = null; // the queued thread only needs the lock to leave
  }
}
