package io.github.redislock.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.redislock.internal.FakeBackend.Op;
import io.github.redislock.internal.backend.Acquisition;
import io.github.redislock.internal.backend.LockKeys;
import io.github.redislock.internal.kind.ExclusiveKind;
import io.github.redislock.internal.util.Tokens;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** One hold: its validity by the injected clock, its status, and its fencing token's states. */
class HoldTest {
  private static final Duration LEASE = Duration.ofSeconds(30);
  private static final LockKeys KEYS = LockKeys.of("hold-test");

  private final ManualTicker ticker = new ManualTicker();
  private final FakeBackend backend = new FakeBackend(ticker, LEASE);

  /** The kind of the last hold acquired: it issues its fencing tokens. */
  private ExclusiveKind kind;

  private Hold acquire(boolean fenced) {
    return acquire(fenced, ticker);
  }

  private Hold acquire(boolean fenced, ManualTicker clock) {
    FakeBackend node = clock == ticker ? backend : new FakeBackend(clock, LEASE);
    String token = Tokens.next();
    Acquisition granted = node.tryAcquire(KEYS, token, fenced, false);
    assertThat(granted.acquired()).isTrue();
    long now = clock.read();
    kind = new ExclusiveKind(node);
    return new Hold(
        kind,
        null,
        "hold-test",
        KEYS,
        token,
        granted.fencingToken(),
        granted.grant(),
        now,
        now + LEASE.toNanos(),
        clock);
  }

  @Test
  void isValidUntilTheLeaseEndByTheTicker() {
    Hold hold = acquire(false);
    ticker.advance(LEASE.toNanos() - 1);
    assertThat(hold.isValid()).isTrue();
    ticker.advance(1);
    assertThat(hold.isValid()).isFalse();
    assertThat(hold.isHeld()).isTrue();
  }

  @Test
  void isValidUntilTheLeaseEndWhenTheTickerWrapsAround() {
    ManualTicker wrapping = new ManualTicker(Long.MAX_VALUE - LEASE.toNanos() / 2);
    Hold hold = acquire(false, wrapping);
    wrapping.advance(LEASE.toNanos() - 1);
    assertThat(hold.isValid()).isTrue();
    wrapping.advance(1);
    assertThat(hold.isValid()).isFalse();
  }

  @Test
  void anExpiredLeaseIsTheLostReasonWhenNoneWasGiven() {
    Hold hold = acquire(false);
    ticker.advance(LEASE);
    assertThat(hold.lostReason()).isEqualTo("its lease ran out before renewal could confirm it");
  }

  @Test
  void aReleaseBegunOnceWinsOverALaterLoss() {
    Hold hold = acquire(false);
    assertThat(hold.beginRelease()).isTrue();
    assertThat(hold.beginRelease()).isFalse();
    assertThat(hold.markLost("renewal found the key gone")).isFalse();
    assertThat(hold.isLost()).isFalse();
    assertThat(hold.isHeld()).isFalse();
    assertThat(hold.isValid()).isFalse();
  }

  @Test
  void aLossMarkedOnceWinsOverALaterRelease() {
    Hold hold = acquire(false);
    assertThat(hold.markLost("first")).isTrue();
    assertThat(hold.markLost("second")).isFalse();
    assertThat(hold.beginRelease()).isFalse();
    assertThat(hold.isLost()).isTrue();
    assertThat(hold.lostReason()).isEqualTo("first");
  }

  @Test
  void aHoldAcquiredWithoutATokenGetsOneByReissueAtTheFirstCall() {
    Hold hold = acquire(false);
    long token = hold.fencingToken(kind);
    assertThat(token).isPositive().isEqualTo(backend.fencingCounter(KEYS.lock()));
    assertThat(backend.calls(Op.REISSUE_FENCE)).isEqualTo(1);
    assertThat(backend.calls(Op.CONFIRM_FENCE)).isZero();
  }

  @Test
  void aReissuedTokenIsAnsweredAgainWithoutACall() {
    Hold hold = acquire(false);
    long token = hold.fencingToken(kind);
    int calls = backend.log().size();
    assertThat(hold.fencingToken(kind)).isEqualTo(token);
    assertThat(backend.log()).hasSize(calls);
  }

  @Test
  void aHoldAcquiredWithATokenIsConfirmedOnce() {
    Hold hold = acquire(true);
    long issued = hold.lastIssuedToken();
    assertThat(issued).isPositive();
    assertThat(hold.fencingToken(kind)).isEqualTo(issued);
    assertThat(hold.fencingToken(kind)).isEqualTo(issued);
    assertThat(backend.calls(Op.CONFIRM_FENCE)).isEqualTo(1);
    assertThat(backend.calls(Op.REISSUE_FENCE)).isZero();
  }

  @Test
  void afterAHandoffTheNextCallReissuesAGreaterToken() {
    Hold hold = acquire(true);
    long first = hold.fencingToken(kind);
    hold.handedOff();
    long second = hold.fencingToken(kind);
    assertThat(second).isGreaterThan(first);
    assertThat(backend.calls(Op.REISSUE_FENCE)).isEqualTo(1);
  }

  @Test
  void aReissueAnswersMinusOneWhenTheBackendSaysNotOurs() {
    Hold hold = acquire(false);
    backend.delete(KEYS.lock());
    assertThat(hold.fencingToken(kind)).isEqualTo(-1);
  }

  @Test
  void aConfirmationAnswersMinusOneWhenTheBackendSaysNotOurs() {
    Hold hold = acquire(true);
    backend.answerNotOursNext(Op.CONFIRM_FENCE, 1);
    assertThat(hold.fencingToken(kind)).isEqualTo(-1);
  }

  @Test
  void theReportedTokenIsZeroWhileTheHolderHasNoneOfItsOwn() {
    Hold hold = acquire(false);
    assertThat(hold.reportedToken()).isZero();
    long first = hold.fencingToken(kind);
    assertThat(hold.reportedToken()).isEqualTo(first);
    hold.handedOff();
    assertThat(hold.reportedToken()).isZero();
    long second = hold.fencingToken(kind);
    assertThat(hold.reportedToken()).isEqualTo(second);
  }

  @Test
  void aTokenIssuedWithTheAcquisitionIsReportedOnlyOnceTheHolderGotIt() {
    Hold hold = acquire(true);
    assertThat(hold.reportedToken()).as("issued, not yet binding").isZero();
    long token = hold.fencingToken(kind);
    assertThat(hold.reportedToken()).isEqualTo(token).isPositive();
  }

  @Test
  void aTokenThatCouldNotBeConfirmedIsNeverReported() {
    Hold hold = acquire(true);
    backend.answerNotOursNext(Op.CONFIRM_FENCE, 1);
    assertThat(hold.fencingToken(kind)).isEqualTo(-1);
    assertThat(hold.reportedToken()).isZero();
  }

  @Test
  void theLastIssuedTokenOutlivesAHandoffForTheRelease() {
    Hold hold = acquire(true);
    long issued = hold.fencingToken(kind);
    hold.handedOff();
    assertThat(hold.lastIssuedToken()).isEqualTo(issued);
  }
}
