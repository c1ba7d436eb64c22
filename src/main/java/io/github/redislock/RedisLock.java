package io.github.redislock;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.Lock;

/**
 * What every lock of this library adds to {@link Lock}: a lease given per call, and holds owned by
 * an object rather than a thread ({@link LockHandle}), taken by a blocking call or by one that
 * returns a {@link CompletableFuture} at once. Implemented by {@link RedisDistributedLock} (plain
 * and fair) and by the read and write locks of {@link RedisReadWriteLock}.
 *
 * <h2>Which form</h2>
 *
 * <ul>
 *   <li>{@code lock()}/{@code unlock()} (the {@link Lock} methods): the thread that locks unlocks;
 *       reentrant. Code written for {@code ReentrantLock}.
 *   <li>{@link #lockFor(Duration)} and {@link #tryLock(Duration, Duration)}: the same, with a lease
 *       that is not renewed: the hold ends when it runs out, even if the thread never unlocks.
 *   <li>{@link #acquireHold()} and its timed and leased forms: a {@link LockHandle} that any thread
 *       may release. The calling thread waits for it.
 *   <li>{@link #acquireHoldAsync()} and its forms: the same handle, in a {@code CompletableFuture};
 *       no thread waits for it.
 * </ul>
 *
 * <h2>Leases given per call</h2>
 *
 * <p>By default a hold has the factory's {@linkplain RedisLockFactory.Builder#leaseTime lease},
 * renewed in the background while the hold is held, so that a long critical section keeps the lock
 * and a dead process frees it within one lease. A lease given with the call is set on the lock key
 * by the acquisition itself and is <em>not</em> renewed: the hold lasts at most that long. If it
 * runs out before the holder releases, the hold is lost as any other, reported to the factory's
 * {@code onLockLost} listener, and the holder's release throws {@link LockLostException}. Give one
 * when a job must never keep the lock longer than a known time, whatever happens to its process
 * (ShedLock's "lock at most for"); a handle's lease may be {@linkplain LockHandle#extend set again}
 * as the job progresses. A reentrant acquisition of a thread's hold keeps the lease of the hold.
 *
 * <h2>Asynchronous acquisition</h2>
 *
 * <p>The future of an asynchronous acquisition is pending while the lock is busy; no thread waits
 * for it. The first attempt runs in the calling thread (so an uncontended acquisition costs what a
 * {@code tryLock()} costs, and the future is complete when the method returns), unless the wait is
 * shorter than a Redis call may take at worst (three command timeouts): then it runs on the
 * factory's background threads, so that a stalled Redis cannot hold the caller past the wait; when
 * the lock is busy, the acquisition is a registration on the lock's wake-up channel, woken by the
 * holder's release as a waiting thread is, and re-checked at the holder's lease end and
 * periodically, by attempts that run on the factory's background threads. Acquisitions of one name
 * by handles of one factory queue in the JVM, so that only the first of them asks Redis.
 *
 * <ul>
 *   <li><b>Timeout</b>: a {@code tryAcquireHoldAsync} whose time runs out completes with an empty
 *       {@code Optional}; an {@code acquireHoldAsync} has no timeout (combine it with {@link
 *       CompletableFuture#orTimeout}, which completes it exceptionally and so cancels it, see
 *       below).
 *   <li><b>Cancel</b>: cancelling the future (or completing it in any other way before the lock is
 *       granted) withdraws the acquisition: its place in a fair queue, or its writer's intent, is
 *       taken out of Redis, and an attempt that was granted after the cancel is released at once,
 *       so no hold is left behind.
 *   <li><b>Failure</b>: Redis errors that waiting cannot cure (a key of the wrong type, a refused
 *       command) complete the future exceptionally with {@link RedisLockException}; outages are
 *       retried with a backoff, as by {@link Lock#lock()}.
 *   <li><b>Close</b>: closing the factory completes every pending future exceptionally with {@link
 *       IllegalStateException}; handles still held are lost.
 * </ul>
 *
 * <p>Dependent stages run, as for any {@code CompletableFuture}, on the thread that completes it:
 * here one of the factory's background threads. Use the {@code ...Async} stage methods with an
 * executor of your own for work that blocks.
 */
public interface RedisLock extends Lock {

  /**
   * Returns the name of this lock.
   *
   * @return the lock's name
   */
  String getName();

  /**
   * Acquires the lock for the current thread, as {@link Lock#lock()} does, with a lease of {@code
   * lease} that is not renewed: the hold ends when it runs out, reported as a lost hold, if the
   * thread has not unlocked by then. If the current thread holds the lock already, the hold count
   * goes up and the hold keeps its lease.
   *
   * <p>It is not an overload of {@code lock()}: that would make the method reference {@code
   * lock::lock} ambiguous where both a {@code Runnable} and a {@code Callable} fit (as in {@code
   * executor.submit(lock::lock)}), and code that compiles today would not.
   *
   * @param lease the hold's lease, between 1 millisecond and one day
   * @throws NullPointerException if {@code lease} is null
   * @throws IllegalArgumentException if {@code lease} is out of range
   * @throws LockLostException if a hold of the current thread was lost and it was not told yet
   * @throws RedisLockException if Redis answers with an error that waiting cannot cure
   * @throws IllegalStateException if the factory is closed
   */
  void lockFor(Duration lease);

