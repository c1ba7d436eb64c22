package io.github.redislock.internal.backend;

import io.github.redislock.internal.backend.LockCommands.ScriptCall;
import io.github.redislock.internal.transport.Request;
import java.util.List;

/**
 * The commands of fair locks on one node, built for one lease: the queue in Redis that orders
 * waiters by their arrival, and the release that wakes its first waiter alone. The keys beside the
 * lock key are {@code ...:lock-fq} (the queue) and {@code ...:lock-ft} (its entries' leases).
 */
final class FairCommands {
  private final WireArguments wire;
  private final String lease;
  private final String waiterLease;
  private final String companionTtl;
  private final String publish;

  /**
   * The commands for holds of {@code wire}'s lease, which is also the lease of a waiter's queue
   * entry.
   */
  FairCommands(WireArguments wire) {
    this.wire = wire;
    this.lease = wire.lease();
    this.waiterLease = lease;
    this.companionTtl = wire.companionTtl();
    this.publish = wire.publish();
  }

  /**
   * The fair acquire script: takes the lock when it is free and {@code turn} allows (this waiter is
   * first; nobody waits; whoever waits), else queues the waiter (or refreshes its entry) and tells
   * how long to wait at most.
   */
  Request<Acquisition> acquire(
      LockKeys keys, String token, String waiterId, boolean fenced, Turn turn) {
    return new ScriptCall<>(
        "acquire",
        keys,
        Script.FAIR_ACQUIRE,
        List.of(keys.lock(), keys.fairQueue(), keys.fairLeases(), keys.companion()),
        List.of(
            token,
            lease,
            waiterId,
            waiterLease,
            companionTtl,
            fenced ? "1" : "0",
            switch (turn) {
              case BARGE -> "1";
              case IF_NOBODY_WAITS -> "2";
              case QUEUE -> "0";
            }),
        FairCommands::acquisition);
  }

  /**
   * The leave script: the waiter's entry goes; the next waiter is told if it is first now, or is
   * handed the lock if the waiter held it; with {@code unsettled} (else {@code null}), the waiter's
   * id is barred for a lease, and a lock that token holds is passed on.
   */
  Request<Boolean> leave(LockKeys keys, String waiterId, String unsettled) {
    return new ScriptCall<>(
        "leave the queue of",
        keys,
        Script.FAIR_LEAVE,
        List.of(keys.fairQueue(), keys.fairLeases(), keys.lock()),
        List.of(waiterId, keys.channel(), publish, unsettled == null ? "" : unsettled, waiterLease),
        reply -> ((Number) reply).longValue() == 1);
  }

  /** The fair release script: compare-and-delete, then the first live waiter is woken. */
  Request<Release> release(LockKeys keys, String token) {
    return new ScriptCall<>(
        "release",
        keys,
        Script.FAIR_RELEASE,
        List.of(keys.lock(), keys.fairQueue(), keys.fairLeases()),
        List.of(token, keys.channel(), publish),
        LockCommands::release);
  }

  /** The fair acquire script's reply: {@code {1, token}} or {@code {0, pttl, ourFormat, head}}. */
  static Acquisition acquisition(Object reply) {
    List<?> values = (List<?>) reply;
    if (((Number) values.get(0)).longValue() == 1) {
      return Acquisition.acquired(((Number) values.get(1)).longValue());
    }
    // Held: the holder's lease, and whether it publishes its release. Free, but another waiter is
    // first: how long that waiter's place lasts, and 1 (it publishes when it releases or leaves).
    return Acquisition.busy(
        ((Number) values.get(1)).longValue(), ((Number) values.get(2)).longValue() == 1);
  }

  /** The same commands for holds of {@code leaseMillis} ({@link WireArguments#withLease}). */
  FairCommands withLease(long leaseMillis) {
    return new FairCommands(wire.withLease(leaseMillis));
  }
}
