package io.github.redislock.internal.engine;

import io.github.redislock.internal.Hold;
import io.github.redislock.internal.LockName;
import io.github.redislock.internal.Mode;
import io.github.redislock.internal.Mutexes;
import io.github.redislock.internal.ObjectHolds;
import io.github.redislock.internal.Shares;
import io.github.redislock.internal.condition.LockConditions;
import io.github.redislock.internal.condition.RedisCondition;
import io.github.redislock.internal.kind.WriteKind;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The read-write locks of a factory ({@code RedisLockFactory.getReadWriteLock}): the write locks, a
 * family of mutually exclusive locks ({@link Mutexes}, of a {@link WriteKind}), and the read locks,
 * its shared mode ({@link Shares}); and the rules between the two in one thread: a writer may take
 * the read lock (a downgrade: its share is taken whoever waits), and a reader may not take the
 * write lock (an upgrade would wait for its own share to go: it is refused at once).
 *
 * <p>Everything here is keyed by lock name; {@code RedisReadWriteLock} forwards to it with the
 * calling thread.
 */
public final class ReadWriteFamily {
  private final Mutexes writes;
  private final LockConditions writeConditions;
  private final Shares reads;
  private final ObjectHolds readHandles;

  ReadWriteFamily(
      Mutexes writes, LockConditions writeConditions, Shares reads, ObjectHolds readHandles) {
    this.writes = writes;
    this.readHandles = readHandles;
    this.writeConditions = writeConditions;
    this.reads = reads;
  }

  /** The name {@code name} of these locks, with its keys (the key prefix applied). */
  public LockName lockName(String name) {
    return writes.lockName(name);
  }

  // ---- the write lock ----

  public void lockWrite(LockName name) {
    refuseUpgrade(name);
    writes.lock(name);
  }

  public void lockWriteInterruptibly(LockName name) throws InterruptedException {
    refuseUpgrade(name);
    writes.lockInterruptibly(name);
  }

  public boolean tryLockWrite(LockName name) {
    refuseUpgrade(name);
    return writes.tryLock(name);
  }

  public boolean tryLockWrite(LockName name, long timeoutNanos) throws InterruptedException {
    refuseUpgrade(name);
    return writes.tryLock(name, timeoutNanos);
  }

  public void unlockWrite(LockName name) {
    writes.unlock(name);
  }

  public boolean isWriteLockedByCurrentThread(LockName name) {
    return writes.isHeldByCurrentThread(name);
  }

  public int getWriteHoldCount(LockName name) {
    return writes.getHoldCount(name);
  }

  public boolean isWriteLocked(LockName name) {
    return writes.isLocked(name);
  }

  public long getFencingToken(LockName name) {
    return writes.getFencingToken(name);
  }

  /**
   * A condition of the write lock of {@code name}, numbered or named as {@link
   * LockConditions#newCondition(LockName, String, boolean)} says. An await by a thread that also
   * holds the read lock is refused (see {@link #refuseAwaitWhileReading}).
   */
  public RedisCondition newWriteCondition(LockName name, String condition, boolean numbered) {
    return writeConditions.newCondition(name, condition, numbered, this::refuseAwaitWhileReading);
  }

  /** A thread that reads (and does not write) the name may not take the write lock. */
  private void refuseUpgrade(LockName name) {
    if (reads.isRecorded(name) && !writes.isHeldByCurrentThread(name)) {
      throw new IllegalMonitorStateException(
          "the current thread holds the read lock of '"
              + name
              + "': taking the write lock would deadlock (it waits until every read share is"
              + " gone, its own included); release the read lock first");
    }
  }

  /**
   * A thread that holds the write lock and the read lock may not await a condition of the write
   * lock. Read holds are held apart from the write lock ({@code ReentrantReadWriteLock} documents
   * them as not affected by an await), so its read share would stay: no other thread could take the
   * write lock to signal it, and taking the write lock again after the await would wait for its own
   * share, an upgrade. It is refused at once, as an upgrade is, with nothing released.
   */
  private void refuseAwaitWhileReading(LockName name) {
    if (reads.isRecorded(name)) {
      throw new IllegalMonitorStateException(
          "the current thread holds the read lock of '"
              + name
              + "' as well as the write lock: awaiting a condition of the write lock would"
              + " deadlock (no other thread could take the write lock to signal it, and taking it"
              + " again would wait for the thread's own read share); release the read lock first");
    }
  }

