package io.github.redislock.faults;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** When the hostile kit's {@link Claims} explain a {@code tryLock()} that returned false. */
class ClaimsTest {
  private static final String NAME = "n";

  private static Claims.Refusal refusal(String factory, boolean shared, long from, long to) {
    return new Claims.Refusal(NAME, shared, factory, from, to, factory + " " + from);
  }

  @Test
  void aRefusalThatNoClaimOverlapsIsUnexplained() {
    Claims claims = new Claims();
    claims.claim(new Claims.Claim(NAME, false, 0, 10, "held"));
    claims.refusal(refusal("A", false, 20, 21));

    assertThat(claims.takeUnexplained()).hasSize(1);
  }

  @Test
  void aHoldOfAnotherFactoryExplainsARefusalItOverlaps() {
    Claims claims = new Claims();
    claims.claim(new Claims.Claim(NAME, false, 0, 10, "held"));
    claims.refusal(refusal("A", false, 9, 11));

    assertThat(claims.takeUnexplained()).isEmpty();
  }

  /**
   * Seen in the kit's runs: the other thread of factory A held A's local queue while its own
   * attempt asked Redis, and Redis refused it because B held the name; this thread's tryLock() came
   * after B's release, and returned false at once because A's queue was taken.
   */
  @Test
  void anExclusiveRefusalOfTheSameFactoryExplainsARefusalItOverlaps() {
    Claims claims = new Claims();
    claims.claim(new Claims.Claim(NAME, false, 0, 10, "B held"));
    Claims.Refusal asking = refusal("A", false, 5, 14);
    Claims.Refusal queued = refusal("A", false, 12, 13);
    claims.refusal(asking);
    claims.refusal(queued);

    assertThat(claims.takeUnexplained()).isEmpty();
  }

  @Test
  void aRefusalOfAnotherFactoryExplainsNothing() {
    Claims claims = new Claims();
    claims.refusal(refusal("B", false, 5, 14));
    claims.refusal(refusal("A", false, 12, 13));

    assertThat(claims.takeUnexplained()).hasSize(2);
  }

  @Test
  void readAttemptsTakeNoLocalQueue() {
    Claims claims = new Claims();
    claims.refusal(refusal("A", true, 5, 14));
    claims.refusal(refusal("A", false, 12, 13));
    claims.refusal(refusal("A", false, 30, 40));
    claims.refusal(refusal("A", true, 35, 36));

    assertThat(claims.takeUnexplained()).hasSize(4);
  }

  @Test
  void refusalsThatDoNotOverlapExplainNothing() {
    Claims claims = new Claims();
    claims.refusal(refusal("A", false, 5, 10));
    claims.refusal(refusal("A", false, 10, 13));

    assertThat(claims.takeUnexplained()).hasSize(2);
  }
}
