package io.github.redislock.spring.integration;

import io.github.redislock.LockLostException;
import io.github.redislock.RedisDistributedLock;
import io.github.redislock.RedisLockException;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import org.springframework.integration.support.locks.DistributedLock;

/**
 * The lock a {@link RedisLockFactoryLockRegistry} hands out for a key: Spring Integration's {@link
 * DistributedLock} over a redis-lock {@link RedisDistributedLock}, which does all the locking.
 *
 * <p>It is the {@code RedisDistributedLock} of the factory for the registry's lock name (see {@link
 * RedisLockFactoryLockRegistry#obtain}): reentrant, owned by the acquiring thread, exclusive across
 * threads and processes, held in Redis under a lease that the factory renews in the background
 * until {@link #unlock()}. A hold that is lost (its lease ran out unrenewed, its key was deleted or
 * taken) is reported by the holder's next {@link #unlock()} or acquisition, with {@link
 * LockLostException}. Lock objects of the same name are the same lock, so a hold taken through this
 * object may be released through another of the same name and factory, and the other way round.
 *
 * <p>The forms with a {@code ttl} ({@link #lock(Duration)}, {@link #tryLock(Duration, Duration)})
 * give the hold a time-to-live: see {@link #lock(Duration)}.
 *
 * <p>Instances are thread-safe.
 */
public final class RegistryLock implements DistributedLock {

  /** Acquires the lock through a lock object, the one of the hold's time-to-live. */
  @FunctionalInterface
  private interface Attempt {
    boolean acquire(RedisDistributedLock lock) throws InterruptedException;
  }

  /** A hold taken through this object: its time-to-live, or {@code null} for none. */
  private record Hold(Duration ttl) {}

  private static final Hold UNCAPPED = new Hold(null);

  private static final TimeUnit NANOS = TimeUnit.NANOSECONDS;

  private final String key;
  private final RedisDistributedLock delegate;

  /** Threads in an acquisition call of this object, holding the lock or not yet. */
  private final AtomicInteger acquiring = new AtomicInteger();

  /** The threads holding the lock through this object, with their holds. */
  private final Map<Thread, Hold> holders = new ConcurrentHashMap<>();

  /** {@link System#nanoTime()} of the last use: obtained, acquired or released. */
  private volatile long lastUsedNanos = System.nanoTime();

  RegistryLock(String key, RedisDistributedLock delegate) {
    this.key = key;
    this.delegate = delegate;
  }

  /**
   * Acquires the lock, as {@link RedisDistributedLock#lock()} does: waits uninterruptibly until the
   * current thread holds it (at once if it already does: the hold count goes up). The hold is
   * renewed by the factory until {@link #unlock()}, for as long as the process runs and reaches
   * Redis (and at most the factory's {@code maxHoldTime}, if it has one).
   *
   * @throws LockLostException if the current thread held the lock and its hold was lost, and it was
   *     not told yet
   * @throws RedisLockException if Redis answers with an error that waiting cannot cure, such as a
   *     lock key that is not a string
   * @throws IllegalStateException if the factory is closed
   */
  @Override
  public void lock() {
    acquireUninterruptibly(null);
  }

  /**
   * Acquires the lock, as {@link #lock()} does, with a time-to-live: the hold is renewed for at
   * most {@code ttl} after the current thread got it, then expires in Redis.
   *
   * <p>Spring's {@code RedisLockRegistry} sets the lock key's time-to-live to {@code ttl}, so that
   * the hold ends {@code ttl} after it was taken unless its holder renews it. The factory renews
   * every hold by itself, under a lease of its own ({@code RedisLockFactory.Builder.leaseTime}, one
   * per factory: a hold whose process died stays held at most one lease, whatever {@code ttl}).
   * What this method honours is the end of the hold: the lock object is the delegate's {@link
   * RedisDistributedLock#withMaxHoldTime withMaxHoldTime(ttl)}, so the factory stops renewing the
   * hold once it has been held for {@code ttl}, and its key expires with the lease then running:
   * the hold ends between {@code ttl} and {@code ttl} plus one lease after it was taken. It is then
   * lost, and the holder's {@link #unlock()} throws {@link LockLostException}. Such a hold cannot
   * be extended: {@link RedisLockFactoryLockRegistry#renewLock} refuses it.
   *
   * <p>If the current thread already holds the lock, this is a reentrant acquisition, which keeps
   * the time-to-live of the hold it enters ({@code ttl} does not apply to it).
   *
   * @param ttl how long the hold may be kept, positive
   * @throws NullPointerException if {@code ttl} is null
   * @throws IllegalArgumentException if {@code ttl} is zero or negative
   * @throws LockLostException if the current thread held the lock and its hold was lost, and it was
   *     not told yet
   * @throws RedisLockException if Redis answers with an error that waiting cannot cure
   * @throws IllegalStateException if the factory is closed
   */
  @Override
  public void lock(Duration ttl) {
    acquireUninterruptibly(Objects.requireNonNull(ttl, "ttl"));
  }

