package io.github.redislock.internal.kind;

import io.github.redislock.internal.backend.Acquisition.Grant;
import io.github.redislock.internal.backend.LockKeys;

/**
 * A kind of lock whose holds have fencing tokens: the exclusive ones (plain, fair, write). A read
 * share has none: a token orders writes, and readers do not write.
 */
public interface FencedKind extends LockKind {
  /**
   * A new, binding fencing token for the current holder of the hold of {@code token}, acquired with
   * {@code grant}; {@code -1} when not ours.
   */
  long reissueFence(LockKeys keys, String token, Grant grant);

  /**
   * Makes {@code fencingToken} of the hold of {@code token} binding; {@code false} when the hold is
   * not ours any more.
   */
  boolean confirmFence(LockKeys keys, String token, long fencingToken);

  /**
   * A holder asked for a fencing token: a kind that can issue tokens with its acquisitions does so
   * from now on, which saves the holders that ask a round trip.
   */
  void fencingWanted();
}
