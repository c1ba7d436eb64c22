package io.github.redislock.tck;

import java.util.Objects;
import java.util.function.Function;

/**
 * One lock, or one condition, as two processes see it: {@code mine} is used by the test's own
 * thread, {@code theirs} by the threads it starts. With one factory (and for the JDK's locks) both
 * are the same lock; with two, {@code theirs} comes from a second factory on the same Redis, as
 * another process would hold it.
 *
 * @param mine what the test's thread uses
 * @param theirs what the test's other threads use
 * @param <T> a lock or a condition
 */
record Both<T>(T mine, T theirs) {
  Both {
    Objects.requireNonNull(mine, "mine");
    Objects.requireNonNull(theirs, "theirs");
  }

  /** The same object on both sides: one process. */
  static <T> Both<T> same(T one) {
    return new Both<>(one, one);
  }

  /**
   * Applies {@code f} once per distinct side: once when both sides are the same object (a JDK
   * lock's {@code newCondition()} must be called once for both), else once on each.
   */
  <R> Both<R> map(Function<? super T, ? extends R> f) {
    R forMine = f.apply(mine);
    return mine == theirs ? same(forMine) : new Both<>(forMine, f.apply(theirs));
  }
}
