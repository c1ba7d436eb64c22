package io.github.redislock.internal;

/**
 * The answer to a release.
 *
 * @param released whether the hold was still ours and is released now (or was, by an earlier
 *     call whose reply was lost)
 * @param othersWaiting whether clients of other processes or factories were waiting for the lock
 *     when it was released: this process's next attempt should give them a moment
 */
record Release(boolean released, boolean othersWaiting) {
  static final Release NOT_OURS = new Release(false, false);
  static final Release RELEASED = new Release(true, false);
  static final Release RELEASED_TO_WAITERS = new Release(true, true);
}
