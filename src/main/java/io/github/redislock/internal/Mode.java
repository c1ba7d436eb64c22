package io.github.redislock.internal;

/** How a lock call waits: the four acquisition methods of {@code Lock}. */
enum Mode {
  /** {@code tryLock()}: one attempt. */
  ONCE,
  /** {@code tryLock(time, unit)}: until a deadline, interruptibly. */
  TIMED,
  /** {@code lockInterruptibly()}. */
  INTERRUPTIBLE,
  /** {@code lock()}: waits through interrupts and Redis outages. */
  UNINTERRUPTIBLE
}
