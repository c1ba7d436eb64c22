package io.github.redislock.torture;

import java.util.SplittableRandom;

/**
 * One fault of the schedule: its kind, its target (a server, a minority of masters, a worker slot),
 * how long it lasts (what "long" means depends on the kind), and whether the design claims to
 * survive it (see {@link Type#inModel()}).
 *
 * @param number its place in the schedule, from 1
 * @param kind the fault kind, e.g. {@code kill-delayed-restart}
 * @param target what it hits, e.g. {@code m2,m4}
 * @param millis its length in milliseconds (0 when it is instant)
 * @param inModel whether the design claims to survive it
 */
record Fault(int number, String kind, String target, long millis, boolean inModel) {

  String describe() {
    return "#"
        + number
        + " "
        + kind
        + (target.isEmpty() ? "" : " " + target)
        + (millis > 0 ? " for " + millis + " ms" : "")
        + (inModel ? " (in model)" : " (outside the model)");
  }

  /** Draws a fault's target and length. */
  @FunctionalInterface
  interface Draw {
    /** Returns {target, millis}. */
    Object[] draw(SplittableRandom random, TortureSettings settings);
  }

  /**
   * A kind of fault a deployment offers.
   *
   * @param kind its name
   * @param weight how often the nemesis draws it, relative to the others
   * @param inModel whether the design claims to survive it: no two holders that both believe their
   *     hold valid at once (see the results page)
   * @param why one line: why it is in or outside the model
   * @param draw draws the target and length
   */
  record Type(String kind, int weight, boolean inModel, String why, Draw draw) {
    Fault draw(int number, SplittableRandom random, TortureSettings settings) {
      Object[] drawn = draw.draw(random, settings);
      return new Fault(number, kind, (String) drawn[0], (Long) drawn[1], inModel);
    }
  }

  /** A length between {@code from} and {@code to} ms. */
  static long between(SplittableRandom random, long from, long to) {
    return from + random.nextLong(to - from + 1);
  }
}
