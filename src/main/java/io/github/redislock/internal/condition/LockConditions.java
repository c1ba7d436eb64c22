package io.github.redislock.internal.condition;

import io.github.redislock.internal.LockName;
import io.github.redislock.internal.backend.LockKeys;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Where the conditions of one family of locks ({@link Mutexes}) come from: their shared state
 * ({@link Conditions}) is made at the first {@link #newCondition}, so that a deployment without
 * conditions (Redlock) refuses them only when they are asked for. It sits above the family: the
 * family's locks know nothing of conditions.
 */
public final class LockConditions {
  private final Supplier<Conditions> make;

  /** The conditions of this family's locks, made at the first {@link #newCondition}. */
  private volatile Conditions conditions;

  /**
   * The conditions of a family's locks.
   *
   * @param make makes their shared state, at the first {@link #newCondition}; it throws {@link
   *     UnsupportedOperationException} where the deployment has no conditions
   */
  public LockConditions(Supplier<Conditions> make) {
    this.make = make;
  }

  /**
   * A condition of lock {@code name}: numbered (the n-th {@code newCondition()} of a lock object,
   * {@code condition} being n in decimal), or named {@code condition}.
   *
   * @throws UnsupportedOperationException where the deployment has no conditions (Redlock)
   */
  public RedisCondition newCondition(LockName name, String condition, boolean numbered) {
    return newCondition(name, condition, numbered, held -> {});
  }

  /**
   * As {@link #newCondition(LockName, String, boolean)}; each await runs {@code beforeAwait} once
   * it has checked that the calling thread holds the lock, before anything is released (it throws
   * to refuse the await).
   */
  public RedisCondition newCondition(
      LockName name, String condition, boolean numbered, Consumer<LockName> beforeAwait) {
    LockKeys.checkUnicode("the condition name", condition);
    Conditions shared = conditions;
    if (shared == null) {
      synchronized (this) {
        shared = conditions;
        if (shared == null) {
          shared = make.get();
          conditions = shared;
        }
      }
    }
    return new RedisCondition(shared, name, condition, numbered, beforeAwait);
  }

  /**
   * The factory closes, after the family's local queues woke: the awaits of this JVM leave their
   * queues, and used signals are removed (see {@link Conditions#close}).
   */
  public void close() {
    Conditions shared = conditions;
    if (shared != null) {
      shared.close();
    }
  }

  /** Awaits woken without a signal they could see. */
  public long spuriousWakeUps() {
    Conditions shared = conditions;
    return shared == null ? 0 : shared.unsignalledWakeUps();
  }
}
