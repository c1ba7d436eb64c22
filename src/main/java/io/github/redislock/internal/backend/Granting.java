package io.github.redislock.internal.backend;

import io.github.redislock.internal.transport.Round;
import java.util.Arrays;
import java.util.List;

/**
 * The masters that granted a Redlock hold, by which its release is judged ({@link Quorum#release}):
 * those whose reply to the acquisition granted it, or every master for an attempt whose grants are
 * not known. Immutable.
 */
final class Granting {
  private final boolean[] masters;
  private final int count;

  private Granting(boolean[] masters) {
    this.masters = masters;
    int granted = 0;
    for (boolean master : masters) {
      granted += master ? 1 : 0;
    }
    this.count = granted;
  }

  /** The masters whose reply to {@code acquisition} granted the hold, so far. */
  static Granting of(Round<Acquisition> acquisition) {
    List<Acquisition> replies = acquisition.replies();
    boolean[] masters = new boolean[replies.size()];
    for (int i = 0; i < masters.length; i++) {
      masters[i] = replies.get(i) != null && replies.get(i).acquired();
    }
    return new Granting(masters);
  }

  /** Every one of {@code n} masters. */
  static Granting all(int n) {
    boolean[] masters = new boolean[n];
    Arrays.fill(masters, true);
    return new Granting(masters);
  }

  /** How many masters granted the hold. */
  int count() {
    return count;
  }

  /**
   * Counts the granting masters whose reply to the release, so far, says {@code released}.
   *
   * @param released true: confirmed; false: denied (the hold was not theirs any more)
   */
  int answered(Round<Release> release, boolean released) {
    List<Release> replies = release.replies();
    int answered = 0;
    for (int i = 0; i < masters.length; i++) {
      Release reply = replies.get(i);
      if (masters[i] && reply != null && reply.released() == released) {
        answered++;
      }
    }
    return answered;
  }
}
