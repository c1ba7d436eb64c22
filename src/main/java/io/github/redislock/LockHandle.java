package io.github.redislock;

import java.time.Duration;

/**
 * A hold of a lock that belongs to this object, not to a thread: any thread that has the handle may
 * release it, renew it, ask for its fencing token or query it, and no thread can without it. It is
 * the form of a lock for work that moves between threads: a {@code CompletableFuture} pipeline, a
 * reactive or coroutine chain, a scheduler that takes a lock in one task and releases it in
 * another.
 *
 * <pre>{@code
 * lock.acquireHoldAsync()
 *     .thenApplyAsync(hold -> { storage.write(record, hold.fencingToken()); return hold; }, pool)
 *     .thenAccept(LockHandle::release);   // on whatever thread runs this stage
 * }</pre>
 *
 * <p>Handles are obtained from the {@code acquireHold} methods of a {@link RedisLock} (a plain or
 * fair {@link RedisDistributedLock}, and the read and write locks of a {@link RedisReadWriteLock}).
 * A handle is one hold in Redis, with a token of its own: it is not reentrant, and it excludes (and
 * is excluded by) every other holder of the lock, the threads of its own JVM included. So a thread
 * that holds the lock and then asks for a handle of it waits, as any other owner would, until the
 * lock is released; asked without a timeout, that wait never ends. Ownership is the object, not a
 * thread id: nobody can release a handle's hold by pretending to be its owner.
 *
 * <p>A handle has what a thread's hold has: its lease is renewed in the background while it is held
 * (unless a lease was {@linkplain RedisLock#acquireHold(Duration) given with the call}, or by
 * {@link #extend}); its loss (the lease ran out, the key was deleted or taken, the factory was
 * closed, the {@linkplain RedisDistributedLock#withMaxHoldTime maximum hold time} passed) is
 * reported to the factory's {@code onLockLost} listener and thrown by the next {@link #release()};
 * it has a {@linkplain #fencingToken() fencing token}; it is counted in the factory's statistics,
 * JFR events and {@link RedisLockFactory#activity() activity}, and its key shows in {@link
 * RedisLockFactory#inspect}.
 *
 * <p>Handles are thread-safe. Closing it ({@link #close()}) releases it unless it was released
 * already, so a handle may be used in try-with-resources.
 */
public interface LockHandle extends AutoCloseable {

  /**
   * Returns the name of the lock this handle holds.
   *
   * @return the lock's name
   */
  String name();

  /**
   * Queries, from the JVM without calling Redis, whether this handle still holds its lock: it was
   * neither released nor lost, and its lease, as last confirmed by Redis, has not run out.
   *
   * @return whether the hold is held
   */
  boolean isHeld();

  /**
   * Returns the fencing token of this hold: strictly greater than the token of every earlier hold
   * of the lock's name, in every process (see {@link RedisDistributedLock#getFencingToken()}). The
   * first call may cost one Redis call; later ones answer from the JVM.
   *
   * @return this hold's fencing token
   * @throws IllegalMonitorStateException if this hold was released
   * @throws LockLostException if this hold was lost
   * @throws RedisLockException if Redis could not be reached to issue the token
   * @throws UnsupportedOperationException for a hold of a read lock, which has no fencing token
   */
  long fencingToken();

  /**
   * Sets this hold's lease to {@code lease} from now, if it still holds the lock. From then on the
   * factory does not renew it: the hold ends when this lease runs out (reported as a loss, as a
   * {@linkplain RedisLock#acquireHold(Duration) lease given per call} is), unless {@code extend} is
   * called again or the hold is released first. This is the answer to "the job may die while it
   * holds the lock": a lease that outlasts the job by a margin, set again as the job goes on.
   *
   * @param lease the new lease, between 1 millisecond and one day
   * @return {@code true} if Redis confirmed the new lease; {@code false} if the hold was released,
   *     or was lost (the loss is then reported as by the renewal, and the next {@link #release()}
   *     throws {@link LockLostException})
   * @throws NullPointerException if {@code lease} is null
   * @throws IllegalArgumentException if {@code lease} is out of range
   * @throws RedisLockException if Redis could not be reached; the hold keeps the lease it had
   */
  boolean extend(Duration lease);

  /**
   * Releases this hold: deletes the lock key if it still holds this hold's token, and wakes the
   * lock's waiters. May be called from any thread.
   *
   * @throws IllegalMonitorStateException if this hold was released already
   * @throws LockLostException if the hold was lost before this release (told once: a second call
   *     throws {@code IllegalMonitorStateException})
   * @throws RedisLockException if Redis could not confirm the release; the handle is released in
   *     this JVM all the same, and the key expires with its lease
   */
  void release();

  /**
   * Ends this hold without releasing the lock now: the lock stays held in Redis for {@code delay}
   * more (its lease is set to {@code delay}, if it still holds the lock), and then expires, without
   * a loss being reported; waiters take it then. The handle counts as released from now on. A zero
   * or negative delay releases at once, as {@link #release()} does. This is how a scheduler keeps a
   * job from running again too soon on another node ("lock at least for").
   *
   * @param delay how much longer the lock stays held, at most one day
   * @throws NullPointerException if {@code delay} is null
   * @throws IllegalArgumentException if {@code delay} is longer than one day
   * @throws IllegalMonitorStateException if this hold was released already
   * @throws LockLostException if the hold was lost before this call (told once)
   * @throws RedisLockException if Redis could not be reached; the handle is released in this JVM
   *     all the same, and the key expires with the lease it had
   */
  void releaseAfter(Duration delay);

  /**
   * Releases this hold unless it was released already (by {@link #release()}, {@link #releaseAfter}
   * or an earlier {@code close()}), in which case it does nothing.
   *
   * @throws LockLostException if the hold was lost before it was released
   * @throws RedisLockException if Redis could not confirm the release
   */
  @Override
  void close();
}
