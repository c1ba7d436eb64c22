package io.github.redislock.internal;

import io.github.redislock.internal.backend.LockBackend;
import io.github.redislock.internal.backend.LockKeys;
import java.util.Objects;

/**
 * The names of a factory's locks: the keys of each (the key prefix applied), the names no lock may
 * take, and whether a name is locked in Redis, by anyone. One per factory, shared by its families:
 * a name's keys are the same whatever kind of lock takes it.
 */
public final class LockNames {
  private final String keyPrefix;
  private final LockBackend backend;
  private final Lifecycle lifecycle;

  /**
   * @param keyPrefix what goes before a lock's name in its key
   */
  public LockNames(String keyPrefix, LockBackend backend, Lifecycle lifecycle) {
    this.keyPrefix = keyPrefix;
    this.backend = backend;
    this.lifecycle = lifecycle;
  }

  /**
   * Checks that {@code name} may name a lock: its key (the key prefix applied) must not be one that
   * another lock keeps beside its own ({@link LockKeys#checkLockKey}).
   *
   * @throws IllegalArgumentException if it may not
   */
  void check(String name) {
    LockKeys.checkLockKey(keyPrefix + name);
  }

  /** The name {@code name}, with its keys (the key prefix applied). */
  LockName of(String name) {
    return new LockName(name, LockKeys.of(keyPrefix + Objects.requireNonNull(name, "name")), -1);
  }

  /**
   * Whether anyone holds the lock key of {@code name}, in any process.
   *
   * @throws IllegalStateException if the factory is closed
   */
  boolean isLocked(LockName name) {
    lifecycle.checkOpen();
    return backend.isLocked(name.keys);
  }
}
