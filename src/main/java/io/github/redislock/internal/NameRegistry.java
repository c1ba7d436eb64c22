package io.github.redislock.internal;

import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * The names this JVM's threads hold or wait for, each with its {@link NameState}. A name's state
 * exists while it has users (holders and waiters), so that the registry stays as small as the set
 * of names in use.
 */
public final class NameRegistry {
  private final ConcurrentHashMap<String, NameState> states = new ConcurrentHashMap<>();
  private final Lifecycle lifecycle;
  private final boolean firstComeFirstServed;

  /**
   * The names of one family of locks.
   *
   * @param firstComeFirstServed whether each name's local queue serves threads in their order of
   *     arrival
   */
  public NameRegistry(Lifecycle lifecycle, boolean firstComeFirstServed) {
    this.lifecycle = lifecycle;
    this.firstComeFirstServed = firstComeFirstServed;
  }

  /** The state of {@code name}, or {@code null} when no thread of this JVM uses it. */
  NameState get(String name) {
    return states.get(name);
  }

  /** The calling thread starts to use {@code name}: its state, created if needed. */
  NameState enter(LockName name) {
    return states.compute(
        name.name,
        (n, state) -> {
          NameState entered =
              state != null ? state : new NameState(n, name.keys, lifecycle, firstComeFirstServed);
          entered.users++;
          return entered;
        });
  }

  /** A user of {@code state} is done with it; the state goes with its last user. */
  void exit(NameState state) {
    states.computeIfPresent(
        state.name,
        (n, current) -> {
          if (current == state && --current.users == 0) {
            return null;
          }
          return current;
        });
  }

  /**
   * Clears the current thread's hold of {@code state}, whatever its count, and exits.
   *
   * @return {@code false} when the hold had been revoked already (and exited for this thread)
   */
  boolean drop(NameState state) {
    if (!state.local.unlockAll()) {
      return false;
    }
    exit(state);
    return true;
  }

  /** Every name's state: for close, and the names in use. */
  Iterable<NameState> all() {
    return states.values();
  }

  /** Every hold: held, a share, handed off to a queued thread, or lost but not returned. */
  void forEachHold(Consumer<Hold> action) {
    for (NameState state : states.values()) {
      state.forEachShare(action);
      Hold hold = state.hold;
      Hold handed = state.handoff;
      if (hold != null) {
        action.accept(hold);
      }
      if (handed != null && handed != hold) {
        action.accept(handed);
      }
    }
  }
}
