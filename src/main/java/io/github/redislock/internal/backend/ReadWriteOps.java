package io.github.redislock.internal.backend;

import io.github.redislock.internal.transport.Direct;
import java.util.function.Consumer;
import redis.clients.jedis.UnifiedJedis;

/**
 * Read-write locks on one Redis deployment: the write lock is the lock key itself, so its renewal,
 * release, fencing and inspection are the {@link LockBackend}'s own; readers hold shares in a
 * sorted set beside it, each with a lease of its own; writers that wait leave intents, which hold
 * later readers back. Every method throws {@code RedisLockException} when Redis fails.
 */
public final class ReadWriteOps {
  /** Checks, at the first acquisition, that the Redis user may run what the kind needs. */
  private final Consumer<LockKeys> firstContact;

  private final UnifiedJedis client;
  private final ReadWriteCommands commands;
  private final Direct direct;

  ReadWriteOps(
      UnifiedJedis client,
      ReadWriteCommands commands,
      Direct direct,
      Consumer<LockKeys> firstContact) {
    this.client = client;
    this.commands = commands;
    this.direct = direct;
    this.firstContact = firstContact;
  }

  /**
   * One attempt of writer {@code writerId} to take the write lock: acquired when no writer holds it
   * and no read share is live; else its intent is left (or renewed), unless {@code writerId} is
   * empty, and the reply tells how long the lock stays busy.
   */
  public Acquisition tryWrite(LockKeys keys, String token, String writerId, boolean fenced) {
    firstContact.accept(keys);
    return commands.write(keys, token, writerId, fenced).call(client);
  }

  /**
   * One attempt to take a read share with {@code token}: acquired when no writer holds the lock and
   * none waits; a writer's own share (a downgrade, {@code writeToken} being its token) is taken
   * whoever waits, and so is one that {@code barge}s.
   *
   * @param writeToken the token of the caller's write hold, or {@code ""}
   */
  public Acquisition tryRead(LockKeys keys, String token, String writeToken, boolean barge) {
    firstContact.accept(keys);
    return commands.read(keys, token, writeToken, barge).call(client);
  }

  /** Renews a read share's lease; {@code false} when it is gone. */
  public boolean extendShare(LockKeys keys, String token) {
    return commands.extendShare(keys, token).call(client);
  }

  /** Gives a read share back; sent once, as any release. The last share wakes waiting writers. */
  public Release releaseShare(LockKeys keys, String token) {
    Direct.Reply<Release> reply = direct.send(commands.releaseShare(keys, token), keys.lock());
    return reply.value().released() ? reply.value() : Release.notOurs(reply.server());
  }

  /**
   * A waiting writer gives up: its intent goes at once.
   *
   * @param unsettled the token of an attempt of the wait that may still reach Redis, which its
   *     writer id then bars for a lease (it takes nothing and leaves no intent), and whose write
   *     lock is released if it took it; {@code null} when none may
   */
  public void leave(LockKeys keys, String writerId, String unsettled) {
    commands.leave(keys, writerId, unsettled).call(client);
  }

  /** The number of live read shares, in every process. */
  public int readers(LockKeys keys) {
    return commands.readers(keys).call(client);
  }

  /**
   * The same operations, on the same client, whose every write hold, read share and intent sets
   * {@code leaseMillis}; the first acquisition's access check is this one's.
   *
   * @throws IllegalArgumentException unless {@code leaseMillis} is from 1 ms to one day
   */
  public ReadWriteOps withLease(long leaseMillis) {
    return new ReadWriteOps(client, commands.withLease(leaseMillis), direct, firstContact);
  }
}
