package io.github.redislock.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.redislock.LockLostEvent;
import io.github.redislock.internal.FakeBackend.Op;
import io.github.redislock.internal.backend.Acquisition;
import io.github.redislock.internal.backend.LockKeys;
import io.github.redislock.internal.kind.ExclusiveKind;
import io.github.redislock.internal.util.Ticker;
import io.github.redislock.internal.util.Tokens;
import io.github.redislock.testing.Timing;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * The renewal schedule, driven one {@link LeaseRenewer#tick()} at a time on a manual ticker, with
 * renewals run in the ticking thread; the renewer's own thread is never started.
 */
class LeaseRenewerTest {
  private static final Duration LEASE = Duration.ofSeconds(30);
  private static final long THIRD = LEASE.toNanos() / 3;

  private final ManualTicker ticker = new ManualTicker();
  private final FakeBackend backend = new FakeBackend(ticker, LEASE);
  private final List<LockLostEvent> lost = new CopyOnWriteArrayList<>();
  private final List<Hold> holds = new CopyOnWriteArrayList<>();

  private LeaseRenewer renewer(Executor executor) {
    return new LeaseRenewer(
        LEASE.toNanos(),
        LEASE.toNanos() - backend.safetyMarginNanos(),
        new LossReporter(lost::add, hold -> {}),
        NodeExecutor.of(executor),
        holds::forEach,
        ticker);
  }

  private final LeaseRenewer renewer = renewer(Runnable::run);

  /** A hold of {@code name} acquired now, which the renewer finds. */
  private Hold hold(String name) {
    LockKeys keys = LockKeys.of(name);
    String token = Tokens.next();
    Acquisition granted = backend.tryAcquire(keys, token, true, false);
    assertThat(granted.acquired()).isTrue();
    long now = ticker.read();
    Hold hold =
        new Hold(
            new ExclusiveKind(backend),
            null,
            name,
            keys,
            token,
            granted.fencingToken(),
            null,
            now,
            now + LEASE.toNanos(),
            ticker);
    holds.add(hold);
    return hold;
  }

  @Test
  void noRenewalBeforeAThirdOfTheLease() {
    hold("a");
    ticker.advance(THIRD - 1);
    assertThat(renewer.tick()).isTrue();
    assertThat(backend.calls(Op.EXTEND)).isZero();
  }

  @Test
  void aRenewalAtAThirdOfTheLeaseExtendsTheLeaseEnd() {
    Hold hold = hold("a");
    ticker.advance(THIRD);
    renewer.tick();
    assertThat(backend.calls(Op.EXTEND)).isEqualTo(1);
    assertThat(hold.renewedAtNanos()).isEqualTo(ticker.read());
    assertThat(hold.leaseEndNanos()).isEqualTo(ticker.read() + LEASE.toNanos());
  }

  @Test
  void theNextRenewalIsDueAThirdOfTheLeaseAfterTheLastOne() {
    hold("a");
    ticker.advance(THIRD);
    renewer.tick();
    ticker.advance(THIRD - 1);
    renewer.tick();
    assertThat(backend.calls(Op.EXTEND)).isEqualTo(1);
    ticker.advance(1);
    renewer.tick();
    assertThat(backend.calls(Op.EXTEND)).isEqualTo(2);
  }

  @Test
  void theLeaseEndLeavesOutTheBackendsSafetyMargin() {
    backend.safetyMarginNanos(Duration.ofMillis(300).toNanos());
    LeaseRenewer withMargin = renewer(Runnable::run);
    Hold hold = hold("a");
    ticker.advance(THIRD);
    withMargin.tick();
    assertThat(hold.leaseEndNanos())
        .isEqualTo(ticker.read() + LEASE.toNanos() - Duration.ofMillis(300).toNanos());
  }

  @Test
  void aRenewalThatFindsTheKeyNotOursReportsTheLossOnceWithTheReason() {
    Hold hold = hold("a");
    backend.steal(hold.keys.lock(), "someone-else");
    ticker.advance(THIRD);
    renewer.tick();
    ticker.advance(THIRD);
    renewer.tick();
    assertThat(hold.isLost()).isTrue();
    assertThat(lost)
        .containsExactly(new LockLostEvent("a", hold.reportedToken(), LossReporter.NOT_OURS));
    assertThat(backend.calls(Op.EXTEND)).isEqualTo(1);
  }

  @Test
  void aFailingRenewalIsRetriedAtEachTickAndReportedLostOnlyOnceTheLeaseEnds() {
    Hold hold = hold("a");
    backend.failNext(Op.EXTEND, Integer.MAX_VALUE);
    ticker.advance(THIRD);
    renewer.tick();
    ticker.advance(THIRD);
    renewer.tick();
    ticker.advance(THIRD - 1);
    renewer.tick();
    assertThat(backend.calls(Op.EXTEND)).isEqualTo(3);
    assertThat(lost).isEmpty();
    assertThat(hold.isHeld()).isTrue();
    ticker.advance(1); // the lease, as last confirmed, ends
    renewer.tick();
    assertThat(backend.calls(Op.EXTEND)).isEqualTo(4);
    assertThat(lost).hasSize(1);
    assertThat(lost.get(0).reason()).startsWith("renewal failed until the lease ran out");
    assertThat(hold.isLost()).isTrue();
  }

  @Test
  void aRenewalThatSucceedsAfterFailuresKeepsTheHold() {
    Hold hold = hold("a");
    backend.failNext(Op.EXTEND, 2);
    for (int i = 0; i < 3; i++) {
      ticker.advance(THIRD / 2);
      renewer.tick();
      ticker.advance(THIRD / 2);
      renewer.tick();
    }
    assertThat(lost).isEmpty();
    assertThat(hold.isValid()).isTrue();
    assertThat(hold.renewedAtNanos()).isGreaterThan(hold.acquiredAtNanos);
  }

  @Test
  void aReleasedHoldIsNotRenewed() {
    Hold hold = hold("a");
    hold.beginRelease();
    ticker.advance(THIRD);
    assertThat(renewer.tick()).isFalse();
    assertThat(backend.calls(Op.EXTEND)).isZero();
  }

  @Test
  void aHoldIsNotRenewedTwiceAtOnce() {
    Queue<Runnable> pending = new ArrayDeque<>();
    LeaseRenewer queued = renewer(pending::add);
    hold("a");
    ticker.advance(THIRD);
    queued.tick();
    queued.tick();
    assertThat(pending).hasSize(1);
    pending.remove().run();
    ticker.advance(THIRD);
    queued.tick();
    assertThat(pending).hasSize(1);
    assertThat(backend.calls(Op.EXTEND)).isEqualTo(1);
  }

  @Test
  void closeReportsTheHoldsStillHeldLost() {
    Hold held = hold("held");
    Hold released = hold("released");
    released.beginRelease();
    renewer.close();
    assertThat(lost)
        .containsExactly(
            new LockLostEvent("held", held.reportedToken(), "the lock factory was closed"));
    assertThat(held.isLost()).isTrue();
    assertThat(released.isLost()).isFalse();
  }

  @Test
  void aClosedRenewerStartsNoRenewal() {
    renewer.close();
    assertThat(renewer.start(hold("a"))).isFalse();
  }

  @Test
  void anErrorInATickDoesNotStopRenewing() {
    Duration lease = Duration.ofMillis(300);
    FakeBackend real = new FakeBackend(Ticker.SYSTEM, lease);
    AtomicInteger executions = new AtomicInteger();
    Executor failingOnce =
        task -> {
          if (executions.getAndIncrement() == 0) {
            throw new Error("unable to create native thread"); // what the JVM throws: an Error
          }
          task.run();
        };
    List<Hold> live = new CopyOnWriteArrayList<>();
    LeaseRenewer running =
        new LeaseRenewer(
            lease.toNanos(),
            lease.toNanos(),
            new LossReporter(lost::add, hold -> {}),
            NodeExecutor.of(failingOnce),
            live::forEach,
            Ticker.SYSTEM);
    LockKeys keys = LockKeys.of("renewer-error");
    String token = Tokens.next();
    real.tryAcquire(keys, token, false, false);
    long now = Ticker.SYSTEM.read();
    Hold hold =
        new Hold(
            new ExclusiveKind(real),
            null,
            "renewer-error",
            keys,
            token,
            0,
            null,
            now,
            now + lease.toNanos(),
            Ticker.SYSTEM);
    live.add(hold);
    try {
      running.start(hold);
      Awaitility.await().atMost(Timing.awaitAtMost()).until(() -> real.calls(Op.EXTEND) >= 2);
      assertThat(lost).isEmpty();
    } finally {
      running.close();
    }
  }
}
