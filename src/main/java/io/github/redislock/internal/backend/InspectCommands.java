package io.github.redislock.internal.backend;

import java.util.List;

/**
 * The operators' commands on a lock name, as {@link LockCommands}' requests: inspecting it ({@code
 * inspect.lua}), deleting it whoever holds it ({@code force_unlock.lua}), and the holder's
 * description that inspection reads ({@code describe.lua}).
 */
final class InspectCommands {
  private final String lease;
  private final String publish;

  /** The commands of one deployment; a description expires as its hold does, with the lease. */
  InspectCommands(WireArguments wire) {
    this.lease = wire.lease();
    this.publish = wire.publish();
  }

  LockCommands.ScriptCall<LockState> inspect(LockKeys keys) {
    return new LockCommands.ScriptCall<>(
        "inspect",
        keys,
        Script.INSPECT,
        List.of(keys.lock(), keys.companion(), keys.holder(), keys.readShares()),
        List.of(keys.channel()),
        LockState::parse);
  }

  LockCommands.ScriptCall<Long> forceUnlock(LockKeys keys) {
    return new LockCommands.ScriptCall<>(
        "force-unlock",
        keys,
        Script.FORCE_UNLOCK,
        List.of(keys.lock(), keys.readShares(), keys.holder()),
        List.of(keys.channel(), publish),
        InspectCommands::number);
  }

  /**
   * Writes (or, with a {@code null} host, extends) the description of the hold of {@code token}.
   */
  LockCommands.ScriptCall<Long> describe(
      LockKeys keys, String token, String host, long pid, String thread) {
    return new LockCommands.ScriptCall<>(
        "describe the holder of",
        keys,
        Script.DESCRIBE,
        List.of(keys.lock(), keys.holder()),
        List.of(
            token,
            host == null ? "" : host,
            Long.toString(pid),
            thread == null ? "" : thread,
            lease),
        InspectCommands::number);
  }

  private static Long number(Object reply) {
    return ((Number) reply).longValue();
  }
}
