package io.github.redislock.internal;

/**
 * The answer to one acquisition attempt.
 *
 * @param acquired whether the caller now holds the lock
 * @param fencingToken the hold's fencing token, when acquired
 * @param holderTtlMillis the current holder's remaining lease when not acquired; -1 when its key
 *     never expires
 * @param holderPublishes whether the current holder is known to publish on release (it is one of
 *     ours), so that waiters may rely on the wake-up rather than on re-checks
 */
record Acquisition(boolean acquired, long fencingToken, long holderTtlMillis, boolean holderPublishes) {

  static Acquisition acquired(long fencingToken) {
    return new Acquisition(true, fencingToken, 0, false);
  }

  static Acquisition busy(long holderTtlMillis, boolean holderPublishes) {
    return new Acquisition(false, 0, holderTtlMillis, holderPublishes);
  }
}