  /**
   * Acquires the lock for the current thread within {@code wait}, as {@link Lock#tryLock(long,
   * java.util.concurrent.TimeUnit)} does, with a lease of {@code lease} that is not renewed (see
   * {@link #lockFor(Duration)}).
   *
   * @param wait the longest time to wait; zero or less makes one attempt
   * @param lease the hold's lease, between 1 millisecond and one day
   * @return whether the current thread holds the lock now
   * @throws InterruptedException if the current thread is interrupted
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if {@code lease} is out of range
   * @throws LockLostException if a hold of the current thread was lost and it was not told yet
   * @throws RedisLockException if Redis could not be reached or answered with an error, and the
   *     lock was not acquired by the deadline
   * @throws IllegalStateException if the factory is closed
   */
  boolean tryLock(Duration wait, Duration lease) throws InterruptedException;

  /**
   * Acquires a hold owned by the returned handle, waiting as long as it takes, with the factory's
   * lease, renewed while held. The current thread waits uninterruptibly, as {@link Lock#lock()}
   * does (its interrupt status is set again on return). Not reentrant: see {@link LockHandle}.
   *
   * @return the hold
   * @throws RedisLockException if Redis answers with an error that waiting cannot cure
   * @throws IllegalStateException if the factory is closed, or closes while this waits
   */
  LockHandle acquireHold();

  /**
   * As {@link #acquireHold()}, with a lease of {@code lease} that is not renewed.
   *
   * @param lease the hold's lease, between 1 millisecond and one day
   * @return the hold
   * @throws NullPointerException if {@code lease} is null
   * @throws IllegalArgumentException if {@code lease} is out of range
   * @throws RedisLockException if Redis answers with an error that waiting cannot cure
   * @throws IllegalStateException if the factory is closed, or closes while this waits
   */
  LockHandle acquireHold(Duration lease);

  /**
   * Makes one attempt to acquire a hold owned by the returned handle, as {@link Lock#tryLock()}
   * does: empty when another owner holds the lock (or, on a fair lock, others wait for it).
   *
   * @return the hold, or empty if the lock is busy
   * @throws RedisLockException if Redis cannot be reached or answers with an error: never empty
   *     when it could not find out
   * @throws IllegalStateException if the factory is closed
   */
  Optional<LockHandle> tryAcquireHold();

  /**
   * Acquires a hold owned by the returned handle if the lock can be had within {@code wait}, with
   * the factory's lease, renewed while held. An interrupt withdraws the attempt and leaves no hold
   * behind.
   *
   * @param wait the longest time to wait; zero or less makes one attempt
   * @return the hold, or empty if the time ran out
   * @throws InterruptedException if the current thread is interrupted
   * @throws NullPointerException if {@code wait} is null
   * @throws RedisLockException if Redis could not be reached or answered with an error, and the
   *     lock was not acquired by the deadline
   * @throws IllegalStateException if the factory is closed, or closes while this waits
   */
  Optional<LockHandle> tryAcquireHold(Duration wait) throws InterruptedException;

  /**
   * As {@link #tryAcquireHold(Duration)}, with a lease of {@code lease} that is not renewed.
   *
   * @param wait the longest time to wait; zero or less makes one attempt
   * @param lease the hold's lease, between 1 millisecond and one day
   * @return the hold, or empty if the time ran out
   * @throws InterruptedException if the current thread is interrupted
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if {@code lease} is out of range
   * @throws RedisLockException if Redis could not be reached or answered with an error, and the
   *     lock was not acquired by the deadline
   * @throws IllegalStateException if the factory is closed, or closes while this waits
   */
  Optional<LockHandle> tryAcquireHold(Duration wait, Duration lease) throws InterruptedException;

  /**
   * Acquires a hold owned by a handle, without a thread waiting for it: the future completes with
   * the handle once the lock is granted (see the class description for timeouts, cancelling and
   * close). The factory's lease, renewed while held.
   *
   * @return the future of the hold: completed exceptionally with {@link RedisLockException} when
   *     Redis answers with an error that waiting cannot cure, with {@link IllegalStateException}
   *     when the factory closes, with {@link CancellationException} when cancelled
   * @throws IllegalStateException if the factory is closed
   */
  CompletableFuture<LockHandle> acquireHoldAsync();

  /**
   * As {@link #acquireHoldAsync()}, with a lease of {@code lease} that is not renewed.
   *
   * @param lease the hold's lease, between 1 millisecond and one day
   * @return the future of the hold
   * @throws NullPointerException if {@code lease} is null
   * @throws IllegalArgumentException if {@code lease} is out of range
   * @throws IllegalStateException if the factory is closed
   */
  CompletableFuture<LockHandle> acquireHoldAsync(Duration lease);

  /**
   * Acquires a hold owned by a handle within {@code wait}, without a thread waiting for it: the
   * future completes with the handle once the lock is granted, or with an empty {@code Optional}
   * when the time runs out first (zero or less: after one attempt). The factory's lease, renewed
   * while held.
   *
   * @param wait the longest time to wait
   * @return the future of the hold
   * @throws NullPointerException if {@code wait} is null
   * @throws IllegalStateException if the factory is closed
   */
  CompletableFuture<Optional<LockHandle>> tryAcquireHoldAsync(Duration wait);

  /**
   * As {@link #tryAcquireHoldAsync(Duration)}, with a lease of {@code lease} that is not renewed.
   *
   * @param wait the longest time to wait
   * @param lease the hold's lease, between 1 millisecond and one day
   * @return the future of the hold
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if {@code lease} is out of range
   * @throws IllegalStateException if the factory is closed
   */
  CompletableFuture<Optional<LockHandle>> tryAcquireHoldAsync(Duration wait, Duration lease);
}
