package io.github.redislock.internal.backend;

import io.github.redislock.RedisLockException;
import io.github.redislock.internal.backend.Acquisition.Grant;
import java.util.Optional;

/**
 * What differs between one Redis node and several: the engine writes the {@code Lock} logic
 * (reentrancy, waiting, interrupts, renewal) once and talks to Redis only through this. A backend
 * is built for one lease, which every acquisition and renewal sets. Every method throws {@link
 * RedisLockException}, with the client's exception as its cause, when Redis cannot be reached or
 * answers with an error.
 */
public interface LockBackend extends AutoCloseable {

  /** The name {@link #nodeOf} gives every key by default. */
  String ONE_NAME = "redis";

  /**
   * One attempt to take the lock with {@code token}. The engine says what it knows, and the backend
   * picks the cheapest commands for it.
   *
   * @param fenced whether to issue the hold's fencing token with the acquisition; when not, the
   *     reply's token is 0 and one is issued when first asked for ({@link #reissueFence})
   * @param expectBusy whether the lock was seen busy by the last attempt, with no release announced
   *     since: then a reply that tells how long it stays busy is worth more than the cheapest
   *     acquisition
   */
  Acquisition tryAcquire(LockKeys keys, String token, boolean fenced, boolean expectBusy);

  /** Renews the lease; {@code false} when the key no longer holds {@code token}. */
  boolean extend(LockKeys keys, String token);

  /**
   * Deletes the key if it holds {@code token} and wakes waiters; {@code false} when it did not hold
   * it (a repeated call after a lost reply answers {@code false} too: the caller tells the cases
   * apart by whether the failed call may have run, {@link Failures#certainlyNotRun}, and by its
   * lease; {@link Release#server()} names the server that answered, when known). The fencing
   * counter is raised to {@code fencingToken} (0: no token was issued) where the key is released.
   * {@code grant} is the {@link Acquisition#grant()} of the hold, or {@code null} for an attempt
   * that was not granted.
   */
  Release release(LockKeys keys, String token, long fencingToken, Grant grant);

  /**
   * Makes {@code fencingToken} binding before anyone sees it: every later hold gets a greater
   * token. One node issues it atomically with the acquisition, so this is a no-op there; Redlock
   * raises the counters of a majority of nodes on which the key still holds {@code token}. {@code
   * false} when the hold is not ours any more: the token must not be given out.
   */
  boolean confirmFence(LockKeys keys, String token, long fencingToken);

  /**
   * Issues a new, binding fencing token to a hold: greater than every token issued before. For a
   * hold acquired without one, and for a hold that passed to another thread without a release.
   * {@code -1} when the hold is not ours any more.
   */
  long reissueFence(LockKeys keys, String token, Grant grant);

  /**
   * How much sooner than the lease a hold must be taken to end, for the clock drift between this
   * process and the servers: zero on one node, Redlock's drift allowance otherwise.
   */
  long safetyMarginNanos();

  /**
   * The name of the node that serves {@code keys}: the same for every key of one node and different
   * between nodes, so that the engine can keep each node's background calls apart (a node that
   * stops answering then holds up only its own). Answered from memory, without a call to Redis; a
   * name out of date after a failover or a resharding costs only that separation, never a command
   * (the client routes each command itself). One server, and Redlock, whose every key is on every
   * master, give every key one name, {@value #ONE_NAME}.
   */
  String nodeOf(LockKeys keys);

  /** Whether anyone holds the lock. */
  boolean isLocked(LockKeys keys);

  /**
   * A snapshot of the name of {@code keys}, writing nothing: under Redlock, what a majority of the
   * masters agree on.
   */
  LockState inspect(LockKeys keys);

  /**
   * Deletes the lock key and any read shares of the name, whoever holds them, and wakes waiters.
   *
   * @return whether anything was deleted (under Redlock, on any master)
   */
  boolean forceUnlock(LockKeys keys);

  /**
   * Writes who holds the hold of {@code token} beside its key, with its lease; with a {@code null}
   * {@code host}, extends the description written before (after a renewal). Best effort.
   */
  void describeHolder(LockKeys keys, String token, String host, long pid, String thread);

  /**
   * What only one Redis deployment can do (fair locks, read-write locks, conditions), asked once,
   * when the first lock of such a kind is made.
   *
   * @return those operations, or empty under Redlock (see {@link OrderedOps})
   */
  Optional<OrderedOps> orderedOps();

  /**
   * A view of this backend whose every acquisition, renewal, fencing, fair place and read or write
   * entry sets {@code leaseMillis} instead of the backend's own lease, on the same clients and
   * transport. It owns nothing: its {@link #close()} does nothing, and it is cheap to make (no I/O,
   * no thread, no access check redone). Its {@link #safetyMarginNanos()} is that lease's.
   *
   * @param leaseMillis the lease, from 1 ms to one day
   * @throws IllegalArgumentException for a lease out of that range
   */
  LockBackend withLease(long leaseMillis);

  @Override
  void close();
}
