package io.github.redislock;

import io.github.redislock.internal.LockName;
import io.github.redislock.internal.Mutexes;
import io.github.redislock.internal.condition.LockConditions;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A reentrant mutual exclusion {@link Lock} with the behaviour of {@link ReentrantLock}, whose
 * ownership is held in Redis, so that it excludes threads of every process that uses a lock of the
 * same name on the same Redis.
 *
 * <p>A lock is owned by the thread that last acquired it and has not yet released it. The first
 * acquisition by a thread sets the lock key with a fresh random token ({@code SET key token NX PX
 * lease}); further acquisitions by the same thread only count up, in the JVM, as do inner releases;
 * the last {@link #unlock()} deletes the key if it still holds the token (an atomic
 * compare-and-delete script) and wakes waiters. {@link #getHoldCount()}, {@link
 * #isHeldByCurrentThread()} and {@link #getQueueLength()} answer from the JVM without calling
 * Redis.
 *
 * <pre>{@code
 * Lock lock = factory.getLock("orders");   // was: new ReentrantLock()
 * lock.lock();
 * try {
 *   // ... at most one thread in all processes at a time
 * } finally {
 *   lock.unlock();
 * }
 * }</pre>
 *
 * <h2>Guarantees and limits</h2>
 *
 * <p><b>Leases.</b> A hold has a lease (30 seconds by default) that the factory renews in the
 * background, about every third of the lease, for as long as the lock is held. A process that dies
 * without unlocking holds the lock at most until its lease runs out. If renewal finds the key gone
 * or held by someone else, or cannot reach Redis until the lease runs out, the hold is
 * <em>lost</em>: the factory's {@code onLockLost} listener is told once, the hold is given up in
 * the JVM too ({@link #isHeldByCurrentThread()} turns {@code false}, and another thread may take
 * the lock without waiting for the former owner's {@code unlock()}), and the former owner's next
 * {@link #unlock()} or acquisition throws {@link LockLostException}, once.
 *
 * <p><b>Process pauses and clock jumps.</b> Mutual exclusion holds only while the holder's lease is
 * valid. A holder that stops for longer than its lease (a long GC pause, a frozen VM, a swapped-out
 * process) may resume believing it holds a lock that another process acquired in the meantime;
 * likewise if the Redis server's clock jumps forward and expires the key early. Renewal narrows
 * this window but cannot close it: nothing running in the paused process can act.
 *
 * <p><b>Failover.</b> Redis replicates asynchronously. If a master fails over (Sentinel, Cluster)
 * before the lock key reached its replica, the new master does not know the lock and another
 * process may acquire it; the first holder learns at its next renewal that its hold was lost.
 *
 * <p><b>Fencing tokens.</b> Each hold can ask for a {@linkplain #getFencingToken() fencing token},
 * strictly greater than every earlier hold's token of the same name, across processes. Passing it
 * with every write to the protected resource, and having the resource reject a token lower than one
 * it has seen, makes the writes of a holder whose lease expired harmless: this is what makes the
 * lock safe under pauses, clock jumps and failovers, not only efficient.
 *
 * <p><b>Redlock.</b> A factory built with {@code redlock(...)} holds a lock when a majority of N
 * independent masters granted it, asked in parallel, within a validity of the lease minus the time
 * the acquisition took and a clock drift allowance (1% of the lease + 2 ms). It survives the loss
 * of a minority of masters, which one master does not. Its safety still rests on timing
 * assumptions: process pauses, network delays and clock drift well below the lease, and masters
 * that do not forget keys on restart (persistence, or a restart delayed beyond the longest lease).
 * The token of a Redlock hold is the maximum of its majority's tokens, made binding at the first
 * {@link #getFencingToken()} on a majority of masters that still hold the key for this hold.
 *
 * <p><b>Redis failures.</b> {@link #tryLock()} returns {@code false} only when another owner holds
 * the lock; when Redis cannot be reached or answers with an error it throws {@link
 * RedisLockException}. {@link #lock()} keeps retrying through outages, with a capped, jittered
 * backoff.
 *
 * <p><b>Interoperability.</b> The lock key is {@code keyPrefix + name}, a string holding the
 * owner's token; any client that locks the same key with {@code SET key value NX PX ttl} and
 * releases it with a compare-and-delete script is excluded by this lock, and excludes it.
 *
 * <p>Instances are thread-safe and cheap; all instances of one factory for the same name are the
 * same lock. This implementation supports a maximum of 2147483647 recursive acquisitions by the
 * same thread.
 */
public class RedisDistributedLock extends HandleForms {

  /*
   * A thin facade: the engine does all the work, keyed by name, for the calling thread.
   */

  private final Mutexes engine;
  private final LockConditions lockConditions;
  private final String name;

  /*
   * The name with its Redis keys, derived at the first call rather than by the constructor, so
   * that a lock object nobody uses stays small. Immutable (final fields), so a thread that sees
   * another's racy write sees it whole; at worst two threads derive it once each.
   */
  private LockName lockName;

  /**
   * How many conditions {@link #newCondition()} made: the next one is numbered one more. A field
   * with an updater rather than an {@code AtomicInteger}, which would add an object to every lock
   * object, most of which never make a condition.
   */
  @SuppressWarnings("UnusedVariable") // read and written through CONDITIONS
  private volatile int conditions;

  private static final AtomicIntegerFieldUpdater<RedisDistributedLock> CONDITIONS =
      AtomicIntegerFieldUpdater.newUpdater(RedisDistributedLock.class, "conditions");

  /** This lock object's maximum hold time, or {@code null} for the factory's. */
  private final Duration maxHoldTime;

  RedisDistributedLock(Mutexes engine, LockConditions lockConditions, String name) {
    this(engine, lockConditions, name, null);
  }

  private RedisDistributedLock(
      Mutexes engine, LockConditions lockConditions, String name, Duration maxHoldTime) {
    this.engine = Objects.requireNonNull(engine, "engine");
    this.lockConditions = Objects.requireNonNull(lockConditions, "lockConditions");
    this.name = Objects.requireNonNull(name, "name");
    this.maxHoldTime = maxHoldTime;
  }

  private LockName lockName() {
    LockName derived = lockName;
    if (derived == null) {
      derived = engine.lockName(name);
      if (maxHoldTime != null) {
        derived = derived.withMaxHoldTime(maxHoldTime);
      }
      lockName = derived;
    }
    return derived;
  }

  /**
   * Acquires the lock.
   *
   * <p>Acquires the lock if it is not held by another thread, here or in another process, and
   * returns immediately, setting the hold count to one.
   *
   * <p>If the current thread already holds the lock then the hold count is incremented by one and
   * the method returns immediately, without calling Redis.
   *
   * <p>If the lock is held by another thread then the current thread waits until the lock has been
   * acquired, at which time the hold count is set to one. Threads of this JVM wait in a local
   * queue; the first of them waits for Redis, woken by the holder's release or, for a holder that
   * does not announce its release, by the end of its lease or a periodic re-check.
   *
   * <p>If the current thread is interrupted while waiting it keeps waiting; its interrupt status is
   * set again when the method returns.
   *
   * <p>In this implementation the first waiting thread of this JVM subscribes to the lock's wake-up
   * channel, and tries again when the holder's release is announced there, when the holder's lease
   * runs out, or at a jittered re-check: about 1.5 seconds apart when the holder is an instance of
   * this library (it announces its release) and the subscription is confirmed, about 100
   * milliseconds apart otherwise (a holder of another client never announces it). A channel stays
   * subscribed 200 milliseconds after its last waiter left, for the next one. On a Redis Cluster of
   * version 7 or later the channel is a shard channel, on the master of the lock's slot. A
   * subscription's connection that has been quiet for 2 seconds is sent a repeated subscription to
   * one of its channels, and is replaced when the next 2 seconds bring no answer either. After a
   * release that other processes waited for, this JVM's next attempt gives them the next turn: it
   * waits, subscribed, until one of them releases or for ten round trips of a busy attempt, kept
   * within 5 to 20 milliseconds. When Redis cannot be reached the method keeps retrying with a
   * capped, jittered exponential backoff (from 10 milliseconds up to one second between attempts),
   * logging a warning at most every 10 seconds, until it acquires the lock. A lock key that never
   * expires (a string another client set without a TTL) is a holder like any other: the method
   * waits, re-checking about every 100 milliseconds, until someone deletes the key, and logs one
   * warning per wait that names the key; a timed {@code tryLock} returns {@code false} at its
   * deadline.
   *
   * @throws LockLostException if the current thread held the lock and its hold was lost, and it was
   *     not told yet (see {@link LockLostException})
   * @throws RedisLockException if Redis answers with an error that waiting cannot cure, such as a
   *     lock key that is not a string
   * @throws IllegalStateException if the factory is closed
   */
  @Override
  public void lock() {
    engine.lock(lockName());
  }

  /**
   * Acquires the lock unless the current thread is {@linkplain Thread#interrupt interrupted}.
   *
   * <p>Acquires the lock if it is not held by another thread and returns immediately, setting the
   * hold count to one. If the current thread already holds the lock then the hold count is
   * incremented by one and the method returns immediately.
   *
   * <p>If the lock is held by another thread then the current thread waits until either the lock is
   * acquired by the current thread, or some other thread interrupts the current thread.
   *
   * <p>If the current thread has its interrupted status set on entry to this method, or is
   * interrupted while waiting, then {@link InterruptedException} is thrown, the interrupted status
   * is cleared, and no lock key is left behind in Redis.
   *
   * <p>In this implementation, as this method is an explicit interruption point, preference is
   * given to responding to the interrupt over normal or reentrant acquisition of the lock. An
   * interrupt that arrives during a Redis call is acted on when the call returns. When Redis cannot
   * be reached the method keeps retrying, as {@link #lock()} does, until interrupted.
   *
   * @throws InterruptedException if the current thread is interrupted
   * @throws LockLostException if the current thread held the lock and its hold was lost, and it was
   *     not told yet (see {@link LockLostException})
   * @throws RedisLockException if Redis answers with an error that waiting cannot cure
   * @throws IllegalStateException if the factory is closed
   */
  @Override
  public void lockInterruptibly() throws InterruptedException {
    engine.lockInterruptibly(lockName());
  }

  /**
   * Acquires the lock only if it is not held by another thread at the time of invocation.
   *
   * <p>Makes one attempt: acquires the lock if it is free and returns {@code true}, setting the
   * hold count to one. If the current thread already holds the lock then the hold count is
   * incremented by one and the method returns {@code true} without calling Redis.
   *
   * <p>If the lock is held by another thread, in this JVM or elsewhere, or another thread of this
   * JVM is already acquiring it, this method returns {@code false} at once.
   *
   * @return {@code true} if the lock was free and was acquired by the current thread, or the lock
   *     was already held by the current thread; and {@code false} otherwise
   * @throws RedisLockException if Redis cannot be reached or answers with an error: the method
   *     never answers {@code false} when it could not find out
   * @throws LockLostException if the current thread held the lock and its hold was lost, and it was
   *     not told yet (see {@link LockLostException})
   * @throws IllegalStateException if the factory is closed
   */
  @Override
  public boolean tryLock() {
    return engine.tryLock(lockName());
  }

  /**
   * Acquires the lock if it is not held by another thread within the given waiting time and the
   * current thread has not been {@linkplain Thread#interrupt interrupted}.
   *
   * <p>Acquires the lock if it is free and returns {@code true}, setting the hold count to one. If
   * the current thread already holds the lock then the hold count is incremented by one and the
   * method returns {@code true}.
   *
   * <p>If the lock is held by another thread then the current thread waits until the lock is
   * acquired (the method returns {@code true}), the current thread is interrupted ({@link
   * InterruptedException} is thrown, the interrupted status cleared, and no lock key is left
   * behind), or the waiting time elapses (the method returns {@code false}). If the time is less
   * than or equal to zero, the method makes one attempt and does not wait.
   *
   * <p>In this implementation the deadline is taken from {@link System#nanoTime()} once. A Redis
   * call that could outlast the deadline runs on a helper thread, so that a stalled Redis cannot
   * hold the caller past the deadline by more than 25 milliseconds; an attempt abandoned at the
   * deadline is released if it turns out to have acquired. Transient Redis failures are retried
   * while time remains. One exception to the 25 milliseconds: a waiter of a fair lock that gives up
   * takes its place out of the queue in Redis before it returns (one more round trip, bounded by
   * the client's connect and command timeouts), so that no release hands the lock to a thread that
   * has returned.
   *
   * @param time the maximum time to wait for the lock
   * @param unit the time unit of the {@code time} argument
   * @return {@code true} if the lock was free and was acquired by the current thread, or the lock
   *     was already held by the current thread; and {@code false} if the waiting time elapsed while
   *     another owner held the lock
   * @throws InterruptedException if the current thread is interrupted
   * @throws NullPointerException if the time unit is null
   * @throws RedisLockException if Redis could not be reached or answered with an error, and the
   *     lock was not acquired by the deadline
   * @throws LockLostException if the current thread held the lock and its hold was lost, and it was
   *     not told yet (see {@link LockLostException})
   * @throws IllegalStateException if the factory is closed
   */
  @Override
  public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
    Objects.requireNonNull(unit, "unit");
    return engine.tryLock(lockName(), unit.toNanos(time));
  }

  /**
   * Attempts to release this lock.
   *
   * <p>If the current thread is the holder of this lock then the hold count is decremented. If the
   * hold count is now zero then the lock is released: its key is deleted from Redis if it still
   * holds this hold's token, and waiters are woken. Inner releases do not call Redis.
   *
   * <p>If the current thread holds the lock but the hold was lost (see the class description), the
   * local hold is cleared, whatever its count, and {@link LockLostException} is thrown.
   *
   * <p>In this implementation, when other threads of this JVM are waiting for the lock, the hold
   * may pass to one of them without a release in Redis (a local handoff): at most 16 holders in a
   * row and 20 milliseconds after the lock was taken in Redis. When other processes waited at the
   * release that follows, this JVM gives them the next turn, so that processes alternate rather
   * than one starving (see {@link #lock()}). The release is sent once, on a connection borrowed
   * from the client's pool for the key's node (so never resent by the client's own retries), and a
   * transient failure is retried once. When the retry finds the key gone or taken: if the first
   * attempt certainly did not run (no connection, or refused with an error such as {@code READONLY}
   * from a master demoted in a failover), the hold was lost and {@link LockLostException} is
   * thrown; if it was sent and its reply lost, it may have released the key: when the retry asked
   * the same server and the lease, less 1% for clock drift, has not run out, the key cannot have
   * expired, so the release counts as a success; otherwise it is unconfirmed ({@link
   * RedisLockException}). An interrupted thread releases too: the interrupt flag is cleared during
   * the release's Redis calls (each bounded by the client's timeouts) and set again.
   *
   * <p>Signals the thread gave on this lock's conditions while no thread of this factory awaited
   * them (see {@link #newCondition()}) are recorded by the release that ends the hold, in the same
   * script and with the same check of the token: that release is never a local handoff, and when
   * the hold is found lost, {@link LockLostException} is thrown and nobody is signalled. On a lock
   * that is not fair, when that release wakes an awaiter with {@code signal()} and no other client
   * waits for the lock, it hands the lock to that awaiter instead of freeing it: when {@code
   * unlock()} returns, the lock may be held by the awaiter already.
   *
   * @throws IllegalMonitorStateException if the current thread does not hold this lock
   * @throws LockLostException if the hold was lost before this release (and the thread was not told
   *     yet: then it holds the lock no more, whatever its count)
   * @throws RedisLockException if Redis could not be reached to release the key, or could not
   *     confirm the release (under Redlock: fewer than a majority of masters confirmed it); the
   *     local hold is cleared all the same, and the key expires with its lease
   */
  @Override
  public void unlock() {
    engine.unlock(lockName());
  }

  /**
   * Runs {@code action} holding this lock: acquires the lock as {@link #lock()} does, runs the
   * action, and releases the lock as {@link #unlock()} does, whether the action returned or threw.
   *
   * <pre>{@code
   * lock.runLocked(() -> inventory.reserve(seat));
   * }</pre>
   *
   * <p>If the action throws, its exception passes through unchanged, after the lock was released;
   * an exception of the release is then added to it as {@linkplain Throwable#getSuppressed()
   * suppressed}.
   *
   * <p>If the hold is lost while the action runs (its lease ran out before renewal could extend it,
   * or its key was deleted or taken; see the class description), the action is not stopped: it runs
   * to its end without mutual exclusion, and another owner may hold the lock meanwhile. The loss is
   * reported when the action ends, by the {@link LockLostException} the release throws (or
   * suppressed by the action's own exception). Pass a {@linkplain #acquire() hold's} fencing token
   * to the protected resource to make such late writes harmless.
   *
   * <p>If the current thread already holds the lock, the action runs as a reentrant acquisition:
   * the hold count goes up by one for the action and down again after it.
   *
   * @param action the code to run holding the lock
   * @throws NullPointerException if {@code action} is null
   * @throws LockLostException if the hold was lost before the release (see above), or a hold of the
   *     current thread was lost earlier and it was not told yet (then the action does not run)
   * @throws RedisLockException if Redis answers with an error that waiting cannot cure (the action
   *     does not run), or could not confirm the release
   * @throws IllegalStateException if the factory is closed
   */
  public void runLocked(Runnable action) {
    Locked.run(this, action);
  }

  /**
   * Calls {@code action} holding this lock and returns its result: acquires the lock as {@link
   * #lock()} does, calls the action, and releases the lock as {@link #unlock()} does, whether the
   * action returned or threw.
   *
   * <p>If the action throws, its exception, checked or not, passes through unchanged after the lock
   * was released; an exception of the release is then added to it as {@linkplain
   * Throwable#getSuppressed() suppressed}. If the hold is lost while the action runs, the action
   * runs to its end without mutual exclusion, and the release throws {@link LockLostException}: the
   * result is then not returned (see {@link #runLocked}).
   *
   * @param action the code to call holding the lock
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
   * Runs {@code action} holding this lock if the lock can be acquired within {@code timeout}: as
   * {@link #tryLock(long, TimeUnit)} does, then the action, then the release, as {@link #runLocked}
   * does.
   *
   * <p>If the lock is not acquired before the timeout elapses, the action does not run and the
   * method returns {@code false}. A timeout of zero or less makes one attempt.
   *
   * <p>If the hold is lost while the action runs, the action runs to its end without mutual
   * exclusion, and the release throws {@link LockLostException} (see {@link #runLocked}).
   *
   * @param timeout the maximum time to wait for the lock
   * @param action the code to run holding the lock
   * @return {@code true} if the action ran, and {@code false} if the lock stayed busy
   * @throws InterruptedException if the current thread is interrupted while acquiring the lock (the
   *     action does not run)
   * @throws NullPointerException if {@code timeout} or {@code action} is null
   * @throws LockLostException if the hold was lost before the release
   * @throws RedisLockException if Redis could not be reached or answered with an error and the lock
   *     was not acquired by the deadline, or Redis could not confirm the release
   * @throws IllegalStateException if the factory is closed
   */
  public boolean tryRunLocked(Duration timeout, Runnable action) throws InterruptedException {
    return Locked.tryRun(this, timeout, action, null);
  }

  /**
   * Runs {@code action} holding this lock if the lock can be acquired within {@code timeout}, and
   * otherwise runs {@code onBusy}, without the lock. As {@link #tryRunLocked(Duration, Runnable)},
   * which this is with a callback for the busy case.
   *
   * @param timeout the maximum time to wait for the lock
   * @param action the code to run holding the lock
   * @param onBusy the code to run, without the lock, if the lock stayed busy
   * @return {@code true} if the action ran, and {@code false} if the lock stayed busy (and {@code
   *     onBusy} ran)
   * @throws InterruptedException if the current thread is interrupted while acquiring the lock
   *     (neither runs)
   * @throws NullPointerException if {@code timeout}, {@code action} or {@code onBusy} is null
   * @throws LockLostException if the hold was lost before the release
   * @throws RedisLockException if Redis could not be reached or answered with an error and the lock
   *     was not acquired by the deadline (neither runs), or Redis could not confirm the release
   * @throws IllegalStateException if the factory is closed
   */
  public boolean tryRunLocked(Duration timeout, Runnable action, Runnable onBusy)
      throws InterruptedException {
    Objects.requireNonNull(onBusy, "onBusy");
    return Locked.tryRun(this, timeout, action, onBusy);
  }

  /**
   * Acquires the lock as {@link #lock()} does, and returns the hold, which releases it when closed:
   * for try-with-resources.
   *
   * <pre>{@code
   * try (LockHold hold = lock.acquire()) {
   *   storage.write(record, hold.fencingToken());
   * }
   * }</pre>
   *
   * <p>The hold belongs to the current thread: closing it from another thread throws {@link
   * IllegalMonitorStateException}, and leaves the lock held. Closing it twice releases it once. If
   * the current thread already holds the lock, the hold is a reentrant acquisition, one count of
   * the lock.
   *
   * <p>If the hold is lost while the block runs (see the class description), the block is not
   * stopped: it runs to its end without mutual exclusion, and closing the hold throws {@link
   * LockLostException} (suppressed by the block's own exception, if it threw one, as
   * try-with-resources does). {@link LockHold#fencingToken()} throws it as soon as the loss is
   * known.
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
   * Acquires the lock as {@link #tryLock(long, TimeUnit)} does, waiting at most {@code timeout},
   * and returns the hold, which releases it when closed; or an empty {@code Optional} if the lock
   * stayed busy. A timeout of zero or less makes one attempt. See {@link #acquire()} for the hold.
   *
   * <pre>{@code
   * Optional<LockHold> maybe = lock.tryAcquire(Duration.ofSeconds(1));
   * if (maybe.isPresent()) {
   *   try (LockHold hold = maybe.get()) {
   *     ...
   *   }
   * }
   * }</pre>
   *
   * @param timeout the maximum time to wait for the lock
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

  // ---- RedisLock: leases given per call, and holds owned by handles ----

  @Override
  public void lockFor(Duration lease) {
    engine.lock(lockName(), HoldForms.lease(lease));
  }

  @Override
  public boolean tryLock(Duration wait, Duration lease) throws InterruptedException {
    long leaseNanos = HoldForms.lease(lease);
    return engine.tryLock(lockName(), HoldForms.wait(wait), leaseNanos);
  }

  @Override
  CompletableFuture<Optional<LockHandle>> acquireHandle(long waitNanos, long leaseNanos) {
    return engine.handles().acquire(lockName(), waitNanos, leaseNanos);
  }

  /**
   * Returns a new {@link Condition} of this lock: the next in this lock object's numbering. The
   * n-th call on a lock object returns condition n of the lock's name, so that the same code in
   * every process (a bounded buffer that creates {@code notFull}, then {@code notEmpty}) gets
   * conditions that match up across processes; {@link #newCondition(String)} names one instead.
   *
   * <p>The condition behaves as a {@code ReentrantLock}'s, across processes:
   *
   * <ul>
   *   <li>A thread must hold the lock to await or signal the condition; else {@link
   *       IllegalMonitorStateException} is thrown.
   *   <li>An {@code await} releases every hold of the calling thread at once, in Redis and in this
   *       JVM, and waits until a thread of any process signals it; then it re-acquires the lock
   *       (uninterruptibly, as {@link #lock()} does) with the hold count it had. For the thread the
   *       re-acquired hold is a new hold, however it came: when asked for, a fencing token greater
   *       than any earlier one (its signaller's included), and a {@linkplain #withMaxHoldTime
   *       maximum hold time} counted from the re-acquisition.
   *   <li>A thread interrupted while waiting, before it was signalled, throws {@link
   *       InterruptedException} after re-acquiring the lock; interrupted after it was signalled, it
   *       returns normally with its interrupted status set. A timed await whose time elapses
   *       returns {@code false} (or a value less than or equal to zero) holding the lock again; a
   *       signal that reached Redis before the timeout is not lost, it ends the await as signalled.
   *   <li>{@code signal()} wakes the thread, of any process, that has waited longest. A signal is
   *       recorded in Redis atomically with the check that the signaller holds the lock, so it is
   *       never lost; an awaiter whose process died is skipped once its entry's lease runs out, and
   *       a signal that went to an awaiter that died before it re-acquired the lock passes on to
   *       the next when its lease runs out.
   *   <li>Waiting threads are woken in the order in which they were signalled, then compete for the
   *       lock as any other acquirer does (or queue in order, on a fair lock).
   * </ul>
   *
   * <p>In this implementation the awaiters of a condition queue in Redis, in keys beside the lock
   * key (in its cluster slot), each with an entry whose lease (the factory's lease time) its thread
   * renews every third of the lease while it waits. The await script enqueues the awaiter and
   * releases the lock in one step; a signal names the awaiter it woke on the condition's Pub/Sub
   * channel, to which each factory keeps one subscription, so the woken thread knows it was
   * signalled without asking Redis (threads of this JVM signalled from this JVM are woken at once).
   * An await costs about three Redis calls (enqueue and release; the re-acquisition, none when the
   * signal's release handed it the lock; and, in the background, the removal of the used signal). A
   * signal costs none while no thread of this factory awaits the condition: it is recorded by the
   * release that ends the signaller's hold, in the same script, so the awaiter it wakes finds the
   * lock free, or, when nobody else waits for it, holds it already (see {@link #unlock()}); while
   * one does, it costs one call, so that the local awaiter can take the lock by local handoff.
   * Spurious wake-ups happen only when an awaiter's entry was lost (its lease ran out while Redis
   * could not be reached or the process was paused; or Redis restarted or failed over): the awaiter
   * cannot tell then whether it missed a signal, and returns. Conditions are not available under
   * Redlock.
   *
   * @return a new condition of this lock
   * @throws UnsupportedOperationException with {@code RedisLockFactory.Builder.redlock}: a single
   *     order of awaiters, and a signal that is never lost, need one linearizable copy, which
   *     independent masters do not give (see <a
   *     href="https://github.com/redislock/redis-lock/blob/main/docs/conditions.md">docs/conditions.md</a>)
   */
  @Override
  public Condition newCondition() {
    return lockConditions.newCondition(
        lockName(), Integer.toString(CONDITIONS.incrementAndGet(this)), true);
  }

  /**
   * Returns the condition of this lock named {@code name}: the same condition in every process and
   * for every lock object of this name, with the behaviour described at {@link #newCondition()}.
   * Named and numbered conditions never coincide.
   *
   * @param name the condition's name, any string
   * @return the condition
   * @throws NullPointerException if the name is null
   * @throws IllegalArgumentException if the name has a lone surrogate (it is not Unicode text)
   * @throws UnsupportedOperationException with {@code RedisLockFactory.Builder.redlock}
   */
  public Condition newCondition(String name) {
    Objects.requireNonNull(name, "name");
    return lockConditions.newCondition(lockName(), name, false);
  }

  /**
   * Returns this lock with its own maximum hold time: a lock object for the same lock (same name,
   * same holds, same reentrancy count: a hold taken through one is held through the other) whose
   * holds are renewed for at most {@code maxHoldTime}, instead of the factory's {@linkplain
   * RedisLockFactory.Builder#maxHoldTime maximum} (none by default).
   *
   * <p>Once a hold taken through the returned object has been held for {@code maxHoldTime} since it
   * was acquired (see below for a hold passed on by another thread), the factory stops renewing it:
   * the lock key expires with its lease, and the hold is then lost, reported to the factory's
   * {@code onLockLost} listener with a reason that starts with "max hold time", and the holder's
   * next {@link #unlock()} throws {@link LockLostException}. So a holder stuck in an endless loop
   * cannot keep the lock forever. The code running under the lock is not stopped (see {@link
   * #runLocked}): a fencing token keeps its late writes out.
   *
   * <p>The maximum applies to the holds acquired through the returned object, each counted from its
   * acquisition; a reentrant acquisition keeps its hold's maximum. A thread that got the hold from
   * another thread of this JVM without a release in Redis (a local handoff, see {@link #unlock()};
   * also when a condition's {@code await} takes its signaller's hold), or from a signal's release
   * that handed it the key, holds a new hold as far as it can tell: the maximum of the lock object
   * it acquired through applies, counted from when it got the hold. A condition's {@code await}
   * re-acquires the lock with a new hold, whose time counts from then.
   *
   * <p>In this implementation the hold lasts between {@code maxHoldTime} and {@code maxHoldTime}
   * plus one lease after its holder got it: the last renewal, made before the maximum was reached,
   * sets a full lease. The loss is reported within a sixth of the lease after the lease ran out. A
   * local handoff happens only within 20 milliseconds of the acquisition in Redis, so the key of a
   * hold passed on that way is renewed at most that much longer.
   *
   * @param maxHoldTime how long a hold may be renewed, positive
   * @return a lock object for this lock, with that maximum hold time
   * @throws NullPointerException if {@code maxHoldTime} is null
   * @throws IllegalArgumentException if {@code maxHoldTime} is zero or negative
   */
  public RedisDistributedLock withMaxHoldTime(Duration maxHoldTime) {
    return new RedisDistributedLock(engine, lockConditions, name, checkMaxHoldTime(maxHoldTime));
  }

  static Duration checkMaxHoldTime(Duration maxHoldTime) {
    Objects.requireNonNull(maxHoldTime, "maxHoldTime");
    if (maxHoldTime.isNegative() || maxHoldTime.isZero()) {
      throw new IllegalArgumentException("maxHoldTime must be positive, got " + maxHoldTime);
    }
    return maxHoldTime;
  }

  /**
   * Returns the name of this lock, as given to {@link RedisLockFactory#getLock(String)}.
   *
   * @return the lock's name
   */
  @Override
  public String getName() {
    return name;
  }

  /**
   * Queries if this lock is held by the current thread. Answers from the JVM, without calling
   * Redis: {@code true} while the current thread holds the lock and its lease, as last confirmed by
   * Redis, has not run out; {@code false} once the hold was lost.
   *
   * @return {@code true} if the current thread holds this lock and {@code false} otherwise
   */
  public boolean isHeldByCurrentThread() {
    return engine.isHeldByCurrentThread(lockName());
  }

  /**
   * Queries the number of holds on this lock by the current thread, from the JVM, without calling
   * Redis.
   *
   * @return the number of holds on this lock by the current thread, or zero if this lock is not
   *     held by the current thread (or its hold was lost)
   */
  public int getHoldCount() {
    return engine.getHoldCount(lockName());
  }

  /**
   * Returns an estimate of the number of threads of this JVM waiting to acquire this lock. The
   * value is only an estimate because the number of threads may change dynamically while this
   * method traverses internal data structures. This method is designed for use in monitoring of the
   * system state, not for synchronization control.
   *
   * <p>In this implementation it answers from the JVM, without calling Redis, and counts the
   * threads in this lock's calls that do not hold it yet: those queued behind another thread of
   * this JVM, and the one that waits for Redis (while a holder in another process keeps the lock),
   * for the lock objects of one kind ({@link RedisLockFactory#getLock} or {@link
   * RedisLockFactory#getFairLock}) of this factory. Threads of other processes are not counted:
   * {@link RedisLockFactory#inspect} tells how many processes wait. Threads awaiting a {@link
   * #newCondition() condition} are not waiting for the lock until they are signalled. Once the
   * factory is closed it does not throw: it counts the threads still on their way out of this
   * lock's calls (closing wakes each with an {@link IllegalStateException}), and soon answers 0.
   *
   * @return the estimated number of threads waiting for this lock
   */
  public int getQueueLength() {
    return engine.getQueueLength(lockName());
  }

  /**
   * Queries whether any threads of this JVM are waiting to acquire this lock. Note that because
   * cancellations may occur at any time, a {@code true} return does not guarantee that any other
   * thread will ever acquire this lock. This method is designed primarily for use in monitoring of
   * the system state.
   *
   * <p>In this implementation it answers from the JVM, without calling Redis: {@code
   * getQueueLength() > 0}.
   *
   * @return {@code true} if there may be other threads of this JVM waiting to acquire the lock
   */
  public boolean hasQueuedThreads() {
    return getQueueLength() > 0;
  }

  /**
   * Queries if this lock is held by any thread in any process, by asking Redis whether the lock key
   * exists. This method is designed for use in monitoring of the system state, not for
   * synchronization control.
   *
   * @return {@code true} if any owner, of this library or another client, holds this lock
   * @throws RedisLockException if Redis cannot be reached
   * @throws IllegalStateException if the factory is closed
   */
  public boolean isLocked() {
    return engine.isLocked(lockName());
  }

  /**
   * Returns the fencing token of the current thread's hold: strictly greater than the token of
   * every earlier hold of this lock name, in every process, also after its counter key expired or
   * was evicted (tokens are issued as {@code max(counter + 1, Redis server time in microseconds)}).
   * Pass it with every write to the resource the lock protects, and have the resource reject writes
   * with a lower token than it has seen.
   *
   * <p>In this implementation a holder's token is issued at its first call, which costs one Redis
   * call (a script checks that the key still holds this hold's token and issues the next token);
   * later calls answer from the JVM. Once any lock of the factory was asked for a token, every
   * later acquisition of the factory issues its token in the same script that takes the lock, and
   * the first call answers from the JVM: programs which use tokens pay no extra round trip, and
   * programs which do not pay nothing for them. A thread that got the lock from another thread of
   * its JVM without a release in Redis (a local handoff, see {@link #unlock()}) always gets its
   * own, greater token at its first call. Under Redlock each of these costs one parallel round
   * more, which raises the fencing counters to the token on the masters whose key still holds this
   * hold's owner token; the token is returned only when a majority of masters did, and otherwise
   * the hold was lost ({@link LockLostException}, reported to the factory's {@code onLockLost}
   * listener).
   *
   * @return the current hold's fencing token
   * @throws IllegalMonitorStateException if the current thread does not hold this lock
   * @throws LockLostException if the current thread's hold was lost
   * @throws RedisLockException if Redis (under Redlock, a majority of masters) could not be reached
   *     to issue the token or make it binding
   */
  public long getFencingToken() {
    return engine.getFencingToken(lockName());
  }

  /**
   * Returns a string identifying this lock and its lock state, from the JVM's view.
   *
   * @return a string identifying this lock, its name and whether the current thread holds it
   */
  @Override
  public String toString() {
    return super.toString()
        + (isHeldByCurrentThread() ? "[Held by current thread: " : "[Not held by current thread: ")
        + name
        + "]";
  }
}
