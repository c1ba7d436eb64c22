/*
 * Ported from ReentrantLockTest of the JSR-166 TCK, which carries this notice:
 *
 * Written by Doug Lea with assistance from members of JCP JSR-166
 * Expert Group and released to the public domain, as explained at
 * http://creativecommons.org/publicdomain/zero/1.0/
 * Other contributors include Andrew Wright, Jeffrey Hayes,
 * Pat Fisher, Mike Judd.
 */
package io.github.redislock.tck;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import org.junit.jupiter.api.Test;

/**
 * The JSR-166 TCK's {@code ReentrantLockTest}, ported to run on any lock a {@link LockMaker} makes:
 * the JDK's {@link java.util.concurrent.locks.ReentrantLock} (the control, which must pass), and
 * the library's plain ({@code getLock}) and fair ({@code getFairLock}) locks, on one factory and on
 * two. Each test and its {@code _fair} twin keep the TCK's names and bodies; the threads a test
 * starts use the lock's {@link Both#theirs() other side}, the test's own thread {@link Both#mine()
 * its side}.
 *
 * <p>What the port changes, and why (docs/compatibility.md lists the same):
 *
 * <ul>
 *   <li>Assertions on {@code getOwner()}, {@code isFair()}, {@code hasQueuedThread(t)}, {@code
 *       hasWaiters(c)} and {@code getWaitQueueLength(c)} are left out of the tests that keep the
 *       rest: the library has none of those queries (an owner or a queued thread may live in
 *       another process). Where the TCK called {@code assertHasWaiters} to be sure that a thread
 *       awaits, the port takes and releases the lock as that call did, which proves the same: the
 *       awaiting thread held the lock before the test's thread could take it.
 *   <li>{@code waitForQueuedThread} waits until the thread is parked (see {@link
 *       Jsr166Case#waitForQueuedThread}).
 *   <li>{@code testSignalWakesFifo} checks FIFO order by what the threads do (after one signal the
 *       longest awaiter returns and the other still awaits) instead of by queue queries.
 * </ul>
 *
 * <p>Dropped, each for the query it tests, which the library does not have: {@code
 * testHasQueuedThreads}, {@code testGetQueueLength}, {@code testHasQueuedThreadNPE}, {@code
 * testHasQueuedThread}, {@code testGetQueuedThreads}, {@code testHasWaitersNPE}, {@code
 * testGetWaitQueueLengthNPE}, {@code testGetWaitingThreadsNPE}, {@code testHasWaitersIAE}, {@code
 * testHasWaitersIMSE}, {@code testGetWaitQueueLengthIAE}, {@code testGetWaitQueueLengthIMSE},
 * {@code testGetWaitingThreadsIAE}, {@code testGetWaitingThreadsIMSE}, {@code testHasWaiters},
 * {@code testGetWaitQueueLength}, {@code testGetWaitingThreads} (and their {@code _fair} twins);
 * {@code testSerialization} (a {@code RedisDistributedLock} is not {@code Serializable}: it belongs
 * to a factory and its connections); {@code testToString} ({@code toString()} tells whether the
 * current thread holds the lock, not "Locked by" an owner that may be in another process).
 */
abstract class ReentrantLockPort extends Jsr166Case {

  // ---- the TCK's helpers ----

  /** The lock of this test, plain or fair. */
  Both<ReentrantLockView> newLock(boolean fair) {
    return maker().lock(name(), fair);
  }

  /** A checked runnable calling lockInterruptibly. */
  final class InterruptibleLockRunnable extends CheckedRunnable {
    final ReentrantLockView lock;

    InterruptibleLockRunnable(ReentrantLockView lock) {
      this.lock = lock;
    }

    @Override
    void realRun() throws InterruptedException {
      lock.lockInterruptibly();
    }
  }

  /** A checked runnable calling lockInterruptibly that expects to be interrupted. */
  final class InterruptedLockRunnable extends CheckedInterruptedRunnable {
    final ReentrantLockView lock;

    InterruptedLockRunnable(ReentrantLockView lock) {
      this.lock = lock;
    }

    @Override
    void realRun() throws InterruptedException {
      lock.lockInterruptibly();
    }
  }

