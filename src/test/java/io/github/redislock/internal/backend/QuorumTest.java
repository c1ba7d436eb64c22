package io.github.redislock.internal.backend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.redislock.internal.backend.Quorum.ReleaseVerdict;
import io.github.redislock.internal.util.Ticker;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Redlock's arithmetic, one rule per test, with time driven by hand. */
class QuorumTest {
  private final ManualTicker ticker = new ManualTicker();

  private Quorum quorum(int nodes) {
    return new Quorum(nodes, 10_000, ticker);
  }

  @ParameterizedTest
  @CsvSource({"1, 1", "2, 2", "3, 2", "4, 3", "5, 3", "6, 4", "7, 4"})
  void aMajorityIsHalfTheNodesPlusOne(int nodes, int majority) {
    assertThat(quorum(nodes).majority()).isEqualTo(majority);
  }

  @Test
  void aMajorityOfYesIsReachedAtHalfPlusOneAndNotBefore() {
    Quorum five = quorum(5);
    assertThat(five.reached(2)).isFalse();
    assertThat(five.reached(3)).isTrue();
    assertThat(five.reached(5)).isTrue();
  }

  @Test
  void aMajorityOfYesIsImpossibleOnceMoreThanAMinorityAnswersNo() {
    Quorum five = quorum(5);
    assertThat(five.impossible(2)).as("3 nodes may still say yes").isFalse();
    assertThat(five.impossible(3)).isTrue();
    Quorum four = quorum(4);
    assertThat(four.impossible(1)).isFalse();
    assertThat(four.impossible(2)).as("2 of 4 is no majority").isTrue();
  }

  @Test
  void repliesAreDecidedByAMajorityEitherWayAndNotByASplit() {
    Quorum five = quorum(5);
    assertThat(five.decided(3, 0)).isTrue();
    assertThat(five.decided(0, 3)).isTrue();
    assertThat(five.decided(2, 2)).as("the fifth node decides").isFalse();
    assertThat(five.decided(0, 0)).isFalse();
  }

  @Test
  void theDriftIsOnePercentOfTheLeasePlusTwoMilliseconds() {
    assertThat(new Quorum(3, 10_000, ticker).driftNanos()).isEqualTo(millis(102));
    assertThat(new Quorum(3, 30_000, ticker).driftNanos()).isEqualTo(millis(302));
    assertThat(new Quorum(3, 50, ticker).driftNanos()).as("1% rounds down").isEqualTo(millis(2));
  }

  @Test
  void validityIsTheLeaseLessTheElapsedTimeLessTheDrift() {
    Quorum five = quorum(5);
    long start = ticker.read();
    assertThat(five.validityNanos(start)).isEqualTo(millis(10_000 - 102));
    ticker.advance(Duration.ofMillis(1_500));
    assertThat(five.validityNanos(start)).isEqualTo(millis(10_000 - 1_500 - 102));
  }

  @Test
  void noValidityIsLeftOnceTheAcquisitionTookTheLeaseLessTheDrift() {
    Quorum five = quorum(5);
    long start = ticker.read();
    ticker.advance(Duration.ofMillis(10_000 - 102));
    assertThat(five.validityNanos(start)).isZero();
    ticker.advance(Duration.ofMillis(1));
    assertThat(five.validityNanos(start)).isNegative();
  }

  @Test
  void aBusyMajorityIsBusyWhateverTheOtherNodesDid() {
    assertThat(quorum(5).busyRatherThanFailed(3, 2)).isTrue();
  }

  @Test
  void aMinorityOfFailuresIsToleratedAndTheBusyNodesAreBlamed() {
    // Redlock tolerates a minority of failed nodes: what stood in the way is the other holder.
    assertThat(quorum(5).busyRatherThanFailed(2, 1)).isTrue();
    assertThat(quorum(5).busyRatherThanFailed(1, 2)).isTrue();
  }

  @Test
  void failuresThatMayHaveCostTheMajorityAreAFailure() {
    assertThat(quorum(5).busyRatherThanFailed(0, 3)).isFalse();
    assertThat(quorum(5).busyRatherThanFailed(2, 3)).isFalse();
    assertThat(quorum(3).busyRatherThanFailed(1, 2)).isFalse();
  }

  @Test
  void aMajorityMayBeFreeNowWhenTheFreeNodesAreOne() {
    assertThat(quorum(5).freeInMillis(new long[] {500, 900})).isZero();
    assertThat(quorum(5).freeInMillis(new long[0])).isZero();
  }

  @Test
  void aMajorityBecomesFreeWhenTheNeededShortestLeaseRunsOut() {
    // 5 nodes, 4 busy: one is free, two more must expire, so the second shortest lease counts.
    assertThat(quorum(5).freeInMillis(new long[] {900, 300, 700, 500})).isEqualTo(500);
    // 5 nodes, all busy: three must expire.
    assertThat(quorum(5).freeInMillis(new long[] {900, 300, 700, 500, 100})).isEqualTo(500);
  }

  @Test
  void keysThatNeverExpireCountLastAndMayMeanNever() {
    assertThat(quorum(3).freeInMillis(new long[] {-1, 400, 800})).isEqualTo(800);
    assertThat(quorum(3).freeInMillis(new long[] {-1, -1, 800})).isEqualTo(-1);
  }

  @Test
  void theEstimateLeavesItsInputAlone() {
    long[] ttls = {900, -1, 300};
    quorum(3).freeInMillis(ttls);
    assertThat(ttls).containsExactly(900, -1, 300);
  }

  @Test
  void aReleaseDeniedByTooManyGrantingNodesIsALostHold() {
    Quorum five = quorum(5);
    assertThat(five.release(3, 2, 1)).isEqualTo(ReleaseVerdict.LOST);
    assertThat(five.release(5, 2, 3)).isEqualTo(ReleaseVerdict.LOST);
  }

  @Test
  void aReleaseConfirmedByFewerThanAMajorityIsUnconfirmed() {
    assertThat(quorum(5).release(5, 2, 0))
        .as("3 unreachable")
        .isEqualTo(ReleaseVerdict.UNCONFIRMED);
    assertThat(quorum(5).release(4, 2, 1)).isEqualTo(ReleaseVerdict.UNCONFIRMED);
  }

  @Test
  void aReleaseConfirmedByAMajorityIsReleased() {
    assertThat(quorum(5).release(5, 3, 2)).isEqualTo(ReleaseVerdict.RELEASED);
    assertThat(quorum(5).release(3, 3, 0)).isEqualTo(ReleaseVerdict.RELEASED);
  }

  @Test
  void aReleaseIsDecidedOnceConfirmedOrLostAndNotWhileEitherMayCome() {
    Quorum five = quorum(5);
    assertThat(five.releaseDecided(5, 3, 0)).isTrue();
    assertThat(five.releaseDecided(5, 0, 3)).isTrue();
    assertThat(five.releaseDecided(3, 0, 1)).isTrue();
    assertThat(five.releaseDecided(5, 2, 2)).isFalse();
    assertThat(five.releaseDecided(4, 2, 1)).isFalse();
  }

  @Test
  void noNodesIsRefused() {
    assertThatThrownBy(() -> new Quorum(0, 10_000, ticker))
        .isInstanceOf(IllegalArgumentException.class);
  }

  private static long millis(long millis) {
    return Duration.ofMillis(millis).toNanos();
  }

  /** A clock that moves only when told to. */
  private static final class ManualTicker implements Ticker {
    private long now = 1_000_000_000L; // any origin: only differences mean anything

    @Override
    public long read() {
      return now;
    }

    void advance(Duration duration) {
      now += duration.toNanos();
    }
  }
}
