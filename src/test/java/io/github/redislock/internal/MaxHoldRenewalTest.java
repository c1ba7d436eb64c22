package io.github.redislock.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.redislock.LockLostEvent;
import io.github.redislock.internal.FakeBackend.Op;
import io.github.redislock.internal.backend.Acquisition;
import io.github.redislock.internal.backend.LockKeys;
import io.github.redislock.internal.kind.ExclusiveKind;
import io.github.redislock.internal.util.Tokens;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * A hold's maximum hold time, on a manual ticker: renewals stop once the hold has lasted its
 * maximum, and the hold is reported lost when the lease of its last renewal runs out.
 */
class MaxHoldRenewalTest {
  private static final Duration LEASE = Duration.ofSeconds(30);
  private static final long THIRD = LEASE.toNanos() / 3;

  private final ManualTicker ticker = new ManualTicker();
  private final FakeBackend backend = new FakeBackend(ticker, LEASE);
  private final List<LockLostEvent> lost = new CopyOnWriteArrayList<>();
  private final List<Hold> holds = new CopyOnWriteArrayList<>();
  private final LeaseRenewer renewer =
      new LeaseRenewer(
          LEASE.toNanos(),
          LEASE.toNanos(),
          new LossReporter(lost::add, hold -> {}),
          NodeExecutor.of(Runnable::run),
          holds::forEach,
          ticker);

  private Hold hold(String name, Duration maxHold) {
    LockKeys keys = LockKeys.of(name);
    String token = Tokens.next();
    Acquisition granted = backend.tryAcquire(keys, token, true, false);
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
    hold.limitTo(maxHold.toNanos());
    holds.add(hold);
    return hold;
  }

  @Test
  void renewalsStopAtTheMaximumAndTheHoldIsLostWhenItsLeaseRunsOut() {
    Hold hold = hold("a", LEASE); // renewed at 1/3, 2/3; not at 3/3 of a lease
    for (int i = 0; i < 2; i++) {
      ticker.advance(THIRD);
      renewer.tick();
    }
    assertThat(backend.calls(Op.EXTEND)).isEqualTo(2);
    long leaseEnd = hold.leaseEndNanos();
    ticker.advance(THIRD);
    renewer.tick();
    assertThat(backend.calls(Op.EXTEND)).as("no renewal past the maximum").isEqualTo(2);
    assertThat(hold.isHeld()).isTrue();
    ticker.advance(leaseEnd - ticker.read() - 1);
    renewer.tick();
    assertThat(lost).isEmpty();
    ticker.advance(1);
    renewer.tick();
    assertThat(lost)
        .singleElement()
        .satisfies(e -> assertThat(e.reason()).startsWith("max hold time"));
    assertThat(hold.isLost()).isTrue();
    assertThat(backend.calls(Op.EXTEND)).isEqualTo(2);
  }

  @Test
  void withoutAMaximumRenewalsGoOn() {
    hold("a", Duration.ZERO);
    for (int i = 0; i < 30; i++) {
      ticker.advance(THIRD);
      renewer.tick();
    }
    assertThat(backend.calls(Op.EXTEND)).isEqualTo(30);
    assertThat(lost).isEmpty();
  }
}