  /** Releases the lock, checking that it had a hold count of 1. */
  static void releaseLock(ReentrantLockView lock) {
    assertLockedByMoi(lock);
    lock.unlock();
    assertFalse(lock.isHeldByCurrentThread());
    assertNotLocked(lock);
  }

  /** Checks that lock is not locked. */
  static void assertNotLocked(ReentrantLockView lock) {
    assertFalse(lock.isLocked());
    assertFalse(lock.isHeldByCurrentThread());
    assertEquals(0, lock.getHoldCount());
  }

  /** Checks that lock is locked by the current thread. */
  static void assertLockedByMoi(ReentrantLockView lock) {
    assertTrue(lock.isLocked());
    assertTrue(lock.isHeldByCurrentThread());
    assertTrue(lock.getHoldCount() > 0);
  }

  /** Takes and releases the lock: whoever held it has released it (or awaits). */
  static void passThrough(ReentrantLockView lock) {
    lock.lock();
    lock.unlock();
  }

  enum AwaitMethod {
    await,
    awaitTimed,
    awaitNanos,
    awaitUntil
  }

  /** Awaits condition "indefinitely" using the specified AwaitMethod. */
  static void await(Condition c, AwaitMethod awaitMethod) throws InterruptedException {
    long timeoutMillis = 2 * LONG_DELAY_MS;
    switch (awaitMethod) {
      case await -> c.await();
      case awaitTimed -> assertTrue(c.await(timeoutMillis, MILLISECONDS));
      case awaitNanos -> {
        long timeoutNanos = MILLISECONDS.toNanos(timeoutMillis);
        long nanosRemaining = c.awaitNanos(timeoutNanos);
        assertTrue(nanosRemaining > timeoutNanos / 2);
        assertTrue(nanosRemaining <= timeoutNanos);
      }
      case awaitUntil -> assertTrue(c.awaitUntil(delayedDate(timeoutMillis)));
    }
  }

  // ---- the tests ----

  /** Constructor sets given fairness, and is in unlocked state (fairness: not a query here). */
  @Test
  void testConstructor() {
    assertNotLocked(newLock(false).mine());
    assertNotLocked(newLock(true).mine());
  }

  /** locking an unlocked lock succeeds */
  @Test
  void testLock() {
    testLock(false);
  }

  @Test
  void testLock_fair() {
    testLock(true);
  }

  void testLock(boolean fair) {
    ReentrantLockView lock = newLock(fair).mine();
    lock.lock();
    assertLockedByMoi(lock);
    releaseLock(lock);
  }

  /** Unlocking an unlocked lock throws IllegalMonitorStateException */
  @Test
  void testUnlock_IMSE() {
    testUnlock_IMSE(false);
  }

  @Test
  void testUnlock_IMSE_fair() {
    testUnlock_IMSE(true);
  }

  void testUnlock_IMSE(boolean fair) {
    ReentrantLockView lock = newLock(fair).mine();
    assertThrows(IllegalMonitorStateException.class, lock::unlock);
  }

  /** tryLock on an unlocked lock succeeds */
  @Test
  void testTryLock() {
    testTryLock(false);
  }

  @Test
  void testTryLock_fair() {
    testTryLock(true);
  }

  void testTryLock(boolean fair) {
    ReentrantLockView lock = newLock(fair).mine();
    assertTrue(lock.tryLock());
    assertLockedByMoi(lock);
    assertTrue(lock.tryLock());
    assertLockedByMoi(lock);
    lock.unlock();
    releaseLock(lock);
  }

  /** timed tryLock is interruptible */
  @Test
  void testTryLock_Interruptible() throws InterruptedException {
    testTryLock_Interruptible(false);
  }

  @Test
  void testTryLock_Interruptible_fair() throws InterruptedException {
    testTryLock_Interruptible(true);
  }

  void testTryLock_Interruptible(boolean fair) throws InterruptedException {
    Both<ReentrantLockView> lock = newLock(fair);
    lock.mine().lock();
    Thread t =
        newStartedThread(
            new CheckedInterruptedRunnable() {
              @Override
              void realRun() throws InterruptedException {
                lock.theirs().tryLock(2 * LONG_DELAY_MS, MILLISECONDS);
              }
            });

    waitForQueuedThread(t);
    t.interrupt();
    awaitTermination(t);
    releaseLock(lock.mine());
  }

