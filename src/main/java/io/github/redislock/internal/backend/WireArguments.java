package io.github.redislock.internal.backend;

import java.util.concurrent.TimeUnit;

/**
 * The arguments every script of one backend passes, spelled once for its lease and deployment: the
 * lease, how long a lock's companion hash outlives its last use, and the command that publishes a
 * wake-up. Built once per backend; every request builder takes its strings from here.
 *
 * @param leaseMillis the lease every acquisition and renewal sets
 * @param lease {@code leaseMillis} in decimal, as scripts take it
 * @param companionTtl how long a lock's companion hash (its fencing counter) outlives its last use,
 *     in decimal: twice the lease, and at least a minute
 * @param publish the command that publishes a release's wake-up: SPUBLISH where wake-ups go by
 *     sharded Pub/Sub (a Redis Cluster), else PUBLISH
 * @param subscribe the subscribe command that matches {@code publish}
 * @param unsubscribe the unsubscribe command that matches {@code publish}
 */
record WireArguments(
    long leaseMillis,
    String lease,
    String companionTtl,
    String publish,
    String subscribe,
    String unsubscribe) {

  /** The arguments for holds of {@code leaseMillis}, publishing by sharded Pub/Sub or not. */
  static WireArguments of(long leaseMillis, boolean shardedWakeUps) {
    return new WireArguments(
        leaseMillis,
        Long.toString(leaseMillis),
        Long.toString(companionTtlMillis(leaseMillis)),
        shardedWakeUps ? "spublish" : "publish",
        shardedWakeUps ? "ssubscribe" : "subscribe",
        shardedWakeUps ? "sunsubscribe" : "unsubscribe");
  }

  /** How long a lock's companion hash outlives its last use: twice the lease, at least a minute. */
  static long companionTtlMillis(long leaseMillis) {
    return Math.max(2 * leaseMillis, TimeUnit.MINUTES.toMillis(1));
  }

  /** The longest lease given per call: one day. */
  static final long MAX_LEASE_MILLIS = TimeUnit.DAYS.toMillis(1);

  /**
   * The same arguments (the same way of publishing) for holds of {@code leaseMillis}.
   *
   * @throws IllegalArgumentException unless {@code leaseMillis} is from 1 ms to one day
   */
  WireArguments withLease(long leaseMillis) {
    if (leaseMillis < 1 || leaseMillis > MAX_LEASE_MILLIS) {
      throw new IllegalArgumentException(
          "lease: " + leaseMillis + " ms, not from 1 ms to " + MAX_LEASE_MILLIS + " ms (one day)");
    }
    return new WireArguments(
        leaseMillis,
        Long.toString(leaseMillis),
        Long.toString(companionTtlMillis(leaseMillis)),
        publish,
        subscribe,
        unsubscribe);
  }
}
