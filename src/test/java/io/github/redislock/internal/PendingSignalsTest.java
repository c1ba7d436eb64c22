package io.github.redislock.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.redislock.internal.backend.ConditionKeys;
import io.github.redislock.internal.backend.LockKeys;
import io.github.redislock.internal.backend.Release;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The signals a hold carries to its release: per condition, how many awaiters to wake, or all of
 * them; in the order the conditions were first signalled; sent by their sender, with the release.
 */
class PendingSignalsTest {
  private final LockKeys lock = LockKeys.of("pending-test:a");
  private final ConditionKeys first = ConditionKeys.of(lock, "first", false);
  private final ConditionKeys second = ConditionKeys.of(lock, "second", false);
  private final List<PendingSignals> sent = new ArrayList<>();
  private final PendingSignals signals =
      new PendingSignals(
          pending -> {
            sent.add(pending);
            return Release.RELEASED;
          });

  @Test
  void signalsOfOneConditionAddUp() {
    signals.add(first, false);
    signals.add(first, false);
    signals.add(first, false);
    assertThat(signals.counts()).containsExactly(Map.entry(first, 3));
  }

  @Test
  void aSignalAllStandsForEveryAwaiterWhateverCameBeforeOrAfter() {
    signals.add(first, false);
    signals.add(first, true);
    signals.add(first, false);
    signals.add(second, true);
    signals.add(second, false);
    assertThat(signals.counts())
        .containsExactly(
            Map.entry(first, PendingSignals.ALL), Map.entry(second, PendingSignals.ALL));
  }

  @Test
  void conditionsKeepTheOrderOfTheirFirstSignal() {
    signals.add(second, false);
    signals.add(first, true);
    signals.add(second, false);
    assertThat(signals.counts().keySet()).containsExactly(second, first);
    assertThat(signals.counts()).containsEntry(second, 2);
  }

  @Test
  void theReleaseGoesThroughTheSenderWithTheseSignals() {
    signals.add(first, false);
    assertThat(signals.release()).isEqualTo(Release.RELEASED);
    assertThat(sent).containsExactly(signals);
  }
}
