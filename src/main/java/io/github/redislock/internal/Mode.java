package io.github.redislock.internal;

/** How a lock call waits: the four acquisition methods of {@code Lock}. */
public enum Mode {
  /** {@code tryLock()}: one attempt. */
  ONCE,
  /**
   * {@code tryLock(0, unit)}: one attempt that honours a fair lock's queues, local and in Redis, as
   * {@code tryLock(0, unit)} honours a fair {@code ReentrantLock}'s; on other locks, {@link #ONCE}.
   */
  ONCE_IN_TURN,
  /** {@code tryLock(time, unit)}: until a deadline, interruptibly. */
  TIMED,
  /** {@code lockInterruptibly()}. */
  INTERRUPTIBLE,
  /** {@code lock()}: waits through interrupts and Redis outages. */
  UNINTERRUPTIBLE;

  /** Whether the call makes one attempt and never waits. */
  boolean once() {
    return this == ONCE || this == ONCE_IN_TURN;
  }
}
