package io.github.redislock.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.github.redislock.internal.backend.LockKeys;
import io.github.redislock.internal.backend.Release;
import io.github.redislock.internal.wakeup.WakeUpHub;
import java.lang.reflect.Field;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Turns between processes: the yield owed after a release others waited for, by the ticker. */
class TurnsTest {
  private static final long MIN = TimeUnit.MILLISECONDS.toNanos(Turns.MIN_YIELD_MILLIS);
  private static final long MAX = TimeUnit.MILLISECONDS.toNanos(Turns.MAX_YIELD_MILLIS);

  private final ManualTicker ticker = new ManualTicker();
  private final WakeUpHub wakeUps = new WakeUpHub(List.of(), Runnable::run, ticker);
  private final Turns turns = new Turns(ticker, wakeUps);

  /** A release of {@code name} that another process waited for (it listened; this factory not). */
  private void releasedWhileOthersWaited(String name) {
    turns.released(name, LockKeys.of(name), new Release(true, 1));
  }

  @Test
  void noYieldIsOwedByDefault() {
    assertThat(turns.takeYieldNanos("a")).isZero();
    assertThat(turns.given()).isZero();
  }

  @Test
  void givingWayOwesAYieldWithinTheBounds() {
    releasedWhileOthersWaited("a");
    assertThat(turns.takeYieldNanos("a")).isBetween(MIN, MAX);
    assertThat(turns.given()).isEqualTo(1);
  }

  @Test
  void theYieldOwedShrinksAsTheTickerAdvances() {
    releasedWhileOthersWaited("a");
    long full = turns.yieldNanos();
    ticker.advance(TimeUnit.MILLISECONDS.toNanos(2));
    assertThat(turns.takeYieldNanos("a")).isEqualTo(full - TimeUnit.MILLISECONDS.toNanos(2));
  }

  @Test
  void theYieldOwedIsGoneOnceItsTimeHasPassed() {
    releasedWhileOthersWaited("a");
    ticker.advance(turns.yieldNanos());
    assertThat(turns.takeYieldNanos("a")).isZero();
  }

  @Test
  void theYieldOwedIsTakenOnce() {
    releasedWhileOthersWaited("a");
    assertThat(turns.takeYieldNanos("a")).isPositive();
    assertThat(turns.takeYieldNanos("a")).isZero();
  }

  @Test
  void theYieldIsOwedOnTheNameGivenWayOnly() {
    releasedWhileOthersWaited("a");
    assertThat(turns.takeYieldNanos("b")).isZero();
    assertThat(turns.takeYieldNanos("a")).isPositive();
  }

  @Test
  void fastBusyRoundTripsKeepTheYieldAtItsMinimum() {
    for (int i = 0; i < 200; i++) {
      turns.busyRoundTrip(TimeUnit.MICROSECONDS.toNanos(10));
    }
    assertThat(turns.yieldNanos()).isEqualTo(MIN);
  }

  @Test
  void slowBusyRoundTripsKeepTheYieldAtItsMaximum() {
    for (int i = 0; i < 200; i++) {
      turns.busyRoundTrip(TimeUnit.SECONDS.toNanos(1));
    }
    assertThat(turns.yieldNanos()).isEqualTo(MAX);
  }

  @Test
  void busyRoundTripsBetweenTheBoundsSetTheYieldToTenOfThem() {
    for (int i = 0; i < 200; i++) {
      turns.busyRoundTrip(TimeUnit.MILLISECONDS.toNanos(1));
    }
    assertThat(turns.yieldNanos())
        .isCloseTo(TimeUnit.MILLISECONDS.toNanos(10), within(TimeUnit.MICROSECONDS.toNanos(1)));
  }

  @Test
  void oneBusyRoundTripMovesTheAverageAnEighthOfTheWay() {
    turns.busyRoundTrip(TimeUnit.MICROSECONDS.toNanos(5_100));
    // from the initial 100 us: 100 us + (5.1 ms - 100 us) / 8 = 725 us; the yield is ten of them
    assertThat(turns.yieldNanos()).isEqualTo(TimeUnit.MICROSECONDS.toNanos(7_250));
  }

  @Test
  void othersWaitedWhenAnyoneListenedAndThisFactoryHasNoSubscription() {
    assertThat(Turns.othersWaited(new Release(true, 0), false)).isFalse();
    assertThat(Turns.othersWaited(new Release(true, 1), false)).isTrue();
  }

  @Test
  void othersWaitedOnlyWhenMoreThanThisFactorysOwnSubscriptionListened() {
    assertThat(Turns.othersWaited(new Release(true, 1), true)).isFalse();
    assertThat(Turns.othersWaited(new Release(true, 2), true)).isTrue();
  }

  @Test
  void expiredYieldsAreForgottenOnceSixtyFourAreKept() throws ReflectiveOperationException {
    for (int i = 0; i < 64; i++) {
      releasedWhileOthersWaited("old-" + i);
    }
    ticker.advance(MAX);
    releasedWhileOthersWaited("new");
    assertThat(yields()).containsOnlyKeys("new");
  }

  @Test
  void yieldsStillOwedAreKeptWhenSixtyFourAreKept() throws ReflectiveOperationException {
    for (int i = 0; i < 64; i++) {
      releasedWhileOthersWaited("old-" + i);
    }
    ticker.advance(MIN - 1);
    releasedWhileOthersWaited("new");
    assertThat(yields()).hasSize(65);
  }

  @Test
  void expiredYieldsAreKeptWhileFewerThanSixtyFour() throws ReflectiveOperationException {
    for (int i = 0; i < 63; i++) {
      releasedWhileOthersWaited("old-" + i);
    }
    ticker.advance(MAX);
    releasedWhileOthersWaited("new");
    assertThat(yields()).hasSize(64);
  }

  /** The map of yields owed, which Turns does not expose. */
  @SuppressWarnings("unchecked")
  private Map<String, Long> yields() throws ReflectiveOperationException {
    Field field = Turns.class.getDeclaredField("yields");
    field.setAccessible(true);
    return (Map<String, Long>) field.get(turns);
  }
}
