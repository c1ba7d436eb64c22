package io.github.redislock;

import io.github.redislock.internal.Telemetry;
import io.github.redislock.internal.engine.LockEngine;

/**
 * The public snapshots of a factory ({@link LockStats}, {@link LockActivity}) from its engine's.
 */
final class Snapshots {
  private Snapshots() {}

  static LockStats stats(Telemetry.Counts counts) {
    return LockStats.of(
        counts.acquisitions(),
        counts.failures(),
        counts.timeouts(),
        counts.totalWaitNanos(),
        counts.maxWaitNanos(),
        counts.handoffs(),
        counts.lostHolds(),
        counts.redisErrors(),
        counts.renewals());
  }

  static LockActivity activity(LockEngine.Activity now) {
    return LockActivity.of(
        now.renewingHolds(),
        now.namesInUse(),
        now.subscribedChannels(),
        now.threadsPerNode(),
        now.turnsGiven(),
        now.spuriousWakeUps());
  }
}