  // ---- the read lock ----

  public void lockRead(LockName name) {
    try {
      reads.acquire(name, Mode.UNINTERRUPTIBLE, 0, false, writes.currentHold(name));
    } catch (InterruptedException e) {
      throw new AssertionError("lock() does not throw InterruptedException", e);
    }
  }

  public void lockReadInterruptibly(LockName name) throws InterruptedException {
    reads.acquire(name, Mode.INTERRUPTIBLE, 0, false, writes.currentHold(name));
  }

  public boolean tryLockRead(LockName name) {
    try {
      return reads.acquire(name, Mode.ONCE, 0, true, writes.currentHold(name));
    } catch (InterruptedException e) {
      throw new AssertionError("tryLock() does not throw InterruptedException", e);
    }
  }

  public boolean tryLockRead(LockName name, long timeoutNanos) throws InterruptedException {
    if (timeoutNanos <= 0) {
      if (Thread.interrupted()) {
        throw new InterruptedException();
      }
      return reads.acquire(name, Mode.ONCE, 0, false, writes.currentHold(name));
    }
    return reads.acquire(name, Mode.TIMED, timeoutNanos, false, writes.currentHold(name));
  }

  public void unlockRead(LockName name) {
    reads.unlock(name);
  }

  public int getReadHoldCount(LockName name) {
    return reads.holdCount(name);
  }

  public int getReadLockCount(LockName name) {
    return reads.readers(name);
  }

  // ---- leases given per call, and handles ----

  public void lockRead(LockName name, long leaseNanos) {
    try {
      reads.acquire(name, Mode.UNINTERRUPTIBLE, 0, false, writes.currentHold(name), leaseNanos);
    } catch (InterruptedException e) {
      throw new AssertionError("lock() does not throw InterruptedException", e);
    }
  }

  public boolean tryLockRead(LockName name, long timeoutNanos, long leaseNanos)
      throws InterruptedException {
    Hold writeHold = writes.currentHold(name);
    if (timeoutNanos <= 0) {
      if (Thread.interrupted()) {
        throw new InterruptedException();
      }
      return reads.acquire(name, Mode.ONCE, 0, false, writeHold, leaseNanos);
    }
    return reads.acquire(name, Mode.TIMED, timeoutNanos, false, writeHold, leaseNanos);
  }

  public void lockWrite(LockName name, long leaseNanos) {
    writes.lock(name, leaseNanos);
  }

  public boolean tryLockWrite(LockName name, long timeoutNanos, long leaseNanos)
      throws InterruptedException {
    return writes.tryLock(name, timeoutNanos, leaseNanos);
  }

  public ObjectHolds readHandles() {
    return readHandles;
  }

  public ObjectHolds writeHandles() {
    return writes.handles();
  }

  // ---- the engine's walks ----

  /** Every hold of these locks, write and read: what the renewer renews. */
  void forEachHold(Consumer<Hold> action) {
    writes.forEachHold(action); // the shares are on the same names
    readHandles.forEachHold(action);
  }

  /** Wakes the writers queued locally once the factory is closed. */
  void wakeQueuedAfterClose() {
    readHandles.close();
    writes.wakeQueuedAfterClose();
    writeConditions.close();
  }

  /**
   * Adds the names some thread of this JVM holds the read or write lock of, or waits to write, to
   * {@code names}.
   */
  void namesInUse(Set<String> names) {
    writes.namesInUse(names); // the readers' shares are on the same names
    readHandles.namesInUse(names);
  }

  /** Awaits on the write locks' conditions woken without a signal they could see. */
  long spuriousWakeUps() {
    return writeConditions.spuriousWakeUps();
  }
}