  /** tryLock on a locked lock fails */
  @Test
  void testTryLockWhenLocked() throws InterruptedException {
    testTryLockWhenLocked(false);
  }

  @Test
  void testTryLockWhenLocked_fair() throws InterruptedException {
    testTryLockWhenLocked(true);
  }

  void testTryLockWhenLocked(boolean fair) throws InterruptedException {
    Both<ReentrantLockView> lock = newLock(fair);
    lock.mine().lock();
    Thread t =
        newStartedThread(
            new CheckedRunnable() {
              @Override
              void realRun() {
                assertFalse(lock.theirs().tryLock());
              }
            });

    awaitTermination(t);
    releaseLock(lock.mine());
  }

  /** Timed tryLock on a locked lock times out */
  @Test
  void testTryLock_Timeout() throws InterruptedException {
    testTryLock_Timeout(false);
  }

  @Test
  void testTryLock_Timeout_fair() throws InterruptedException {
    testTryLock_Timeout(true);
  }

  void testTryLock_Timeout(boolean fair) throws InterruptedException {
    Both<ReentrantLockView> lock = newLock(fair);
    long timeoutMillis = timeoutMillis();
    lock.mine().lock();
    Thread t =
        newStartedThread(
            new CheckedRunnable() {
              @Override
              void realRun() throws InterruptedException {
                long startTime = System.nanoTime();
                assertFalse(lock.theirs().tryLock(timeoutMillis, MILLISECONDS));
                assertTrue(millisElapsedSince(startTime) >= timeoutMillis);
              }
            });

    awaitTermination(t);
    releaseLock(lock.mine());
  }

  /** getHoldCount returns number of recursive holds */
  @Test
  void testGetHoldCount() {
    testGetHoldCount(false);
  }

  @Test
  void testGetHoldCount_fair() {
    testGetHoldCount(true);
  }

  void testGetHoldCount(boolean fair) {
    ReentrantLockView lock = newLock(fair).mine();
    for (int i = 1; i <= SIZE; i++) {
      lock.lock();
      assertEquals(i, lock.getHoldCount());
    }
    for (int i = SIZE; i > 0; i--) {
      lock.unlock();
      assertEquals(i - 1, lock.getHoldCount());
    }
  }

  /** isLocked is true when locked and false when not */
  @Test
  void testIsLocked() throws Exception {
    testIsLocked(false);
  }

  @Test
  void testIsLocked_fair() throws Exception {
    testIsLocked(true);
  }

  void testIsLocked(boolean fair) throws Exception {
    Both<ReentrantLockView> both = newLock(fair);
    ReentrantLockView lock = both.mine();
    assertFalse(lock.isLocked());
    lock.lock();
    assertTrue(lock.isLocked());
    lock.lock();
    assertTrue(lock.isLocked());
    lock.unlock();
    assertTrue(lock.isLocked());
    lock.unlock();
    assertFalse(lock.isLocked());
    CyclicBarrier barrier = new CyclicBarrier(2);
    Thread t =
        newStartedThread(
            new CheckedRunnable() {
              @Override
              void realRun() throws Exception {
                both.theirs().lock();
                assertTrue(both.theirs().isLocked());
                barrier.await(LONG_DELAY_MS, MILLISECONDS);
                barrier.await(LONG_DELAY_MS, MILLISECONDS);
                both.theirs().unlock();
              }
            });

    barrier.await(LONG_DELAY_MS, MILLISECONDS);
    assertTrue(lock.isLocked());
    barrier.await(LONG_DELAY_MS, MILLISECONDS);
    awaitTermination(t);
    assertFalse(lock.isLocked());
  }

  /** lockInterruptibly succeeds when unlocked, else is interruptible */
  @Test
  void testLockInterruptibly() throws InterruptedException {
    testLockInterruptibly(false);
  }

  @Test
  void testLockInterruptibly_fair() throws InterruptedException {
    testLockInterruptibly(true);
  }

