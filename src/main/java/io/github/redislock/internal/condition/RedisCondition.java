package io.github.redislock.internal.condition;

import io.github.redislock.LockLostException;
import io.github.redislock.RedisLockException;
import io.github.redislock.internal.Hold;
import io.github.redislock.internal.LockName;
import io.github.redislock.internal.Mode;
import io.github.redislock.internal.backend.ConditionKeys;
import java.util.Date;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.function.Consumer;

/**
 * A {@link Condition} of a {@code RedisDistributedLock} whose awaiters and signals are kept in
 * Redis, so that a thread of any process that holds the lock can signal a thread of any other
 * process that awaits it; returned by {@code RedisDistributedLock.newCondition()}, whose
 * description gives the guarantees. It behaves as the condition of a {@code ReentrantLock} does
 * (AbstractQueuedSynchronizer's {@code ConditionObject}), across processes.
 */
public final class RedisCondition implements Condition {
  private static final long MAX_TIMEOUT_NANOS = Long.MAX_VALUE / 4;

  /*
   * A thin facade, as RedisDistributedLock is: one ConditionWait per await does the work, and a
   * signal is one script. The keys are derived once, here.
   */

  private final Conditions conditions;
  private final LockName lock;
  private final ConditionKeys keys;
  private final String description;

  /** Run by each await once it checked that the thread holds the lock; throws to refuse it. */
  private final Consumer<LockName> beforeAwait;

  RedisCondition(
      Conditions conditions,
      LockName lock,
      String name,
      boolean numbered,
      Consumer<LockName> beforeAwait) {
    this.conditions = conditions;
    this.lock = lock;
    this.beforeAwait = beforeAwait;
    this.keys = ConditionKeys.of(lock.keys, Objects.requireNonNull(name, "name"), numbered);
    this.description =
        (numbered ? "condition " + name : "condition '" + name + "'") + " of lock '" + lock + "'";
  }

  /**
   * Causes the current thread to wait until it is signalled or {@linkplain Thread#interrupt
   * interrupted}.
   *
   * <p>The lock is released, every hold of it by the current thread at once, in Redis and in this
   * JVM, and the thread waits until a thread of any process signals it ({@link #signal} chose it,
   * or {@link #signalAll} was called), some other thread interrupts it, or a spurious wake-up
   * occurs. Before the method returns, the current thread re-acquires the lock with the hold count
   * it had: for the thread a new hold, however it came (by an acquisition in Redis, or passed on by
   * its signaller), with, when asked for, a greater fencing token, and a maximum hold time counted
   * from then.
   *
   * <p>If the current thread has its interrupted status set on entry, or is interrupted while
   * waiting and before it was signalled, then {@link InterruptedException} is thrown (after the
   * lock was re-acquired) and the interrupted status is cleared. A thread interrupted after it was
   * signalled returns normally with its interrupted status set.
   *
   * <p>In this implementation a spurious wake-up happens only when the awaiter's entry in Redis was
   * lost (its lease of the factory's lease time ran out, while Redis could not be reached or the
   * process was paused, or Redis restarted or failed over): the awaiter cannot tell then whether it
   * missed a signal, so it returns.
   *
   * @throws InterruptedException if the current thread is interrupted before it is signalled
   * @throws IllegalMonitorStateException if the current thread does not hold the lock ({@link
   *     LockLostException} if its hold was lost)
   * @throws RedisLockException if Redis could not be reached to release the lock and enqueue the
   *     thread: the lock is then released in this JVM, not held, and its key expires with its lease
   *     (an entry the thread may have left in the queue leaves it in the background, and takes no
   *     signal); or, thrown before anything was released, to record the signals the thread gave
   *     under its hold (see {@link #signal()}): the lock is still held, and they stay to go with
   *     its release
   * @throws IllegalStateException if the factory is closed while the thread waits
   */
  @Override
  public void await() throws InterruptedException {
    if (Thread.interrupted()) {
      throw new InterruptedException();
    }
    newWait(Mode.INTERRUPTIBLE, 0).run();
  }

