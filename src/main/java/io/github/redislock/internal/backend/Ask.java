package io.github.redislock.internal.backend;

/** How a backend asks one node for a lock: the command it picks from the engine's hints. */
enum Ask {
  /**
   * The lock is probably free and no fencing token is wanted: a plain {@code SET NX PX}, the
   * cheapest acquisition there is; only when that finds the lock busy, the acquire script, which
   * tells how long it stays busy. The hold's fencing token is 0 (issued when asked for).
   */
  PLAIN,
  /** The lock was just seen busy: the acquire script at once. The fencing token is 0. */
  PROBE,
  /** The acquire script, which also issues the hold's fencing token with the acquisition. */
  FENCED;

  /** The command for what the engine knows: a wanted token comes first, then a busy lock. */
  static Ask of(boolean fenced, boolean expectBusy) {
    return fenced ? FENCED : expectBusy ? PROBE : PLAIN;
  }
}