  void testLockInterruptibly(boolean fair) throws InterruptedException {
    Both<ReentrantLockView> lock = newLock(fair);
    lock.mine().lockInterruptibly();
    assertLockedByMoi(lock.mine());
    Thread t = newStartedThread(new InterruptedLockRunnable(lock.theirs()));
    waitForQueuedThread(t);
    t.interrupt();
    assertTrue(lock.mine().isLocked());
    assertTrue(lock.mine().isHeldByCurrentThread());
    awaitTermination(t);
    releaseLock(lock.mine());
  }

  /** Calling await without holding lock throws IllegalMonitorStateException */
  @Test
  void testAwait_IMSE() {
    testAwait_IMSE(false);
  }

  @Test
  void testAwait_IMSE_fair() {
    testAwait_IMSE(true);
  }

  void testAwait_IMSE(boolean fair) {
    ReentrantLockView lock = newLock(fair).mine();
    Condition c = lock.newCondition();
    for (AwaitMethod awaitMethod : AwaitMethod.values()) {
      long startTime = System.nanoTime();
      assertThrows(IllegalMonitorStateException.class, () -> await(c, awaitMethod));
      assertTrue(millisElapsedSince(startTime) < LONG_DELAY_MS);
    }
  }

  /** Calling signal without holding lock throws IllegalMonitorStateException */
  @Test
  void testSignal_IMSE() {
    testSignal_IMSE(false);
  }

  @Test
  void testSignal_IMSE_fair() {
    testSignal_IMSE(true);
  }

  void testSignal_IMSE(boolean fair) {
    ReentrantLockView lock = newLock(fair).mine();
    Condition c = lock.newCondition();
    assertThrows(IllegalMonitorStateException.class, c::signal);
  }

  /** awaitNanos without a signal times out */
  @Test
  void testAwaitNanos_Timeout() throws InterruptedException {
    testAwaitNanos_Timeout(false);
  }

  @Test
  void testAwaitNanos_Timeout_fair() throws InterruptedException {
    testAwaitNanos_Timeout(true);
  }

  void testAwaitNanos_Timeout(boolean fair) throws InterruptedException {
    ReentrantLockView lock = newLock(fair).mine();
    Condition c = lock.newCondition();
    long timeoutMillis = timeoutMillis();
    long timeoutNanos = MILLISECONDS.toNanos(timeoutMillis);
    lock.lock();
    long startTime = System.nanoTime();
    long nanosRemaining = c.awaitNanos(timeoutNanos);
    assertTrue(nanosRemaining <= 0);
    assertTrue(millisElapsedSince(startTime) >= timeoutMillis);
    lock.unlock();
  }

  /** timed await without a signal times out */
  @Test
  void testAwait_Timeout() throws InterruptedException {
    testAwait_Timeout(false);
  }

  @Test
  void testAwait_Timeout_fair() throws InterruptedException {
    testAwait_Timeout(true);
  }

  void testAwait_Timeout(boolean fair) throws InterruptedException {
    ReentrantLockView lock = newLock(fair).mine();
    Condition c = lock.newCondition();
    long timeoutMillis = timeoutMillis();
    lock.lock();
    long startTime = System.nanoTime();
    assertFalse(c.await(timeoutMillis, MILLISECONDS));
    assertTrue(millisElapsedSince(startTime) >= timeoutMillis);
    lock.unlock();
  }

  /** awaitUntil without a signal times out */
  @Test
  void testAwaitUntil_Timeout() throws InterruptedException {
    testAwaitUntil_Timeout(false);
  }

  @Test
  void testAwaitUntil_Timeout_fair() throws InterruptedException {
    testAwaitUntil_Timeout(true);
  }

  void testAwaitUntil_Timeout(boolean fair) throws InterruptedException {
    ReentrantLockView lock = newLock(fair).mine();
    Condition c = lock.newCondition();
    lock.lock();
    // We shouldn't assume that nanoTime and currentTimeMillis
    // use the same time source, so don't use nanoTime here.
    Date delayedDate = delayedDate(timeoutMillis());
    assertFalse(c.awaitUntil(delayedDate));
    assertTrue(new Date().getTime() >= delayedDate.getTime());
    lock.unlock();
  }

