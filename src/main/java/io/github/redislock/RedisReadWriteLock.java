package io.github.redislock;

import io.github.redislock.internal.LockName;
import io.github.redislock.internal.engine.ReadWriteFamily;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * A {@link ReadWriteLock} with the behaviour of {@link ReentrantReadWriteLock}, held in Redis, so
 * that its read lock is shared by threads of every process that uses a read-write lock of the same
 * name on the same Redis, and its write lock excludes them all.
 *
 * <pre>{@code
 * ReadWriteLock rw = factory.getReadWriteLock("prices");   // was: new ReentrantReadWriteLock()
 * rw.readLock().lock();
 * try {
 *   // ... any number of readers, in all processes, and no writer
 * } finally {
 *   rw.readLock().unlock();
 * }
 * }</pre>
 *
 * <p>Both locks are reentrant. The write lock is the lock key {@code keyPrefix + name} itself, a
 * string holding the writer's token with a lease, as for {@link RedisDistributedLock}; it is taken
 * only when no read share is live. Each thread that holds the read lock holds one read share in
 * Redis (a member of a sorted set beside the lock key) with a lease of its own; its reentrant holds
 * are counted in the JVM. Only the first acquisition and the last release of a thread reach Redis.
 *
 * <h2>Guarantees and limits</h2>
 *
 * <p><b>Shared reads, exclusive writes.</b> While a thread of any process holds the write lock, no
 * other thread holds either lock; any number of threads, in any number of processes, may hold the
 * read lock together.
 *
 * <p><b>Writers are not starved.</b> A writer that has to wait leaves an intent in Redis, with a
 * lease its waiting renews: readers of every process that arrive while an intent is live wait
 * behind it, and the readers already in finish, so the writer gets its turn. A writer that times
 * out or is interrupted withdraws its intent at once; the intent of a writer whose process died
 * lapses with its lease. Exceptions, as in {@code ReentrantReadWriteLock}: a thread that holds the
 * write lock takes the read lock whoever waits (see downgrading below), and {@link
 * ReadLock#tryLock()} takes it whenever no writer holds the lock. Writers are not ordered among
 * themselves, and a steady stream of writers can keep readers waiting.
 *
 * <p><b>Reentrancy, downgrading, no upgrading.</b> A thread holding the write lock may take the
 * read lock, then release the write lock: it keeps reading, and no writer got in between. A thread
 * holding the read lock (and not the write lock) that asks for the write lock gets an {@link
 * IllegalMonitorStateException} at once. This differs from {@code ReentrantReadWriteLock}, whose
 * {@code writeLock().lock()} hangs forever in that case (the writer waits for every reader to
 * leave, itself included).
 *
 * <p><b>Leases.</b> Every hold has a lease (30 seconds by default) that the factory renews in the
 * background while it is held: the write hold, and each reader's share on its own. A process that
 * dies holding the read lock frees its shares when their leases run out; one holding the write lock
 * frees it likewise. A hold that renewal finds gone, or cannot confirm before its lease runs out,
 * is <em>lost</em>, as for {@link RedisDistributedLock}: the factory's {@code onLockLost} listener
 * is told once, and the holder's next {@code unlock()} or acquisition of that lock throws {@link
 * LockLostException}, once. Process pauses, clock jumps and failovers limit exclusion as they do
 * for {@link RedisDistributedLock} (see its class description).
 *
 * <p><b>Fencing tokens.</b> Each write hold can ask for a {@linkplain WriteLock#getFencingToken()
 * fencing token}, strictly greater than that of every earlier write hold of the name (and of every
 * hold of the plain lock of the name: they share the counter). Read holds have none: a token orders
 * writes.
 *
 * <p><b>Wake-ups.</b> Releasing the write lock wakes every waiting reader and writer together; a
 * reader's release wakes the waiting writers only when it was the last share.
 *
 * <p><b>Conditions.</b> The write lock has {@linkplain WriteLock#newCondition() conditions}, whose
 * awaiters and signals are kept in Redis, as {@code ReentrantReadWriteLock}'s write lock has; an
 * await releases the write lock for the readers and writers of every process. The read lock has
 * none.
 *
 * <p><b>Interoperability.</b> The plain lock of the same name ({@link RedisLockFactory#getLock})
 * and any client that locks the key with {@code SET key value NX PX ttl} exclude readers and
 * writers of this lock while they hold the key; but they do not wait for its readers, which do not
 * hold the key. Lock a resource with one kind of lock only.
 *
 * <p><b>Deployments.</b> One Redis server, a Sentinel-managed master, or a Redis Cluster (every key
 * of a lock sits in the lock key's slot). Not under Redlock: {@link
 * RedisLockFactory#getReadWriteLock} throws {@link UnsupportedOperationException} there.
 *
 * <p>Instances are thread-safe; all instances of one factory for the same name are the same lock.
 * This implementation supports a maximum of 2147483647 recursive acquisitions of each lock by the
 * same thread.
 */
public final class RedisReadWriteLock implements ReadWriteLock {

  /*
   * A thin facade: the engine's read-write family does all the work, keyed by name, for the
   * calling thread. The name's keys are derived at the first call (see RedisDistributedLock).
   */

  private final ReadWriteFamily engine;
  private final String name;
  private final ReadLock readLock;
  private final WriteLock writeLock;
  private LockName lockName;

  /**
   * How many conditions {@link WriteLock#newCondition()} made: the next one is numbered one more.
   */
  private final AtomicInteger conditions = new AtomicInteger();

  RedisReadWriteLock(ReadWriteFamily engine, String name) {
    this.engine = Objects.requireNonNull(engine, "engine");
    this.name = Objects.requireNonNull(name, "name");
    this.readLock = new ReadLock(this);
    this.writeLock = new WriteLock(this);
  }

  private LockName lockName() {
    LockName derived = lockName;
    if (derived == null) {
      derived = engine.lockName(name);
      lockName = derived;
    }
    return derived;
  }

  /**
   * Returns the lock used for reading.
   *
   * @return the lock used for reading
   */
  @Override
  public ReadLock readLock() {
    return readLock;
  }

  /**
   * Returns the lock used for writing.
   *
   * @return the lock used for writing
   */
  @Override
  public WriteLock writeLock() {
    return writeLock;
  }

  /**
   * Returns the name of this lock, as given to {@link RedisLockFactory#getReadWriteLock(String)}.
   *
   * @return the lock's name
   */
  public String getName() {
    return name;
  }

  /**
   * Queries if the write lock is held by any thread in any process, by asking Redis whether the
   * lock key exists. This method is designed for use in monitoring system state, not for
   * synchronization control.
   *
   * @return {@code true} if any thread holds the write lock (or any client holds the lock key)
   * @throws RedisLockException if Redis cannot be reached
   * @throws IllegalStateException if the factory is closed
   */
  public boolean isWriteLocked() {
    return engine.isWriteLocked(lockName());
  }

  /**
   * Queries if the write lock is held by the current thread. Answers from the JVM, without calling
   * Redis: {@code false} once the hold was lost.
   *
   * @return {@code true} if the current thread holds the write lock and {@code false} otherwise
   */
  public boolean isWriteLockedByCurrentThread() {
    return engine.isWriteLockedByCurrentThread(lockName());
  }

  /**
   * Queries the number of reentrant write holds on this lock by the current thread, from the JVM.
   *
   * @return the number of holds on the write lock by the current thread, or zero if the write lock
   *     is not held by the current thread (or its hold was lost)
   */
  public int getWriteHoldCount() {
    return engine.getWriteHoldCount(lockName());
  }

  /**
   * Queries the number of read locks held for this lock, in every process, by asking Redis. This
   * method is designed for use in monitoring system state, not for synchronization control.
   *
   * <p>In this implementation it is the number of threads holding the read lock (each holds one
   * share in Redis, whose lease has not run out): a thread's reentrant holds count once, where
   * {@code ReentrantReadWriteLock} counts each.
   *
   * @return the number of read shares held
   * @throws RedisLockException if Redis cannot be reached
   * @throws IllegalStateException if the factory is closed
   */
  public int getReadLockCount() {
    return engine.getReadLockCount(lockName());
  }

  /**
   * Queries the number of reentrant read holds on this lock by the current thread, from the JVM.
   *
   * @return the number of holds on the read lock by the current thread, or zero if the read lock is
   *     not held by the current thread (or its share was lost)
   */
  public int getReadHoldCount() {
    return engine.getReadHoldCount(lockName());
  }

  /**
   * Returns a string identifying this lock, as seen from the current thread.
   *
   * @return a string identifying this lock, its name and the current thread's holds
   */
  @Override
  public String toString() {
    return super.toString()
        + "[Write holds = "
        + getWriteHoldCount()
        + ", Read holds = "
        + getReadHoldCount()
        + ": "
        + name
        + "]";
  }

  /** The lock returned by {@link RedisReadWriteLock#readLock()}. */
  public static final class ReadLock extends HandleForms {
    private final RedisReadWriteLock lock;

    ReadLock(RedisReadWriteLock lock) {
      this.lock = lock;
    }

    /**
     * Acquires the read lock.
     *
     * <p>Acquires the read lock if the write lock is not held by another thread (in any process)
     * and no writer waits for it, and returns immediately.
     *
     * <p>If the current thread already holds the read lock then its hold count is incremented and
     * the method returns immediately, without calling Redis. If it holds the write lock then the
     * read lock is acquired whoever waits (a downgrade).
     *
     * <p>Otherwise the current thread waits until the write lock is free and no writer waits. If it
     * is interrupted while waiting it keeps waiting; its interrupt status is set again when the
     * method returns.
     *
     * <p>In this implementation the waiting thread subscribes to the lock's wake-up channel and
     * tries again when a writer releases or withdraws, when the holder's lease or the waiting
     * writer's intent runs out, or at a re-check (as {@link RedisDistributedLock#lock()} does).
     * When Redis cannot be reached it keeps retrying with a capped, jittered backoff.
     *
     * @throws LockLostException if the current thread held the read lock and its share was lost,
     *     and it was not told yet
     * @throws RedisLockException if Redis answers with an error that waiting cannot cure, such as a
     *     lock key that is not a string
     * @throws IllegalStateException if the factory is closed
     */
    @Override
    public void lock() {
      lock.engine.lockRead(lock.lockName());
    }

    /**
     * Acquires the read lock unless the current thread is {@linkplain Thread#interrupt
     * interrupted}.
     *
     * <p>Acquires the read lock as {@link #lock()} does. If the current thread has its interrupted
     * status set on entry, or is interrupted while waiting, then {@link InterruptedException} is
     * thrown, the interrupted status is cleared, and no share is left behind in Redis.
     *
     * <p>In this implementation, as this method is an explicit interruption point, preference is
     * given to responding to the interrupt over normal or reentrant acquisition of the lock.
     *
     * @throws InterruptedException if the current thread is interrupted
     * @throws LockLostException if the current thread held the read lock and its share was lost,
     *     and it was not told yet
     * @throws RedisLockException if Redis answers with an error that waiting cannot cure
     * @throws IllegalStateException if the factory is closed
     */
    @Override
    public void lockInterruptibly() throws InterruptedException {
      lock.engine.lockReadInterruptibly(lock.lockName());
    }

    /**
     * Acquires the read lock only if the write lock is not held by another thread at the time of
     * invocation.
     *
     * <p>Makes one attempt, and acquires the read lock if no other thread holds the write lock,
     * whether or not writers are waiting, as {@code ReentrantReadWriteLock.ReadLock.tryLock()}
     * does: this "barging" behaviour can be useful in certain circumstances, even though it breaks
     * writer preference. If the current thread already holds the read lock, the hold count is
     * incremented and the method returns {@code true} without calling Redis.
     *
     * @return {@code true} if the read lock was acquired
     * @throws RedisLockException if Redis cannot be reached or answers with an error: the method
     *     never answers {@code false} when it could not find out
     * @throws LockLostException if the current thread held the read lock and its share was lost,
     *     and it was not told yet
     * @throws IllegalStateException if the factory is closed
     */
    @Override
    public boolean tryLock() {
      return lock.engine.tryLockRead(lock.lockName());
    }

    /**
     * Acquires the read lock if the write lock is not held by another thread and no writer waits,
     * within the given waiting time, and the current thread has not been {@linkplain
     * Thread#interrupt interrupted}.
     *
     * <p>Returns {@code true} when the read lock is acquired (or was already held by the current
     * thread); throws {@link InterruptedException} when the thread is interrupted, leaving no share
     * behind; returns {@code false} when the waiting time elapses. If the time is less than or
     * equal to zero, the method makes one attempt, which honours waiting writers, and does not
     * wait.
     *
     * <p>In this implementation the deadline is taken from {@link System#nanoTime()} once, and a
     * stalled Redis cannot hold the caller past it by more than 25 milliseconds (see {@link
     * RedisDistributedLock#tryLock(long, TimeUnit)}).
     *
     * @param time the maximum time to wait for the read lock
     * @param unit the time unit of the {@code time} argument
     * @return {@code true} if the read lock was acquired
     * @throws InterruptedException if the current thread is interrupted
     * @throws NullPointerException if the time unit is null
     * @throws RedisLockException if Redis could not be reached or answered with an error, and the
     *     lock was not acquired by the deadline
     * @throws LockLostException if the current thread held the read lock and its share was lost,
     *     and it was not told yet
     * @throws IllegalStateException if the factory is closed
     */
    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
      Objects.requireNonNull(unit, "unit");
      return lock.engine.tryLockRead(lock.lockName(), unit.toNanos(time));
    }

    /**
     * Attempts to release this lock.
     *
     * <p>The current thread's read hold count is decremented. If it is now zero, its share is given
     * back in Redis; when it was the last share, waiting writers are woken.
     *
     * @throws IllegalMonitorStateException if the current thread does not hold the read lock
     * @throws LockLostException if its share was lost before this release (and the thread was not
     *     told yet: then it holds the read lock no more, whatever its count)
     * @throws RedisLockException if Redis could not be reached to release the share, or could not
     *     confirm the release; the local hold is cleared all the same, and the share expires with
     *     its lease
     */
    @Override
    public void unlock() {
      lock.engine.unlockRead(lock.lockName());
    }

    /**
     * Runs {@code action} holding the read lock: acquires it as {@link #lock()} does, runs the
     * action, and releases it, whether the action returned or threw; as {@link
     * RedisDistributedLock#runLocked} does for a lock. If the hold is lost while the action runs,
     * the action runs to its end without the lock, and the release throws {@link
     * LockLostException}.
     *
     * @param action the code to run holding the read lock
     * @throws NullPointerException if {@code action} is null
     * @throws LockLostException if the hold was lost before the release
     * @throws RedisLockException if Redis answers with an error that waiting cannot cure, or could
     *     not confirm the release
     * @throws IllegalStateException if the factory is closed
     */
    public void runLocked(Runnable action) {
      Locked.run(this, action);
    }

    /**
     * Calls {@code action} holding the read lock and returns its result, as {@link
     * RedisDistributedLock#callLocked} does for a lock: exceptions pass through unchanged after the
     * release, and a hold lost while the action runs makes the release throw {@link
     * LockLostException}.
     *
     * @param action the code to call holding the read lock
     * @param <T> the type of the action's result
     * @return the action's result
     * @throws NullPointerException if {@code action} is null
     * @throws Exception whatever the action throws
     * @throws LockLostException if the hold was lost before the release
     * @throws RedisLockException if Redis answers with an error that waiting cannot cure, or could
     *     not confirm the release
     * @throws IllegalStateException if the factory is closed
     */
    public <T> T callLocked(Callable<T> action) throws Exception {
      return Locked.call(this, action);
    }

    /**
     * Runs {@code action} holding the read lock if it can be acquired within {@code timeout}, as
     * {@link RedisDistributedLock#tryRunLocked(Duration, Runnable)} does for a lock.
     *
     * @param timeout the maximum time to wait for the read lock
     * @param action the code to run holding it
     * @return {@code true} if the action ran, and {@code false} if the lock stayed busy
     * @throws InterruptedException if the current thread is interrupted while acquiring the lock
     * @throws NullPointerException if {@code timeout} or {@code action} is null
     * @throws LockLostException if the hold was lost before the release
     * @throws RedisLockException if Redis could not be reached or answered with an error and the
     *     lock was not acquired by the deadline, or Redis could not confirm the release
     * @throws IllegalStateException if the factory is closed
     */
    public boolean tryRunLocked(Duration timeout, Runnable action) throws InterruptedException {
      return Locked.tryRun(this, timeout, action, null);
    }

    /**
     * Runs {@code action} holding the read lock if it can be acquired within {@code timeout}, and
     * otherwise runs {@code onBusy} without it, as {@link
     * RedisDistributedLock#tryRunLocked(Duration, Runnable, Runnable)} does for a lock.
     *
     * @param timeout the maximum time to wait for the read lock
     * @param action the code to run holding it
     * @param onBusy the code to run, without the lock, if it stayed busy
     * @return {@code true} if the action ran, and {@code false} if the lock stayed busy
     * @throws InterruptedException if the current thread is interrupted while acquiring the lock
     * @throws NullPointerException if {@code timeout}, {@code action} or {@code onBusy} is null
     * @throws LockLostException if the hold was lost before the release
     * @throws RedisLockException if Redis could not be reached or answered with an error and the
     *     lock was not acquired by the deadline, or Redis could not confirm the release
     * @throws IllegalStateException if the factory is closed
     */
    public boolean tryRunLocked(Duration timeout, Runnable action, Runnable onBusy)
        throws InterruptedException {
      Objects.requireNonNull(onBusy, "onBusy");
      return Locked.tryRun(this, timeout, action, onBusy);
    }

    /**
     * Acquires the read lock as {@link #lock()} does, and returns the hold, which releases it when
     * closed, for try-with-resources; as {@link RedisDistributedLock#acquire()} does for a lock.
     * Its {@link LockHold#fencingToken()} throws {@link UnsupportedOperationException}: read holds
     * have no fencing token.
     *
     * @return the hold, to close
     * @throws LockLostException if a hold of the current thread was lost and it was not told yet
     * @throws RedisLockException if Redis answers with an error that waiting cannot cure
     * @throws IllegalStateException if the factory is closed
     */
    public LockHold acquire() {
      return Locked.acquire(this, Locked::noFencingToken);
    }

    /**
     * Acquires the read lock as {@link #tryLock(long, TimeUnit)} does, waiting at most {@code
     * timeout}, and returns the hold, which releases it when closed; or an empty {@code Optional}
     * if the lock stayed busy. See {@link #acquire()}.
     *
     * @param timeout the maximum time to wait for the read lock
     * @return the hold, or empty if the lock was not acquired within the timeout
     * @throws InterruptedException if the current thread is interrupted
     * @throws NullPointerException if {@code timeout} is null
     * @throws RedisLockException if Redis could not be reached or answered with an error, and the
     *     lock was not acquired by the deadline
     * @throws LockLostException if a hold of the current thread was lost and it was not told yet
     * @throws IllegalStateException if the factory is closed
     */
    public Optional<LockHold> tryAcquire(Duration timeout) throws InterruptedException {
      return Locked.tryAcquire(this, timeout, Locked::noFencingToken);
    }

    /**
     * Throws {@link UnsupportedOperationException} because read locks do not support conditions, as
     * in {@code ReentrantReadWriteLock}.
     *
     * @throws UnsupportedOperationException always
     */
    @Override
    public Condition newCondition() {
      throw new UnsupportedOperationException("read locks have no conditions");
    }

    /**
     * Returns a string identifying this lock, as seen from the current thread.
     *
     * @return a string identifying this lock, its name and the current thread's read holds
     */
    // ---- RedisLock: leases given per call, and holds owned by handles ----

    @Override
    public String getName() {
      return lock.name;
    }

    @Override
    public void lockFor(Duration lease) {
      lock.engine.lockRead(lock.lockName(), HoldForms.lease(lease));
    }

    @Override
    public boolean tryLock(Duration wait, Duration lease) throws InterruptedException {
      long leaseNanos = HoldForms.lease(lease);
      return lock.engine.tryLockRead(lock.lockName(), HoldForms.wait(wait), leaseNanos);
    }

    @Override
    CompletableFuture<Optional<LockHandle>> acquireHandle(long waitNanos, long leaseNanos) {
      return lock.engine.readHandles().acquire(lock.lockName(), waitNanos, leaseNanos);
    }

    @Override
    public String toString() {
      return super.toString()
          + "[Read holds of current thread = "
          + lock.getReadHoldCount()
          + ": "
          + lock.name
          + "]";
    }
  }

  /** The lock returned by {@link RedisReadWriteLock#writeLock()}. */
  public static final class WriteLock extends HandleForms {
    private final RedisReadWriteLock lock;

    WriteLock(RedisReadWriteLock lock) {
      this.lock = lock;
    }

    /**
     * Acquires the write lock.
     *
     * <p>Acquires the write lock if neither the read nor the write lock is held by another thread,
     * in any process, and returns immediately, setting the write hold count to one.
     *
     * <p>If the current thread already holds the write lock then the hold count is incremented by
     * one and the method returns immediately, without calling Redis.
     *
     * <p>If the lock is held by another thread then the current thread waits until the write lock
     * has been acquired. While it waits, its intent holds back readers that arrive later. If it is
     * interrupted while waiting it keeps waiting; its interrupt status is set again on return.
     *
     * <p>In this implementation the first waiting writer of this JVM waits for Redis (the others
     * wait behind it in the JVM), woken by a writer's release or the last reader's, by the end of
     * the holders' leases, or at a re-check, as {@link RedisDistributedLock#lock()} is.
     *
     * @throws IllegalMonitorStateException if the current thread holds the read lock and not the
     *     write lock: an upgrade would deadlock, and is refused at once
     * @throws LockLostException if the current thread held the write lock and its hold was lost,
     *     and it was not told yet
     * @throws RedisLockException if Redis answers with an error that waiting cannot cure
     * @throws IllegalStateException if the factory is closed
     */
    @Override
    public void lock() {
      lock.engine.lockWrite(lock.lockName());
    }

    /**
     * Acquires the write lock unless the current thread is {@linkplain Thread#interrupt
     * interrupted}.
     *
     * <p>Acquires the write lock as {@link #lock()} does. If the current thread has its interrupted
     * status set on entry, or is interrupted while waiting, then {@link InterruptedException} is
     * thrown, the interrupted status is cleared, and neither a lock key nor an intent is left
     * behind.
     *
     * <p>In this implementation, as this method is an explicit interruption point, preference is
     * given to responding to the interrupt over normal or reentrant acquisition of the lock.
     *
     * @throws InterruptedException if the current thread is interrupted
     * @throws IllegalMonitorStateException if the current thread holds the read lock and not the
     *     write lock
     * @throws LockLostException if the current thread held the write lock and its hold was lost,
     *     and it was not told yet
     * @throws RedisLockException if Redis answers with an error that waiting cannot cure
     * @throws IllegalStateException if the factory is closed
     */
    @Override
    public void lockInterruptibly() throws InterruptedException {
      lock.engine.lockWriteInterruptibly(lock.lockName());
    }

    /**
     * Acquires the write lock only if it is not held by another thread at the time of invocation.
     *
     * <p>Makes one attempt: acquires the write lock if neither lock is held by another thread,
     * whoever waits, and returns {@code true}. If the current thread already holds the write lock
     * then the hold count is incremented and the method returns {@code true} without calling Redis.
     * Otherwise it returns {@code false} at once, and leaves no intent behind.
     *
     * @return {@code true} if the write lock was free and was acquired by the current thread, or
     *     was already held by it; and {@code false} otherwise
     * @throws IllegalMonitorStateException if the current thread holds the read lock and not the
     *     write lock
     * @throws RedisLockException if Redis cannot be reached or answers with an error
     * @throws LockLostException if the current thread held the write lock and its hold was lost,
     *     and it was not told yet
     * @throws IllegalStateException if the factory is closed
     */
    @Override
    public boolean tryLock() {
      return lock.engine.tryLockWrite(lock.lockName());
    }

    /**
     * Acquires the write lock if it is not held by another thread within the given waiting time and
     * the current thread has not been {@linkplain Thread#interrupt interrupted}.
     *
     * <p>Returns {@code true} when the write lock is acquired (or was already held by the current
     * thread); throws {@link InterruptedException} when the thread is interrupted; returns {@code
     * false} when the waiting time elapses. Either way no lock key or intent is left behind. If the
     * time is less than or equal to zero, the method makes one attempt and does not wait.
     *
     * <p>In this implementation the deadline is taken from {@link System#nanoTime()} once, and a
     * stalled Redis cannot hold the caller past it by more than 25 milliseconds, but for the
     * withdrawal of the writer's intent: a writer that gives up takes its intent out of Redis
     * before it returns (one more round trip, bounded by the client's connect and command
     * timeouts), so that no reader waits behind a writer that has gone.
     *
     * @param time the maximum time to wait for the write lock
     * @param unit the time unit of the {@code time} argument
     * @return {@code true} if the write lock was acquired
     * @throws InterruptedException if the current thread is interrupted
     * @throws NullPointerException if the time unit is null
     * @throws IllegalMonitorStateException if the current thread holds the read lock and not the
     *     write lock
     * @throws RedisLockException if Redis could not be reached or answered with an error, and the
     *     lock was not acquired by the deadline
     * @throws LockLostException if the current thread held the write lock and its hold was lost,
     *     and it was not told yet
     * @throws IllegalStateException if the factory is closed
     */
    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
      Objects.requireNonNull(unit, "unit");
      return lock.engine.tryLockWrite(lock.lockName(), unit.toNanos(time));
    }

    /**
     * Attempts to release this lock.
     *
     * <p>If the current thread is the holder of this lock then the hold count is decremented. If
     * the hold count is now zero then the lock is released: its key is deleted from Redis if it
     * still holds this hold's token, and every waiting reader and writer is woken.
     *
     * @throws IllegalMonitorStateException if the current thread does not hold this lock
     * @throws LockLostException if the hold was lost before this release (and the thread was not
     *     told yet: then it holds the lock no more, whatever its count)
     * @throws RedisLockException if Redis could not be reached to release the key, or could not
     *     confirm the release; the local hold is cleared all the same, and the key expires with its
     *     lease
     */
    @Override
    public void unlock() {
      lock.engine.unlockWrite(lock.lockName());
    }

    /**
     * Runs {@code action} holding the write lock: acquires it as {@link #lock()} does, runs the
     * action, and releases it, whether the action returned or threw; as {@link
     * RedisDistributedLock#runLocked} does for a lock. If the hold is lost while the action runs,
     * the action runs to its end without the lock, and the release throws {@link
     * LockLostException}.
     *
     * @param action the code to run holding the write lock
     * @throws NullPointerException if {@code action} is null
     * @throws LockLostException if the hold was lost before the release
     * @throws RedisLockException if Redis answers with an error that waiting cannot cure, or could
     *     not confirm the release
     * @throws IllegalStateException if the factory is closed
     */
    public void runLocked(Runnable action) {
      Locked.run(this, action);
    }

    /**
     * Calls {@code action} holding the write lock and returns its result, as {@link
     * RedisDistributedLock#callLocked} does for a lock: exceptions pass through unchanged after the
     * release, and a hold lost while the action runs makes the release throw {@link
     * LockLostException}.
     *
     * @param action the code to call holding the write lock
     * @param <T> the type of the action's result
     * @return the action's result
     * @throws NullPointerException if {@code action} is null
     * @throws Exception whatever the action throws
     * @throws LockLostException if the hold was lost before the release
     * @throws RedisLockException if Redis answers with an error that waiting cannot cure, or could
     *     not confirm the release
     * @throws IllegalStateException if the factory is closed
     */
    public <T> T callLocked(Callable<T> action) throws Exception {
      return Locked.call(this, action);
    }

    /**
     * Runs {@code action} holding the write lock if it can be acquired within {@code timeout}, as
     * {@link RedisDistributedLock#tryRunLocked(Duration, Runnable)} does for a lock.
     *
     * @param timeout the maximum time to wait for the write lock
     * @param action the code to run holding it
     * @return {@code true} if the action ran, and {@code false} if the lock stayed busy
     * @throws InterruptedException if the current thread is interrupted while acquiring the lock
     * @throws NullPointerException if {@code timeout} or {@code action} is null
     * @throws LockLostException if the hold was lost before the release
     * @throws RedisLockException if Redis could not be reached or answered with an error and the
     *     lock was not acquired by the deadline, or Redis could not confirm the release
     * @throws IllegalStateException if the factory is closed
     */
    public boolean tryRunLocked(Duration timeout, Runnable action) throws InterruptedException {
      return Locked.tryRun(this, timeout, action, null);
    }

    /**
     * Runs {@code action} holding the write lock if it can be acquired within {@code timeout}, and
     * otherwise runs {@code onBusy} without it, as {@link
     * RedisDistributedLock#tryRunLocked(Duration, Runnable, Runnable)} does for a lock.
     *
     * @param timeout the maximum time to wait for the write lock
     * @param action the code to run holding it
     * @param onBusy the code to run, without the lock, if it stayed busy
     * @return {@code true} if the action ran, and {@code false} if the lock stayed busy
     * @throws InterruptedException if the current thread is interrupted while acquiring the lock
     * @throws NullPointerException if {@code timeout}, {@code action} or {@code onBusy} is null
     * @throws LockLostException if the hold was lost before the release
     * @throws RedisLockException if Redis could not be reached or answered with an error and the
     *     lock was not acquired by the deadline, or Redis could not confirm the release
     * @throws IllegalStateException if the factory is closed
     */
    public boolean tryRunLocked(Duration timeout, Runnable action, Runnable onBusy)
        throws InterruptedException {
      Objects.requireNonNull(onBusy, "onBusy");
      return Locked.tryRun(this, timeout, action, onBusy);
    }

    /**
     * Acquires the write lock as {@link #lock()} does, and returns the hold, which releases it when
     * closed, for try-with-resources; as {@link RedisDistributedLock#acquire()} does for a lock.
     * Its {@link LockHold#fencingToken()} is the write lock's {@link #getFencingToken()}.
     *
     * @return the hold, to close
     * @throws LockLostException if a hold of the current thread was lost and it was not told yet
     * @throws RedisLockException if Redis answers with an error that waiting cannot cure
     * @throws IllegalStateException if the factory is closed
     */
    public LockHold acquire() {
      return Locked.acquire(this, this::getFencingToken);
    }

    /**
     * Acquires the write lock as {@link #tryLock(long, TimeUnit)} does, waiting at most {@code
     * timeout}, and returns the hold, which releases it when closed; or an empty {@code Optional}
     * if the lock stayed busy. See {@link #acquire()}.
     *
     * @param timeout the maximum time to wait for the write lock
     * @return the hold, or empty if the lock was not acquired within the timeout
     * @throws InterruptedException if the current thread is interrupted
     * @throws NullPointerException if {@code timeout} is null
     * @throws RedisLockException if Redis could not be reached or answered with an error, and the
     *     lock was not acquired by the deadline
     * @throws LockLostException if a hold of the current thread was lost and it was not told yet
     * @throws IllegalStateException if the factory is closed
     */
    public Optional<LockHold> tryAcquire(Duration timeout) throws InterruptedException {
      return Locked.tryAcquire(this, timeout, this::getFencingToken);
    }

    /**
     * Returns a new {@link Condition} of this write lock: the next in this lock object's numbering.
     * The n-th call on a {@code RedisReadWriteLock} object returns condition n of the lock's name
     * in every process, so that the same code in every process gets conditions that match up across
     * processes; {@link #newCondition(String)} names one instead.
     *
     * <p>The condition behaves as the condition of a {@code ReentrantReadWriteLock}'s write lock,
     * across processes, with the same guarantees as {@link RedisDistributedLock#newCondition()}:
     *
     * <ul>
     *   <li>If this write lock is not held by the current thread when any of the condition's
     *       waiting or signalling methods is called, then an {@link IllegalMonitorStateException}
     *       is thrown; also when the thread holds only the read lock.
     *   <li>When the condition waiting methods are called the write lock is released, every write
     *       hold of the current thread at once, in Redis and in this JVM, and, before they return,
     *       the write lock is re-acquired (uninterruptibly, as {@link #lock()} does, its intent
     *       holding back readers that arrive meanwhile) and the write hold count restored to what
     *       it was when the method was called. For the thread the re-acquired hold is a new hold:
     *       when asked for, a fencing token greater than any earlier one.
     *   <li>While the current thread waits, the lock is free for readers and writers of every
     *       process, as after {@link #unlock()}.
     *   <li>If a thread is interrupted while waiting, before it was signalled, then the wait ends,
     *       an {@link InterruptedException} is thrown once the write lock is held again, and the
     *       thread's interrupted status is cleared; interrupted after it was signalled, it returns
     *       normally with its interrupted status set.
     *   <li>Waiting threads are signalled in FIFO order, across processes; a signal is recorded in
     *       Redis atomically with the check that the signaller holds the write lock, so it is never
     *       lost.
     *   <li>The ordering of lock reacquisition for threads returning from waiting methods is the
     *       same as for threads initially acquiring the write lock.
     * </ul>
     *
     * <p>A thread that holds the read lock as well as the write lock may signal, but not await:
     * every waiting method throws {@link IllegalMonitorStateException} at once, and nothing is
     * released. {@code ReentrantReadWriteLock} documents its read holds as not affected by an
     * await, and such an await as essentially always an error: no other thread can take the write
     * lock to signal it. Here its read share would also keep the thread itself from taking the
     * write lock again (an upgrade), so the await is refused, as an upgrade is.
     *
     * <p>In this implementation a condition of the write lock works as one of a plain lock (see
     * {@link RedisDistributedLock#newCondition()}): its awaiters queue in Redis beside the lock
     * key, each with an entry its thread renews, and a signal given while no thread of this factory
     * awaits the condition travels with the release that ends the signaller's write hold. That
     * release is the write lock's own: it wakes the waiting readers and writers of every process.
     * When no other process waits for the lock, it hands the write lock to the awaiter it woke
     * instead, so the awaiter returns without another Redis call; never while a read share is live
     * (the signaller's own, after a downgrade). The write lock of a name and the plain lock of that
     * name are one lock key, so their conditions of one number or name are the same condition.
     * Conditions are not available under Redlock, where read-write locks are not either.
     *
     * @return a new condition of this write lock
     */
    @Override
    public Condition newCondition() {
      return lock.engine.newWriteCondition(
          lock.lockName(), Integer.toString(lock.conditions.incrementAndGet()), true);
    }

    /**
     * Returns the condition of this write lock named {@code name}: the same condition in every
     * process and for every lock object of this name, with the behaviour described at {@link
     * #newCondition()}. Named and numbered conditions never coincide.
     *
     * @param name the condition's name, any string
     * @return the condition
     * @throws NullPointerException if the name is null
     * @throws IllegalArgumentException if the name has a lone surrogate (it is not Unicode text)
     */
    public Condition newCondition(String name) {
      Objects.requireNonNull(name, "name");
      return lock.engine.newWriteCondition(lock.lockName(), name, false);
    }

    /**
     * Returns the fencing token of the current thread's write hold: strictly greater than the token
     * of every earlier write hold of this lock name (and of every hold of the plain lock of the
     * name), in every process, also after its counter key expired or was evicted. Pass it with
     * every write to the resource the lock protects, and have the resource reject writes with a
     * lower token than it has seen.
     *
     * <p>In this implementation a holder's token is issued at its first call, which costs one Redis
     * call; once any write lock of the factory was asked for a token, later acquisitions issue
     * theirs in the script that takes the lock, and the first call answers from the JVM.
     *
     * @return the current write hold's fencing token
     * @throws IllegalMonitorStateException if the current thread does not hold the write lock
     * @throws LockLostException if the current thread's write hold was lost
     * @throws RedisLockException if Redis could not be reached to issue the token
     */
    public long getFencingToken() {
      return lock.engine.getFencingToken(lock.lockName());
    }

    /**
     * Queries if the write lock is held by the current thread; same as {@link
     * RedisReadWriteLock#isWriteLockedByCurrentThread}.
     *
     * @return {@code true} if the current thread holds this lock and {@code false} otherwise
     */
    public boolean isHeldByCurrentThread() {
      return lock.isWriteLockedByCurrentThread();
    }

    /**
     * Queries the number of holds on this write lock by the current thread; same as {@link
     * RedisReadWriteLock#getWriteHoldCount}.
     *
     * @return the number of holds on this lock by the current thread, or zero if it does not hold
     *     this lock
     */
    public int getHoldCount() {
      return lock.getWriteHoldCount();
    }

    /**
     * Returns a string identifying this lock, as seen from the current thread.
     *
     * @return a string identifying this lock, its name and whether the current thread holds it
     */
    // ---- RedisLock: leases given per call, and holds owned by handles ----

    @Override
    public String getName() {
      return lock.name;
    }

    @Override
    public void lockFor(Duration lease) {
      lock.engine.lockWrite(lock.lockName(), HoldForms.lease(lease));
    }

    @Override
    public boolean tryLock(Duration wait, Duration lease) throws InterruptedException {
      long leaseNanos = HoldForms.lease(lease);
      return lock.engine.tryLockWrite(lock.lockName(), HoldForms.wait(wait), leaseNanos);
    }

    @Override
    CompletableFuture<Optional<LockHandle>> acquireHandle(long waitNanos, long leaseNanos) {
      return lock.engine.writeHandles().acquire(lock.lockName(), waitNanos, leaseNanos);
    }

    @Override
    public String toString() {
      return super.toString()
          + (isHeldByCurrentThread() ? "[Locked by current thread: " : "[Unlocked: ")
          + lock.name
          + "]";
    }
  }
}
