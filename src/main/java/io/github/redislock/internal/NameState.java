package io.github.redislock.internal;

import io.github.redislock.internal.backend.LockKeys;

/**
 * What one factory knows of one lock name while some thread of this JVM holds it or waits for it.
 * Threads of this JVM queue on {@link #local}, so that only its owner talks to Redis for the name;
 * its hold count is the lock's reentrancy count.
 */
final class NameState {
  final String name;
  final LockKeys keys;
  final LocalLock local;

  /** Threads that hold or wait for the name; guarded by the engine map's bin lock. */
  int users;

  /** The owner's Redis hold, set and cleared by the thread holding {@link #local}. */
  volatile Hold hold;

  /**
   * A Redis hold passed on by its last owner, for the next thread to own {@link #local}; owned by
   * {@link LocalHandoff}.
   */
  volatile Hold handoff;

  /**
   * Holders in a row that got the Redis hold by handoff; guarded by {@link #local}, owned by {@link
   * LocalHandoff}.
   */
  int handoffs;

  NameState(String name, LockKeys keys, Lifecycle lifecycle, boolean firstComeFirstServed) {
    this.name = name;
    this.keys = keys;
    this.local = new LocalLock(lifecycle, firstComeFirstServed);
  }
}