  /** await returns when signalled */
  @Test
  void testAwait() throws InterruptedException {
    testAwait(false);
  }

  @Test
  void testAwait_fair() throws InterruptedException {
    testAwait(true);
  }

  void testAwait(boolean fair) throws InterruptedException {
    Both<ReentrantLockView> lock = newLock(fair);
    Both<Condition> c = lock.map(ReentrantLockView::newCondition);
    CountDownLatch locked = new CountDownLatch(1);
    Thread t =
        newStartedThread(
            new CheckedRunnable() {
              @Override
              void realRun() throws InterruptedException {
                lock.theirs().lock();
                locked.countDown();
                c.theirs().await();
                lock.theirs().unlock();
              }
            });

    await(locked);
    lock.mine().lock();
    c.mine().signal();
    assertTrue(t.isAlive());
    lock.mine().unlock();
    awaitTermination(t);
  }

  /** awaitUninterruptibly is uninterruptible */
  @Test
  void testAwaitUninterruptibly() throws InterruptedException {
    testAwaitUninterruptibly(false);
  }

  @Test
  void testAwaitUninterruptibly_fair() throws InterruptedException {
    testAwaitUninterruptibly(true);
  }

  void testAwaitUninterruptibly(boolean fair) throws InterruptedException {
    Both<ReentrantLockView> lock = newLock(fair);
    Both<Condition> condition = lock.map(ReentrantLockView::newCondition);
    CountDownLatch pleaseInterrupt = new CountDownLatch(2);

    Thread t1 =
        newStartedThread(
            new CheckedRunnable() {
              @Override
              void realRun() {
                // Interrupt before awaitUninterruptibly
                lock.theirs().lock();
                pleaseInterrupt.countDown();
                Thread.currentThread().interrupt();
                condition.theirs().awaitUninterruptibly();
                assertTrue(Thread.interrupted());
                lock.theirs().unlock();
              }
            });

    Thread t2 =
        newStartedThread(
            new CheckedRunnable() {
              @Override
              void realRun() {
                // Interrupt during awaitUninterruptibly
                lock.theirs().lock();
                pleaseInterrupt.countDown();
                condition.theirs().awaitUninterruptibly();
                assertTrue(Thread.interrupted());
                lock.theirs().unlock();
              }
            });

    await(pleaseInterrupt);
    t2.interrupt();
    passThrough(lock.mine());
    assertThreadBlocks(t1);
    assertThreadBlocks(t2);

    lock.mine().lock();
    condition.mine().signalAll();
    lock.mine().unlock();

    awaitTermination(t1);
    awaitTermination(t2);
  }

  /** await/awaitNanos/awaitUntil is interruptible */
  @Test
  void testInterruptible_await() throws InterruptedException {
    testInterruptible(false, AwaitMethod.await);
  }

  @Test
  void testInterruptible_await_fair() throws InterruptedException {
    testInterruptible(true, AwaitMethod.await);
  }

  @Test
  void testInterruptible_awaitTimed() throws InterruptedException {
    testInterruptible(false, AwaitMethod.awaitTimed);
  }

  @Test
  void testInterruptible_awaitTimed_fair() throws InterruptedException {
    testInterruptible(true, AwaitMethod.awaitTimed);
  }

  @Test
  void testInterruptible_awaitNanos() throws InterruptedException {
    testInterruptible(false, AwaitMethod.awaitNanos);
  }

  @Test
  void testInterruptible_awaitNanos_fair() throws InterruptedException {
    testInterruptible(true, AwaitMethod.awaitNanos);
  }

  @Test
  void testInterruptible_awaitUntil() throws InterruptedException {
    testInterruptible(false, AwaitMethod.awaitUntil);
  }

  @Test
  void testInterruptible_awaitUntil_fair() throws InterruptedException {
    testInterruptible(true, AwaitMethod.awaitUntil);
  }