  /**
   * Acquires the lock unless the current thread is interrupted, as {@link
   * RedisDistributedLock#lockInterruptibly()} does. The hold is renewed until {@link #unlock()}, as
   * one of {@link #lock()}.
   *
   * @throws InterruptedException if the current thread is interrupted (no lock key is left behind)
   * @throws LockLostException if the current thread held the lock and its hold was lost, and it was
   *     not told yet
   * @throws RedisLockException if Redis answers with an error that waiting cannot cure
   * @throws IllegalStateException if the factory is closed
   */
  @Override
  public void lockInterruptibly() throws InterruptedException {
    acquire(
        null,
        lock -> {
          lock.lockInterruptibly();
          return true;
        });
  }

  /**
   * Acquires the lock if it is free now, as {@link RedisDistributedLock#tryLock()} does: one
   * attempt, {@code true} at once if the current thread already holds it. The hold is renewed until
   * {@link #unlock()}, as one of {@link #lock()}.
   *
   * @return {@code true} if the current thread holds the lock, {@code false} if another owner does
   * @throws RedisLockException if Redis cannot be reached or answers with an error: never {@code
   *     false} for a lock whose state is unknown
   * @throws LockLostException if the current thread held the lock and its hold was lost, and it was
   *     not told yet
   * @throws IllegalStateException if the factory is closed
   */
  @Override
  public boolean tryLock() {
    return acquireUninterruptibly(null, RedisDistributedLock::tryLock);
  }

