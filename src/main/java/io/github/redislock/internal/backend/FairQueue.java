package io.github.redislock.internal.backend;

import io.github.redislock.internal.transport.Direct;
import java.util.function.Consumer;
import redis.clients.jedis.UnifiedJedis;

/**
 * Fair locks on one Redis deployment: waiters queue in Redis, in the order of their arrival there
 * (a sequence the acquire script draws, never a client clock), and acquire in that order. The lock
 * key is the same string key as every lock's, so renewal, fencing and inspection are the {@link
 * LockBackend}'s own. Every method throws {@code RedisLockException} when Redis fails.
 */
public final class FairQueue {
  /** Checks, at the first acquisition, that the Redis user may run what the kind needs. */
  private final Consumer<LockKeys> firstContact;

  private final UnifiedJedis client;
  private final FairCommands commands;
  private final Direct direct;

  FairQueue(
      UnifiedJedis client, FairCommands commands, Direct direct, Consumer<LockKeys> firstContact) {
    this.client = client;
    this.commands = commands;
    this.direct = direct;
    this.firstContact = firstContact;
  }

  /**
   * One attempt of waiter {@code waiterId} (empty unless {@code turn} is {@link Turn#QUEUE}):
   * acquired when the lock is free and {@code turn} allows it; else, for a waiter, its place is
   * queued or its lease renewed, and the reply tells how long to wait at most.
   */
  public Acquisition tryAcquire(
      LockKeys keys, String token, String waiterId, boolean fenced, Turn turn) {
    firstContact.accept(keys);
    return commands.acquire(keys, token, waiterId, fenced, turn).call(client);
  }

  /**
   * The waiter stops waiting: its entry goes at once, and the next waiter learns if it is first. A
   * lock handed to the waiter, or taken by {@code unsettled}, goes to the next waiter.
   *
   * @param unsettled the token of an attempt of the wait that may still reach Redis, which its
   *     waiter id then bars for a lease (it takes nothing and queues nothing); {@code null} when
   *     none may
   */
  public void leave(LockKeys keys, String waiterId, String unsettled) {
    commands.leave(keys, waiterId, unsettled).call(client);
  }

  /** Releases {@code token}'s hold and wakes the first waiter alone; sent once, as any release. */
  public Release release(LockKeys keys, String token) {
    Direct.Reply<Release> reply = direct.send(commands.release(keys, token), keys.lock());
    return reply.value().released() ? reply.value() : Release.notOurs(reply.server());
  }

  /**
   * The same queues, on the same client, whose every acquisition, place and hand-over sets {@code
   * leaseMillis}; the first acquisition's access check is this one's.
   *
   * @throws IllegalArgumentException unless {@code leaseMillis} is from 1 ms to one day
   */
  public FairQueue withLease(long leaseMillis) {
    return new FairQueue(client, commands.withLease(leaseMillis), direct, firstContact);
  }
}