  void testInterruptible(boolean fair, AwaitMethod awaitMethod) throws InterruptedException {
    Both<ReentrantLockView> lock = newLock(fair);
    Both<Condition> c = lock.map(ReentrantLockView::newCondition);
    CountDownLatch pleaseInterrupt = new CountDownLatch(1);
    Thread t =
        newStartedThread(
            new CheckedInterruptedRunnable() {
              @Override
              void realRun() throws InterruptedException {
                lock.theirs().lock();
                assertLockedByMoi(lock.theirs());
                pleaseInterrupt.countDown();
                try {
                  await(c.theirs(), awaitMethod);
                } finally {
                  assertLockedByMoi(lock.theirs());
                  lock.theirs().unlock();
                  assertFalse(Thread.interrupted());
                }
              }
            });

    await(pleaseInterrupt);
    passThrough(lock.mine());
    t.interrupt();
    awaitTermination(t);
    assertNotLocked(lock.mine());
  }

  /** signalAll wakes up all threads */
  @Test
  void testSignalAll_await() throws InterruptedException {
    testSignalAll(false, AwaitMethod.await);
  }

  @Test
  void testSignalAll_await_fair() throws InterruptedException {
    testSignalAll(true, AwaitMethod.await);
  }

  @Test
  void testSignalAll_awaitTimed() throws InterruptedException {
    testSignalAll(false, AwaitMethod.awaitTimed);
  }

  @Test
  void testSignalAll_awaitTimed_fair() throws InterruptedException {
    testSignalAll(true, AwaitMethod.awaitTimed);
  }

  @Test
  void testSignalAll_awaitNanos() throws InterruptedException {
    testSignalAll(false, AwaitMethod.awaitNanos);
  }

  @Test
  void testSignalAll_awaitNanos_fair() throws InterruptedException {
    testSignalAll(true, AwaitMethod.awaitNanos);
  }

  @Test
  void testSignalAll_awaitUntil() throws InterruptedException {
    testSignalAll(false, AwaitMethod.awaitUntil);
  }

  @Test
  void testSignalAll_awaitUntil_fair() throws InterruptedException {
    testSignalAll(true, AwaitMethod.awaitUntil);
  }

  void testSignalAll(boolean fair, AwaitMethod awaitMethod) throws InterruptedException {
    Both<ReentrantLockView> lock = newLock(fair);
    Both<Condition> c = lock.map(ReentrantLockView::newCondition);
    CountDownLatch pleaseSignal = new CountDownLatch(2);
    class Awaiter extends CheckedRunnable {
      @Override
      void realRun() throws InterruptedException {
        lock.theirs().lock();
        pleaseSignal.countDown();
        await(c.theirs(), awaitMethod);
        lock.theirs().unlock();
      }
    }

    Thread t1 = newStartedThread(new Awaiter());
    Thread t2 = newStartedThread(new Awaiter());

    await(pleaseSignal);
    lock.mine().lock();
    c.mine().signalAll();
    lock.mine().unlock();
    awaitTermination(t1);
    awaitTermination(t2);
  }

  /**
   * signal wakes up waiting threads in FIFO order. The TCK signals twice while holding the lock and
   * checks the lock's queue after each signal; the port releases the lock after the first signal
   * and checks that the first awaiter, and only it, returned.
   */
  @Test
  void testSignalWakesFifo() throws InterruptedException {
    testSignalWakesFifo(false);
  }

  @Test
  void testSignalWakesFifo_fair() throws InterruptedException {
    testSignalWakesFifo(true);
  }

  void testSignalWakesFifo(boolean fair) throws InterruptedException {
    Both<ReentrantLockView> lock = newLock(fair);
    Both<Condition> c = lock.map(ReentrantLockView::newCondition);
    CountDownLatch locked1 = new CountDownLatch(1);
    CountDownLatch locked2 = new CountDownLatch(1);
    Thread t1 =
        newStartedThread(
            new CheckedRunnable() {
              @Override
              void realRun() throws InterruptedException {
                lock.theirs().lock();
                locked1.countDown();
                c.theirs().await();
                lock.theirs().unlock();
              }
            });

    await(locked1);

    Thread t2 =
        newStartedThread(
            new CheckedRunnable() {
              @Override
              void realRun() throws InterruptedException {
                lock.theirs().lock();
                locked2.countDown();
                c.theirs().await();
                lock.theirs().unlock();
              }
            });

    await(locked2);

    lock.mine().lock();
    c.mine().signal();
    lock.mine().unlock();
    awaitTermination(t1);
    assertTrue(t2.isAlive());
    assertThreadBlocks(t2);
    lock.mine().lock();
    c.mine().signal();
    lock.mine().unlock();
    awaitTermination(t2);
  }