  /**
   * Acquires the lock if it becomes free within the given time, as {@link
   * RedisDistributedLock#tryLock(long, TimeUnit)} does. The hold is renewed until {@link
   * #unlock()}, as one of {@link #lock()}.
   *
   * @param time the maximum time to wait for the lock
   * @param unit the time unit of {@code time}
   * @return {@code true} if the current thread holds the lock, {@code false} if the time elapsed
   *     while another owner held it
   * @throws InterruptedException if the current thread is interrupted
   * @throws NullPointerException if {@code unit} is null
   * @throws RedisLockException if Redis could not be reached or answered with an error, and the
   *     lock was not acquired by the deadline
   * @throws LockLostException if the current thread held the lock and its hold was lost, and it was
   *     not told yet
   * @throws IllegalStateException if the factory is closed
   */
  @Override
  public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
    Objects.requireNonNull(unit, "unit");
    return acquire(null, lock -> lock.tryLock(time, unit));
  }

  /**
   * Acquires the lock if it becomes free within {@code waitTime}, as {@link #tryLock(long,
   * TimeUnit)} does, with a time-to-live: the hold is renewed for at most {@code ttl}, as one of
   * {@link #lock(Duration)} (see there for what the time-to-live means here).
   *
   * @param waitTime the maximum time to wait for the lock; zero or less makes one attempt
   * @param ttl how long the hold may be kept, positive
   * @return {@code true} if the current thread holds the lock, {@code false} if the time elapsed
   *     while another owner held it
   * @throws InterruptedException if the current thread is interrupted
   * @throws NullPointerException if {@code waitTime} or {@code ttl} is null
   * @throws IllegalArgumentException if {@code ttl} is zero or negative
   * @throws RedisLockException if Redis could not be reached or answered with an error, and the
   *     lock was not acquired by the deadline
   * @throws LockLostException if the current thread held the lock and its hold was lost, and it was
   *     not told yet
   * @throws IllegalStateException if the factory is closed
   */
  @Override
  public boolean tryLock(Duration waitTime, Duration ttl) throws InterruptedException {
    long nanos = saturatedNanos(Objects.requireNonNull(waitTime, "waitTime"));
    return acquire(Objects.requireNonNull(ttl, "ttl"), lock -> lock.tryLock(nanos, NANOS));
  }

  /**
   * Releases one hold of the current thread, as {@link RedisDistributedLock#unlock()} does: the
   * last one deletes the key in Redis (if it still holds this hold's token) and wakes the waiters.
   *
   * @throws IllegalMonitorStateException if the current thread does not hold the lock
   * @throws LockLostException if the hold was lost before this release (the current thread holds
   *     the lock no more, whatever its count): the code it protected ran, at least in part, without
   *     mutual exclusion
   * @throws RedisLockException if Redis could not be reached or could not confirm the release (the
   *     local hold is cleared all the same, and the key expires with its lease)
   */
  @Override
  public void unlock() {
    try {
      delegate.unlock();
    } finally {
      if (!delegate.isHeldByCurrentThread()) {
        holders.remove(Thread.currentThread());
      }
      touch();
    }
  }

  /**
   * Refuses: conditions are numbered per lock object (see {@link
   * RedisDistributedLock#newCondition()}), and a registry may hand out a new object for a key once
   * the old one went unused, which would number them anew. Use a named condition instead, the same
   * in every process: {@code lock.getRedisLock().newCondition("not-empty")}.
   *
   * @return never
   * @throws UnsupportedOperationException always
   */
  @Override
  public Condition newCondition() {
    throw new UnsupportedOperationException(
        "the registry's locks number no conditions; use getRedisLock().newCondition(name)"
            + " for a named condition of lock '"
            + delegate.getName()
            + "'");
  }

  /**
   * Returns the key this lock was obtained for, as given to {@link
   * RedisLockFactoryLockRegistry#obtain}.
   *
   * @return the lock key
   */
  public String getKey() {
    return key;
  }

  /**
   * Returns the redis-lock lock behind this one, for what Spring's interface lacks: {@link
   * RedisDistributedLock#runLocked}, {@link RedisDistributedLock#acquire()}, named conditions,
   * {@link RedisDistributedLock#isLocked()}. It is the same lock: holds taken through either are
   * held through both.
   *
   * @return the lock, whose name is the registry's lock name for the key
   */
  public RedisDistributedLock getRedisLock() {
    return delegate;
  }

  /**
   * Returns the fencing token of the current thread's hold, as {@link
   * RedisDistributedLock#getFencingToken()} does: strictly greater than the token of every earlier
   * hold of the lock, in every process. Pass it with each write to the protected resource, and have
   * the resource reject a token lower than one it has seen, so that the late writes of a holder
   * whose hold was lost are refused.
   *
   * @return the current hold's fencing token
   * @throws IllegalMonitorStateException if the current thread does not hold the lock
   * @throws LockLostException if the current thread's hold was lost
   * @throws RedisLockException if Redis could not be reached to issue the token
   */
  public long getFencingToken() {
    return delegate.getFencingToken();
  }

  /**
   * Queries whether the current thread holds the lock, from the JVM, without calling Redis: {@code
   * false} once its hold was lost.
   *
   * @return {@code true} if the current thread holds the lock
   */
  public boolean isHeldByCurrentThread() {
    return delegate.isHeldByCurrentThread();
  }

  /**
   * Returns the number of holds of the current thread on the lock, from the JVM.
   *
   * @return the hold count, zero if the current thread does not hold the lock
   */
  public int getHoldCount() {
    return delegate.getHoldCount();
  }

  /**
   * Returns a string naming the key and the lock, and whether the current thread holds it.
   *
   * @return a description of this lock
   */
  @Override
  public String toString() {
    return "RegistryLock[key=" + key + ", " + delegate + "]";
  }

  /**
   * Checks that the current thread holds this lock with a hold that the factory renews until its
   * release: what a renewal of Spring's registry would make sure of.
   */
  void checkRenewable(Object lockKey) {
    if (!delegate.isHeldByCurrentThread()) {
      throw new IllegalStateException(
          "Could not renew lock "
              + lockKey
              + ": the current thread does not hold it (it never acquired it, released it, or its"
              + " hold was lost)");
    }
    Hold hold = holders.get(Thread.currentThread());
    if (hold != null && hold.ttl() != null) {
      throw new IllegalStateException(
          "Could not renew lock "
              + lockKey
              + ": it was acquired with a time-to-live of "
              + hold.ttl()
              + ", a maximum hold time that cannot be extended; acquire it without a"
              + " time-to-live to have it renewed until it is released");
    }
    touch();
  }

  /**
   * Whether a thread of this JVM holds the lock through this object or is acquiring it through it.
   */
  boolean inUse() {
    if (acquiring.get() > 0) {
      return true;
    }
    holders.keySet().removeIf(thread -> !thread.isAlive());
    return !holders.isEmpty();
  }

  long lastUsedNanos() {
    return lastUsedNanos;
  }

  void touch() {
    lastUsedNanos = System.nanoTime();
  }

  private static long saturatedNanos(Duration duration) {
    try {
      return duration.toNanos();
    } catch (ArithmeticException tooLong) {
      return duration.isNegative() ? Long.MIN_VALUE : Long.MAX_VALUE;
    }
  }

  private void acquireUninterruptibly(Duration ttl) {
    acquireUninterruptibly(
        ttl,
        lock -> {
          lock.lock();
          return true;
        });
  }

  private boolean acquireUninterruptibly(Duration ttl, Attempt attempt) {
    try {
      return acquire(ttl, attempt);
    } catch (InterruptedException cannotHappen) {
      // lock() and tryLock() never throw it; keep the status if one ever did.
      Thread.currentThread().interrupt();
      throw new IllegalStateException(cannotHappen);
    }
  }

  private boolean acquire(Duration ttl, Attempt attempt) throws InterruptedException {
    RedisDistributedLock through = ttl == null ? delegate : delegate.withMaxHoldTime(ttl);
    Thread current = Thread.currentThread();
    boolean outermost = !delegate.isHeldByCurrentThread();
    acquiring.incrementAndGet();
    try {
      boolean acquired = attempt.acquire(through);
      if (acquired) {
        if (outermost) {
          holders.put(current, ttl == null ? UNCAPPED : new Hold(ttl));
        } else {
          // A reentrant hold keeps its time-to-live; one taken through another object has none
          // this object knows of.
          holders.putIfAbsent(current, UNCAPPED);
        }
      }
      return acquired;
    } finally {
      acquiring.decrementAndGet();
      touch();
    }
  }
}
