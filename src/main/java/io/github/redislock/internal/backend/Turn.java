package io.github.redislock.internal.backend;

/** How an attempt at a fair lock treats the lock's queue of waiters. */
public enum Turn {
  /** Takes a free lock whoever waits, and queues nothing: {@code tryLock()}. */
  BARGE,
  /** Takes a free lock if nobody waits, and queues nothing: {@code tryLock(0, unit)}. */
  IF_NOBODY_WAITS,
  /** Takes a free lock when first in the queue, else queues or renews its place: a waiter. */
  QUEUE
}
