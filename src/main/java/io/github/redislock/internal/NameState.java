package io.github.redislock.internal;

import io.github.redislock.internal.backend.LockKeys;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * What one factory knows of one lock name while some thread of this JVM holds it or waits for it.
 * In the exclusive mode, threads of this JVM queue on {@link #local}, so that only its owner talks
 * to Redis for the name; its hold count is the lock's reentrancy count. In the shared mode (read
 * locks), each thread holds a {@link Share} of its own: shares do not exclude each other, so a
 * thread taking one does not queue here (Redis orders readers and writers), and each counts its own
 * reentrancy.
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

  /** The shares of the name, by thread; made by the first. */
  private volatile Map<Thread, Share> shares;

  /**
   * One thread's hold of the name in the shared mode: its own hold in Redis and its reentrancy
   * count, which only that thread reads or writes.
   */
  static final class Share {
    final Hold hold;
    int count = 1;

    Share(Hold hold) {
      this.hold = hold;
    }
  }

  NameState(String name, LockKeys keys, Lifecycle lifecycle, boolean firstComeFirstServed) {
    this.name = name;
    this.keys = keys;
    this.local = new LocalLock(lifecycle, firstComeFirstServed);
  }

  /** The share of {@code thread}, or {@code null}. */
  Share shareOf(Thread thread) {
    Map<Thread, Share> all = shares;
    return all == null ? null : all.get(thread);
  }

  /** Records the share {@code thread} just took. */
  void addShare(Thread thread, Share share) {
    Map<Thread, Share> all = shares;
    if (all == null) {
      synchronized (this) {
        all = shares;
        if (all == null) {
          all = new ConcurrentHashMap<>();
          shares = all;
        }
      }
    }
    all.put(thread, share);
  }

  /**
   * Forgets the share of {@code thread} if it is {@code share}: whoever does so (its thread giving
   * it back, or a revocation) does it once.
   */
  boolean removeShare(Thread thread, Share share) {
    Map<Thread, Share> all = shares;
    return all != null && all.remove(thread, share);
  }

  /** Every share's hold. */
  void forEachShare(Consumer<Hold> action) {
    Map<Thread, Share> all = shares;
    if (all != null) {
      for (Share share : all.values()) {
        action.accept(share.hold);
      }
    }
  }
}