  /** await after multiple reentrant locking preserves lock count */
  @Test
  void testAwaitLockCount() throws InterruptedException {
    testAwaitLockCount(false);
  }

  @Test
  void testAwaitLockCount_fair() throws InterruptedException {
    testAwaitLockCount(true);
  }

  void testAwaitLockCount(boolean fair) throws InterruptedException {
    Both<ReentrantLockView> lock = newLock(fair);
    Both<Condition> c = lock.map(ReentrantLockView::newCondition);
    CountDownLatch pleaseSignal = new CountDownLatch(2);
    Thread t1 =
        newStartedThread(
            new CheckedRunnable() {
              @Override
              void realRun() throws InterruptedException {
                lock.theirs().lock();
                assertLockedByMoi(lock.theirs());
                assertEquals(1, lock.theirs().getHoldCount());
                pleaseSignal.countDown();
                c.theirs().await();
                assertLockedByMoi(lock.theirs());
                assertEquals(1, lock.theirs().getHoldCount());
                lock.theirs().unlock();
              }
            });

    Thread t2 =
        newStartedThread(
            new CheckedRunnable() {
              @Override
              void realRun() throws InterruptedException {
                lock.theirs().lock();
                lock.theirs().lock();
                assertLockedByMoi(lock.theirs());
                assertEquals(2, lock.theirs().getHoldCount());
                pleaseSignal.countDown();
                c.theirs().await();
                assertLockedByMoi(lock.theirs());
                assertEquals(2, lock.theirs().getHoldCount());
                lock.theirs().unlock();
                lock.theirs().unlock();
              }
            });

    await(pleaseSignal);
    lock.mine().lock();
    assertEquals(1, lock.mine().getHoldCount());
    c.mine().signalAll();
    lock.mine().unlock();
    awaitTermination(t1);
    awaitTermination(t2);
  }

  /**
   * Tests scenario for JDK-8187408: AbstractQueuedSynchronizer wait queue corrupted when thread
   * awaits without holding the lock. The TCK's check of the wait queue's length is left out; the
   * waiters must still all wake up.
   */
  @Test
  void testBug8187408() throws InterruptedException {
    long seed = System.nanoTime();
    try {
      testBug8187408(new Random(seed));
    } catch (AssertionError e) {
      throw new AssertionError("seed " + seed + ": " + e.getMessage(), e);
    }
  }

  void testBug8187408(Random rnd) throws InterruptedException {
    AwaitMethod awaitMethod = AwaitMethod.values()[rnd.nextInt(AwaitMethod.values().length)];
    int nThreads = 2 + rnd.nextInt(8);
    Both<ReentrantLockView> lock = newLock(false);
    Both<Condition> cond = lock.map(ReentrantLockView::newCondition);
    CountDownLatch done = new CountDownLatch(nThreads);
    List<Thread> threads = new ArrayList<>();

    threads.add(
        newStartedThread(
            new CheckedRunnable() {
              @Override
              void realRun() throws InterruptedException {
                while (done.getCount() > 0) {
                  // call await without holding lock?!
                  assertThrows(
                      IllegalMonitorStateException.class, () -> await(cond.theirs(), awaitMethod));
                }
              }
            }));

    for (int i = 0; i < nThreads; i++) {
      threads.add(
          newStartedThread(
              new CheckedRunnable() {
                @Override
                void realRun() throws InterruptedException {
                  lock.theirs().lock();
                  try {
                    done.countDown();
                    cond.theirs().await();
                  } finally {
                    lock.theirs().unlock();
                  }
                }
              }));
    }

    assertTrue(done.await(LONG_DELAY_MS, TimeUnit.MILLISECONDS));
    lock.mine().lock();
    try {
      cond.mine().signalAll();
    } finally {
      lock.mine().unlock();
    }
    for (Thread thread : threads) {
      awaitTermination(thread);
    }
  }
}