  /**
   * Causes the current thread to wait until it is signalled. As {@link #await()}, except that an
   * interrupt does not end the wait: the thread keeps waiting, and its interrupted status is set
   * when the method returns.
   *
   * @throws IllegalMonitorStateException if the current thread does not hold the lock
   * @throws RedisLockException if Redis could not be reached to release the lock and enqueue the
   *     thread (see {@link #await()})
   * @throws IllegalStateException if the factory is closed while the thread waits
   */
  @Override
  public void awaitUninterruptibly() {
    try {
      newWait(Mode.UNINTERRUPTIBLE, 0).run();
    } catch (InterruptedException e) {
      throw new AssertionError("an uninterruptible await does not throw InterruptedException", e);
    }
  }

  /**
   * Causes the current thread to wait until it is signalled or interrupted, or the specified
   * waiting time elapses. As {@link #await()}; when the time elapses first, the thread leaves the
   * queue in Redis, re-acquires the lock, and the method returns a value less than or equal to
   * zero. A signal that raced the timeout is not lost: if it reached Redis first, it is the
   * thread's, and the method returns as signalled.
   *
   * <p>In this implementation the deadline is taken from the factory's clock ({@link
   * System#nanoTime()}) once. A time less than or equal to zero still releases the lock and
   * re-acquires it, as {@code ReentrantLock}'s conditions do.
   *
   * @param nanosTimeout the maximum time to wait, in nanoseconds
   * @return an estimate of {@code nanosTimeout} minus the time spent waiting upon return from this
   *     method (re-acquiring the lock included); a value less than or equal to zero if the time
   *     elapsed
   * @throws InterruptedException if the current thread is interrupted before it is signalled
   * @throws IllegalMonitorStateException if the current thread does not hold the lock
   * @throws RedisLockException if Redis could not be reached to release the lock and enqueue the
   *     thread (see {@link #await()})
   * @throws IllegalStateException if the factory is closed while the thread waits
   */
  @Override
  public long awaitNanos(long nanosTimeout) throws InterruptedException {
    if (Thread.interrupted()) {
      throw new InterruptedException();
    }
    long nanos = Math.min(Math.max(nanosTimeout, 0), MAX_TIMEOUT_NANOS);
    long deadline = conditions.ticker.read() + nanos;
    newWait(Mode.TIMED, deadline).run();
    long remaining = deadline - conditions.ticker.read();
    return remaining <= nanosTimeout ? remaining : Long.MIN_VALUE;
  }

  /**
   * Causes the current thread to wait until it is signalled or interrupted, or the specified
   * waiting time elapses. As {@link #awaitNanos}.
   *
   * @param time the maximum time to wait
   * @param unit the time unit of the {@code time} argument
   * @return {@code false} if the waiting time detectably elapsed before a signal, else {@code true}
   * @throws InterruptedException if the current thread is interrupted before it is signalled
   * @throws NullPointerException if the time unit is null
   * @throws IllegalMonitorStateException if the current thread does not hold the lock
   * @throws RedisLockException if Redis could not be reached to release the lock and enqueue the
   *     thread (see {@link #await()})
   * @throws IllegalStateException if the factory is closed while the thread waits
   */
  @Override
  public boolean await(long time, TimeUnit unit) throws InterruptedException {
    Objects.requireNonNull(unit, "unit");
    if (Thread.interrupted()) {
      throw new InterruptedException();
    }
    return timed(unit.toNanos(time));
  }

