package io.github.redislock.internal.backend;

import io.github.redislock.internal.backend.LockCommands.ScriptCall;
import io.github.redislock.internal.transport.Request;
import java.util.List;

/**
 * The commands of read-write locks on one node, built for one lease. The write lock is the lock key
 * itself (its renewal, release and fencing are {@link LockCommands}' own); beside it, {@code
 * ...:lock-rs} holds the read shares and {@code ...:lock-wi} the waiting writers' intents, both
 * sorted sets scored by the server time (ms) each entry's lease ends.
 */
final class ReadWriteCommands {
  private final WireArguments wire;
  private final String lease;
  private final String companionTtl;
  private final String publish;

  /**
   * The commands for holds of {@code wire}'s lease, which is also the lease of every read share and
   * writer's intent.
   */
  ReadWriteCommands(WireArguments wire) {
    this.wire = wire;
    this.lease = wire.lease();
    this.companionTtl = wire.companionTtl();
    this.publish = wire.publish();
  }

  /**
   * The write acquire script: takes the lock key when no writer holds it and no read share is live,
   * else leaves (or renews) the writer's intent, unless {@code writerId} is empty.
   */
  Request<Acquisition> write(LockKeys keys, String token, String writerId, boolean fenced) {
    return new ScriptCall<>(
        "acquire the write lock of",
        keys,
        Script.RW_WRITE,
        List.of(keys.lock(), keys.readShares(), keys.writerIntents(), keys.companion()),
        List.of(token, lease, writerId, companionTtl, fenced ? "1" : "0"),
        LockCommands::acquisition);
  }

  /**
   * The read acquire script: takes a share when no writer holds the lock (but the caller, {@code
   * writeToken}) and, unless {@code barge}, none waits.
   */
  Request<Acquisition> read(LockKeys keys, String token, String writeToken, boolean barge) {
    return new ScriptCall<>(
        "acquire the read lock of",
        keys,
        Script.RW_READ,
        List.of(keys.lock(), keys.readShares(), keys.writerIntents()),
        List.of(token, lease, writeToken, barge ? "1" : "0"),
        LockCommands::acquisition);
  }

  /** Renews a share's lease; {@code false} when the share is gone. */
  Request<Boolean> extendShare(LockKeys keys, String token) {
    return new ScriptCall<>(
        "renew a read share of",
        keys,
        Script.RW_READ_EXTEND,
        List.of(keys.readShares()),
        List.of(token, lease),
        reply -> ((Number) reply).longValue() == 1);
  }

  /** Gives a share back; the last one wakes the waiting writers. */
  Request<Release> releaseShare(LockKeys keys, String token) {
    return new ScriptCall<>(
        "release a read share of",
        keys,
        Script.RW_READ_RELEASE,
        List.of(keys.readShares()),
        List.of(token, keys.channel(), publish),
        LockCommands::release);
  }

  /**
   * A waiting writer's intent goes; readers behind it are woken when none is left. With {@code
   * unsettled} (else {@code null}), the writer's id is barred for a lease, and a write lock that
   * token holds is released.
   */
  Request<Boolean> leave(LockKeys keys, String writerId, String unsettled) {
    return new ScriptCall<>(
        "withdraw a writer's intent on",
        keys,
        Script.RW_LEAVE,
        List.of(keys.writerIntents(), keys.lock()),
        List.of(writerId, keys.channel(), publish, unsettled == null ? "" : unsettled, lease),
        reply -> ((Number) reply).longValue() == 1);
  }

  /** The number of live read shares. */
  Request<Integer> readers(LockKeys keys) {
    return new ScriptCall<>(
        "count the readers of",
        keys,
        Script.RW_READERS,
        List.of(keys.readShares()),
        List.of(),
        reply -> Math.toIntExact(((Number) reply).longValue()));
  }

  /** The same commands for holds of {@code leaseMillis} ({@link WireArguments#withLease}). */
  ReadWriteCommands withLease(long leaseMillis) {
    return new ReadWriteCommands(wire.withLease(leaseMillis));
  }
}
