package io.github.redislock.internal.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.redislock.internal.util.Ticker;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** How a round keeps the replies of several nodes, without any server or thread. */
class RoundTest {
  private final List<Node> nodes =
      List.of(new Node("a", null, null), new Node("b", null, null), new Node("c", null, null));

  @Test
  void countsTellRepliesFailuresAndMissingNodesApart() {
    Round<Boolean> round = new Round<>(nodes, Ticker.SYSTEM, 0);
    round.record(0, true, null);
    round.record(1, null, new IllegalStateException("down"));
    assertThat(round.count(Boolean::booleanValue)).isEqualTo(1);
    assertThat(round.count(yes -> !yes)).isZero();
    assertThat(round.failed()).isEqualTo(1);
    assertThat(round.failedOrMissing()).isEqualTo(2);
    assertThat(round.unanswered()).isEqualTo(1);
    assertThat(round.replies()).containsExactly(true, null, null);
    assertThat(round.describeFailures(250)).isEqualTo("b: down; c: no reply within 250 ms");
  }

  @Test
  void aWaitEndsOnceDecidedWithoutTheMissingNode() {
    Round<Boolean> round = new Round<>(nodes, Ticker.SYSTEM, Long.MAX_VALUE);
    round.record(0, true, null);
    round.record(2, true, null);
    assertThat(round.await(r -> r.count(Boolean::booleanValue) >= 2).unanswered()).isEqualTo(1);
  }

  @Test
  void aWaitEndsAtTheDeadline() {
    Ticker pastTheDeadline = () -> 10;
    Round<Boolean> round = new Round<>(nodes, pastTheDeadline, 5);
    assertThat(round.await(r -> false).unanswered()).isEqualTo(3);
  }

  @Test
  void eachNodeIsSeenOnceByAnActionWhetherItAnsweredBeforeOrAfter() {
    Round<String> round = new Round<>(nodes, Ticker.SYSTEM, 0);
    round.record(1, "early", null);
    List<String> seen = new ArrayList<>();
    round.whenEachDone((node, reply) -> seen.add(node.label() + "=" + reply));
    assertThat(seen).containsExactly("b=early");
    round.record(0, "late", null);
    round.record(2, null, new IllegalStateException("down"));
    assertThat(seen).containsExactly("b=early", "a=late", "c=null");
  }

  @Test
  void aCompletedRoundHasEveryNodeDone() {
    Object[] replies = {"x", null, "z"};
    RuntimeException[] failures = new RuntimeException[3];
    failures[1] = new IllegalStateException("down");
    Round<String> round = new Round<>(nodes, Ticker.SYSTEM, 0, replies, failures);
    assertThat(round.unanswered()).isZero();
    assertThat(round.failedOrMissing()).isEqualTo(1);
    List<String> seen = new ArrayList<>();
    round.whenEachDone((node, reply) -> seen.add(node.label() + "=" + reply));
    assertThat(seen).containsExactly("a=x", "b=null", "c=z");
    assertThat(Arrays.asList(replies)).as("taken over, not copied").containsExactly("x", null, "z");
  }
}