  /**
   * Causes the current thread to wait until it is signalled or interrupted, or the specified
   * deadline elapses. As {@link #awaitNanos}; the deadline, a wall-clock time, is turned into a
   * waiting time once, on entry.
   *
   * @param deadline the absolute time to wait until
   * @return {@code false} if the deadline has elapsed upon return, else {@code true}
   * @throws InterruptedException if the current thread is interrupted before it is signalled
   * @throws NullPointerException if the deadline is null
   * @throws IllegalMonitorStateException if the current thread does not hold the lock
   * @throws RedisLockException if Redis could not be reached to release the lock and enqueue the
   *     thread (see {@link #await()})
   * @throws IllegalStateException if the factory is closed while the thread waits
   */
  @Override
  @SuppressWarnings("JavaUtilDate") // Condition's own signature
  public boolean awaitUntil(Date deadline) throws InterruptedException {
    long millis = Objects.requireNonNull(deadline, "deadline").getTime();
    if (Thread.interrupted()) {
      throw new InterruptedException();
    }
    long now = System.currentTimeMillis();
    long left = millis <= now ? 0 : millis - now;
    return timed(left > MAX_TIMEOUT_NANOS / 1_000_000 ? MAX_TIMEOUT_NANOS : left * 1_000_000);
  }

  private boolean timed(long nanosTimeout) throws InterruptedException {
    long nanos = Math.min(Math.max(nanosTimeout, 0), MAX_TIMEOUT_NANOS);
    return newWait(Mode.TIMED, conditions.ticker.read() + nanos).run();
  }

  private ConditionWait newWait(Mode mode, long deadline) {
    return new ConditionWait(
        conditions, lock, keys, description, () -> beforeAwait.accept(lock), mode, deadline);
  }

  /**
   * Wakes up the thread, of any process, that has waited longest on this condition, if any.
   *
   * <p>The signal is recorded in Redis in one script, with the check that the lock key still holds
   * the current thread's hold: so it is never lost, and an awaiter whose process died is skipped
   * (its entry's lease ran out), and a signal given to an awaiter that died before it re-acquired
   * the lock passes on to the next awaiter when the dead awaiter's lease runs out. The woken thread
   * re-acquires the lock once the current thread releases it.
   *
   * <p>In this implementation, while no thread of this factory awaits the condition, the signal
   * costs no Redis call: it is recorded by the script that releases the hold (its last {@code
   * unlock()}, or the release of an {@code await} on another condition, which records it first), so
   * that the awaiter it wakes finds the lock free; on a lock that is not fair, when no other client
   * waits for the lock, that script hands the lock to the awaiter, which then returns without
   * another Redis call. The awaiter is the one that has waited longest when the signal is recorded;
   * no awaiter can join meanwhile, since joining needs the lock. If the hold is found lost then,
   * {@code unlock()} throws {@link LockLostException} and nobody is signalled. While a thread of
   * this factory awaits the condition, the signal is recorded at once (one call), so that a local
   * awaiter it wakes takes the lock from this thread without a round trip. A transient failure is
   * retried once: a signal whose reply was lost may then wake a second awaiter (a spurious wake-up
   * is allowed by the contract), where not retrying could lose it.
   *
   * @throws IllegalMonitorStateException if the current thread does not hold the lock ({@link
   *     LockLostException} if its hold was lost: also when Redis finds the lock key gone or taken,
   *     which is reported to the factory's {@code onLockLost} listener, and gives up the hold)
   * @throws RedisLockException if Redis could not be reached for a signal recorded at once: the
   *     signal may or may not have been recorded
   */
  @Override
  public void signal() {
    signal(false);
  }

  /**
   * Wakes up every thread, of every process, waiting on this condition. As {@link #signal()}: one
   * script, with the holder check, signals every awaiter queued in Redis when it runs (with the
   * release, or at once).
   *
   * @throws IllegalMonitorStateException if the current thread does not hold the lock ({@link
   *     LockLostException} if its hold was lost)
   * @throws RedisLockException if Redis could not be reached: the signal may or may not have been
   *     recorded
   */
  @Override
  public void signalAll() {
    signal(true);
  }

  private void signal(boolean all) {
    Hold hold = conditions.family.heldHold(lock);
    conditions.queue.checkAccess(lock.keys); // NOPERM: thrown at the signal, not at the release
    conditions.signal(hold, description, keys, all);
  }

  /**
   * Returns a string identifying this condition: its number or name, and its lock's name.
   *
   * @return a string identifying this condition
   */
  @Override
  public String toString() {
    return super.toString() + "[" + description + "]";
  }
}
