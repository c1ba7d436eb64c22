/*
 * Ported from ReentrantReadWriteLockTest of the JSR-166 TCK, which carries this notice:
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
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.Arrays;
import java.util.Date;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.Test;

/**
 * The JSR-166 TCK's {@code ReentrantReadWriteLockTest}, ported to run on any read-write lock a
 * {@link LockMaker} makes: the JDK's {@link java.util.concurrent.locks.ReentrantReadWriteLock} (the
 * control, which must pass), and the library's {@code getReadWriteLock}, on one factory and on two.
 * Each test and its {@code _fair} twin keep the TCK's names and bodies; the threads a test starts
 * use the lock's {@link Both#theirs() other side}, the test's own thread {@link Both#mine() its
 * side}. The library has no fair read-write lock: the {@code _fair} twins are skipped on it.
 *
 * <p>What the port changes, and why (docs/compatibility.md lists the same):
 *
 * <ul>
 *   <li>Assertions on {@code getOwner()}, {@code isFair()}, {@code hasQueuedThread(t)}, {@code
 *       hasQueuedThreads()}, {@code hasWaiters(c)} and {@code getWaitQueueLength(c)} are left out
 *       of the tests that keep the rest: the library has none of those queries. Where the TCK
 *       called {@code assertHasWaiters} to be sure that a thread awaits, the port takes and
 *       releases the write lock as that call did.
 *   <li>{@code waitForQueuedThread} waits until the thread is parked (see {@link
 *       Jsr166Case#waitForQueuedThread}).
 *   <li>{@code getReadLockCount()} of the library counts the threads that hold the read lock, not
 *       their reentrant holds, as its Javadoc says: {@code testWriteAfterMultipleReadLocks} expects
 *       the count the lock under test documents.
 *   <li>"Readers wait behind a waiting writer" is what the TCK checks with {@code if (fair)} and in
 *       {@code testReaderWriterReaderFairFifo}: the port asks the maker which of its locks promise
 *       it (the JDK's fair one; the library's, whose Javadoc says that writers are not starved).
 *   <li>{@code testSignalWakesFifo} checks FIFO order by what the threads do (see {@link
 *       ReentrantLockPort}).
 * </ul>
 *
 * <p>Dropped, each for the query it tests, which the library does not have: {@code
 * testHasQueuedThreads}, {@code testHasQueuedThreadNPE}, {@code testHasQueuedThread}, {@code
 * testGetQueueLength}, {@code testGetQueuedThreads}, {@code testHasWaitersNPE}, {@code
 * testGetWaitQueueLengthNPE}, {@code testGetWaitingThreadsNPE}, {@code testHasWaitersIAE}, {@code
 * testHasWaitersIMSE}, {@code testGetWaitQueueLengthIAE}, {@code testGetWaitQueueLengthIMSE},
 * {@code testGetWaitingThreadsIAE}, {@code testGetWaitingThreadsIMSE}, {@code testHasWaiters},
 * {@code testGetWaitQueueLength}, {@code testGetWaitingThreads} (and their {@code _fair} twins);
 * {@code testSerialization} (not {@code Serializable}); {@code testToString} and {@code
 * testReadLockToString} (the library's strings tell the current thread's holds, not the lock's
 * counts over every process).
 */
abstract class ReentrantReadWriteLockPort extends Jsr166Case {

  // ---- the TCK's helpers ----

  /** The read-write lock of this test; the test is skipped if the maker has none of the kind. */
  Both<ReadWriteLockView> newLock(boolean fair) {
    Optional<Both<ReadWriteLockView>> lock = maker().readWriteLock(name(), fair);
    assumeTrue(lock.isPresent(), "no " + (fair ? "fair" : "plain") + " read-write lock here");
    return lock.orElseThrow();
  }

  /** A condition of the write lock. */
  static Both<Condition> newWriteCondition(Both<ReadWriteLockView> lock) {
    return lock.map(view -> view.writeLock().newCondition());
  }

  /** The read lock count the lock under test reports for threads holding these many holds. */
  int expectedReadLockCount(int... holdsPerThread) {
    return maker().readLockCountCountsHolds()
        ? Arrays.stream(holdsPerThread).sum()
        : (int) Arrays.stream(holdsPerThread).filter(holds -> holds > 0).count();
  }

  /** A runnable calling lockInterruptibly. */
  final class InterruptibleLockRunnable extends CheckedRunnable {
    final ReadWriteLockView lock;

    InterruptibleLockRunnable(ReadWriteLockView lock) {
      this.lock = lock;
    }

    @Override
    void realRun() throws InterruptedException {
      lock.writeLock().lockInterruptibly();
    }
  }

  /** A runnable calling lockInterruptibly that expects to be interrupted. */
  final class InterruptedLockRunnable extends CheckedInterruptedRunnable {
    final ReadWriteLockView lock;

    InterruptedLockRunnable(ReadWriteLockView lock) {
      this.lock = lock;
    }

    @Override
    void realRun() throws InterruptedException {
      lock.writeLock().lockInterruptibly();
    }
  }

  /** Releases write lock, checking that it had a hold count of 1. */
  static void releaseWriteLock(ReadWriteLockView lock) {
    assertWriteLockedByMoi(lock);
    assertEquals(1, lock.getWriteHoldCount());
    lock.writeLock().unlock();
    assertNotWriteLocked(lock);
  }

  /** Checks that lock is not write-locked. */
  static void assertNotWriteLocked(ReadWriteLockView lock) {
    assertFalse(lock.isWriteLocked());
    assertFalse(lock.isWriteLockedByCurrentThread());
    assertFalse(lock.writeLock().isHeldByCurrentThread());
    assertEquals(0, lock.getWriteHoldCount());
    assertEquals(0, lock.writeLock().getHoldCount());
  }

  /** Checks that lock is write-locked by the current thread. */
  static void assertWriteLockedByMoi(ReadWriteLockView lock) {
    assertTrue(lock.isWriteLocked());
    assertTrue(lock.isWriteLockedByCurrentThread());
    assertTrue(lock.writeLock().isHeldByCurrentThread());
    assertTrue(lock.getWriteHoldCount() > 0);
    assertTrue(lock.writeLock().getHoldCount() > 0);
    assertEquals(0, lock.getReadLockCount());
  }

  /** Takes and releases the write lock: whoever held it has released it (or awaits). */
  static void passThrough(ReadWriteLockView lock) {
    lock.writeLock().lock();
    lock.writeLock().unlock();
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

  /** Constructor sets given fairness, and is in unlocked state (fairness: not a query here) */
  @Test
  void testConstructor() {
    for (boolean fair : new boolean[] {false, true}) {
      Optional<Both<ReadWriteLockView>> lock = maker().readWriteLock(name(), fair);
      if (lock.isPresent()) {
        assertNotWriteLocked(lock.get().mine());
        assertEquals(0, lock.get().mine().getReadLockCount());
      }
    }
  }

  /** write-locking and read-locking an unlocked lock succeed */
  @Test
  void testLock() {
    testLock(false);
  }

  @Test
  void testLock_fair() {
    testLock(true);
  }

  void testLock(boolean fair) {
    ReadWriteLockView lock = newLock(fair).mine();
    assertNotWriteLocked(lock);
    lock.writeLock().lock();
    assertWriteLockedByMoi(lock);
    lock.writeLock().unlock();
    assertNotWriteLocked(lock);
    assertEquals(0, lock.getReadLockCount());
    lock.readLock().lock();
    assertNotWriteLocked(lock);
    assertEquals(1, lock.getReadLockCount());
    lock.readLock().unlock();
    assertNotWriteLocked(lock);
    assertEquals(0, lock.getReadLockCount());
  }

  /** getWriteHoldCount returns number of recursive holds */
  @Test
  void testGetWriteHoldCount() {
    testGetWriteHoldCount(false);
  }

  @Test
  void testGetWriteHoldCount_fair() {
    testGetWriteHoldCount(true);
  }

  void testGetWriteHoldCount(boolean fair) {
    ReadWriteLockView lock = newLock(fair).mine();
    for (int i = 1; i <= SIZE; i++) {
      lock.writeLock().lock();
      assertEquals(i, lock.getWriteHoldCount());
    }
    for (int i = SIZE; i > 0; i--) {
      lock.writeLock().unlock();
      assertEquals(i - 1, lock.getWriteHoldCount());
    }
  }

  /** writelock.getHoldCount returns number of recursive holds */
  @Test
  void testGetHoldCount() {
    testGetHoldCount(false);
  }

  @Test
  void testGetHoldCount_fair() {
    testGetHoldCount(true);
  }

  void testGetHoldCount(boolean fair) {
    ReadWriteLockView lock = newLock(fair).mine();
    for (int i = 1; i <= SIZE; i++) {
      lock.writeLock().lock();
      assertEquals(i, lock.writeLock().getHoldCount());
    }
    for (int i = SIZE; i > 0; i--) {
      lock.writeLock().unlock();
      assertEquals(i - 1, lock.writeLock().getHoldCount());
    }
  }

  /** getReadHoldCount returns number of recursive holds */
  @Test
  void testGetReadHoldCount() {
    testGetReadHoldCount(false);
  }

  @Test
  void testGetReadHoldCount_fair() {
    testGetReadHoldCount(true);
  }

  void testGetReadHoldCount(boolean fair) {
    ReadWriteLockView lock = newLock(fair).mine();
    for (int i = 1; i <= SIZE; i++) {
      lock.readLock().lock();
      assertEquals(i, lock.getReadHoldCount());
    }
    for (int i = SIZE; i > 0; i--) {
      lock.readLock().unlock();
      assertEquals(i - 1, lock.getReadHoldCount());
    }
  }

  /** write-unlocking an unlocked lock throws IllegalMonitorStateException */
  @Test
  void testWriteUnlock_IMSE() {
    testWriteUnlock_IMSE(false);
  }

  @Test
  void testWriteUnlock_IMSE_fair() {
    testWriteUnlock_IMSE(true);
  }

  void testWriteUnlock_IMSE(boolean fair) {
    ReadWriteLockView lock = newLock(fair).mine();
    assertThrows(IllegalMonitorStateException.class, () -> lock.writeLock().unlock());
  }

  /** read-unlocking an unlocked lock throws IllegalMonitorStateException */
  @Test
  void testReadUnlock_IMSE() {
    testReadUnlock_IMSE(false);
  }

  @Test
  void testReadUnlock_IMSE_fair() {
    testReadUnlock_IMSE(true);
  }

  void testReadUnlock_IMSE(boolean fair) {
    ReadWriteLockView lock = newLock(fair).mine();
    assertThrows(IllegalMonitorStateException.class, () -> lock.readLock().unlock());
  }

  /** write-lockInterruptibly is interruptible */
  @Test
  void testWriteLockInterruptibly_Interruptible() throws InterruptedException {
    testWriteLockInterruptibly_Interruptible(false);
  }

  @Test
  void testWriteLockInterruptibly_Interruptible_fair() throws InterruptedException {
    testWriteLockInterruptibly_Interruptible(true);
  }

  void testWriteLockInterruptibly_Interruptible(boolean fair) throws InterruptedException {
    Both<ReadWriteLockView> lock = newLock(fair);
    lock.mine().writeLock().lock();
    Thread t =
        newStartedThread(
            new CheckedInterruptedRunnable() {
              @Override
              void realRun() throws InterruptedException {
                lock.theirs().writeLock().lockInterruptibly();
              }
            });

    waitForQueuedThread(t);
    t.interrupt();
    awaitTermination(t);
    releaseWriteLock(lock.mine());
  }

  /** timed write-tryLock is interruptible */
  @Test
  void testWriteTryLock_Interruptible() throws InterruptedException {
    testWriteTryLock_Interruptible(false);
  }

  @Test
  void testWriteTryLock_Interruptible_fair() throws InterruptedException {
    testWriteTryLock_Interruptible(true);
  }

  void testWriteTryLock_Interruptible(boolean fair) throws InterruptedException {
    Both<ReadWriteLockView> lock = newLock(fair);
    lock.mine().writeLock().lock();
    Thread t =
        newStartedThread(
            new CheckedInterruptedRunnable() {
              @Override
              void realRun() throws InterruptedException {
                lock.theirs().writeLock().tryLock(2 * LONG_DELAY_MS, MILLISECONDS);
              }
            });

    waitForQueuedThread(t);
    t.interrupt();
    awaitTermination(t);
    releaseWriteLock(lock.mine());
  }

  /** read-lockInterruptibly is interruptible */
  @Test
  void testReadLockInterruptibly_Interruptible() throws InterruptedException {
    testReadLockInterruptibly_Interruptible(false);
  }

  @Test
  void testReadLockInterruptibly_Interruptible_fair() throws InterruptedException {
    testReadLockInterruptibly_Interruptible(true);
  }

  void testReadLockInterruptibly_Interruptible(boolean fair) throws InterruptedException {
    Both<ReadWriteLockView> lock = newLock(fair);
    lock.mine().writeLock().lock();
    Thread t =
        newStartedThread(
            new CheckedInterruptedRunnable() {
              @Override
              void realRun() throws InterruptedException {
                lock.theirs().readLock().lockInterruptibly();
              }
            });

    waitForQueuedThread(t);
    t.interrupt();
    awaitTermination(t);
    releaseWriteLock(lock.mine());
  }

  /** timed read-tryLock is interruptible */
  @Test
  void testReadTryLock_Interruptible() throws InterruptedException {
    testReadTryLock_Interruptible(false);
  }

  @Test
  void testReadTryLock_Interruptible_fair() throws InterruptedException {
    testReadTryLock_Interruptible(true);
  }

  void testReadTryLock_Interruptible(boolean fair) throws InterruptedException {
    Both<ReadWriteLockView> lock = newLock(fair);
    lock.mine().writeLock().lock();
    Thread t =
        newStartedThread(
            new CheckedInterruptedRunnable() {
              @Override
              void realRun() throws InterruptedException {
                lock.theirs().readLock().tryLock(2 * LONG_DELAY_MS, MILLISECONDS);
              }
            });

    waitForQueuedThread(t);
    t.interrupt();
    awaitTermination(t);
    releaseWriteLock(lock.mine());
  }

  /** write-tryLock on an unlocked lock succeeds */
  @Test
  void testWriteTryLock() {
    testWriteTryLock(false);
  }

  @Test
  void testWriteTryLock_fair() {
    testWriteTryLock(true);
  }

  void testWriteTryLock(boolean fair) {
    ReadWriteLockView lock = newLock(fair).mine();
    assertTrue(lock.writeLock().tryLock());
    assertWriteLockedByMoi(lock);
    assertTrue(lock.writeLock().tryLock());
    assertWriteLockedByMoi(lock);
    lock.writeLock().unlock();
    releaseWriteLock(lock);
  }

  /** write-tryLock fails if locked */
  @Test
  void testWriteTryLockWhenLocked() throws InterruptedException {
    testWriteTryLockWhenLocked(false);
  }

  @Test
  void testWriteTryLockWhenLocked_fair() throws InterruptedException {
    testWriteTryLockWhenLocked(true);
  }

  void testWriteTryLockWhenLocked(boolean fair) throws InterruptedException {
    Both<ReadWriteLockView> lock = newLock(fair);
    lock.mine().writeLock().lock();
    Thread t =
        newStartedThread(
            new CheckedRunnable() {
              @Override
              void realRun() {
                assertFalse(lock.theirs().writeLock().tryLock());
              }
            });

    awaitTermination(t);
    releaseWriteLock(lock.mine());
  }

  /** read-tryLock fails if locked */
  @Test
  void testReadTryLockWhenLocked() throws InterruptedException {
    testReadTryLockWhenLocked(false);
  }

  @Test
  void testReadTryLockWhenLocked_fair() throws InterruptedException {
    testReadTryLockWhenLocked(true);
  }

  void testReadTryLockWhenLocked(boolean fair) throws InterruptedException {
    Both<ReadWriteLockView> lock = newLock(fair);
    lock.mine().writeLock().lock();
    Thread t =
        newStartedThread(
            new CheckedRunnable() {
              @Override
              void realRun() {
                assertFalse(lock.theirs().readLock().tryLock());
              }
            });

    awaitTermination(t);
    releaseWriteLock(lock.mine());
  }

  /** Multiple threads can hold a read lock when not write-locked */
  @Test
  void testMultipleReadLocks() throws InterruptedException {
    testMultipleReadLocks(false);
  }

  @Test
  void testMultipleReadLocks_fair() throws InterruptedException {
    testMultipleReadLocks(true);
  }

  void testMultipleReadLocks(boolean fair) throws InterruptedException {
    Both<ReadWriteLockView> lock = newLock(fair);
    lock.mine().readLock().lock();
    Thread t =
        newStartedThread(
            new CheckedRunnable() {
              @Override
              void realRun() throws InterruptedException {
                Lock readLock = lock.theirs().readLock();
                assertTrue(readLock.tryLock());
                readLock.unlock();
                assertTrue(readLock.tryLock(LONG_DELAY_MS, MILLISECONDS));
                readLock.unlock();
                readLock.lock();
                readLock.unlock();
              }
            });

    awaitTermination(t);
    lock.mine().readLock().unlock();
  }

  /** A writelock succeeds only after a reading thread unlocks */
  @Test
  void testWriteAfterReadLock() throws InterruptedException {
    testWriteAfterReadLock(false);
  }

  @Test
  void testWriteAfterReadLock_fair() throws InterruptedException {
    testWriteAfterReadLock(true);
  }

  void testWriteAfterReadLock(boolean fair) throws InterruptedException {
    Both<ReadWriteLockView> lock = newLock(fair);
    lock.mine().readLock().lock();
    Thread t =
        newStartedThread(
            new CheckedRunnable() {
              @Override
              void realRun() {
                assertEquals(1, lock.theirs().getReadLockCount());
                lock.theirs().writeLock().lock();
                assertEquals(0, lock.theirs().getReadLockCount());
                lock.theirs().writeLock().unlock();
              }
            });
    waitForQueuedThread(t);
    assertNotWriteLocked(lock.mine());
    assertEquals(1, lock.mine().getReadLockCount());
    lock.mine().readLock().unlock();
    assertEquals(0, lock.mine().getReadLockCount());
    awaitTermination(t);
    assertNotWriteLocked(lock.mine());
  }

  /**
   * A writelock succeeds only after reading threads unlock. The TCK expects 3 and 2 read locks
   * (holds); the library's {@code getReadLockCount()} counts 2 and 1 reading threads.
   */
  @Test
  void testWriteAfterMultipleReadLocks() throws InterruptedException {
    testWriteAfterMultipleReadLocks(false);
  }

  @Test
  void testWriteAfterMultipleReadLocks_fair() throws InterruptedException {
    testWriteAfterMultipleReadLocks(true);
  }

  void testWriteAfterMultipleReadLocks(boolean fair) throws InterruptedException {
    Both<ReadWriteLockView> lock = newLock(fair);
    lock.mine().readLock().lock();
    lock.mine().readLock().lock();
    int threeHolds = expectedReadLockCount(2, 1);
    int twoHolds = expectedReadLockCount(2);
    Thread t1 =
        newStartedThread(
            new CheckedRunnable() {
              @Override
              void realRun() {
                lock.theirs().readLock().lock();
                assertEquals(threeHolds, lock.theirs().getReadLockCount());
                lock.theirs().readLock().unlock();
              }
            });
    awaitTermination(t1);

    Thread t2 =
        newStartedThread(
            new CheckedRunnable() {
              @Override
              void realRun() {
                assertEquals(twoHolds, lock.theirs().getReadLockCount());
                lock.theirs().writeLock().lock();
                assertEquals(0, lock.theirs().getReadLockCount());
                lock.theirs().writeLock().unlock();
              }
            });
    waitForQueuedThread(t2);
    assertNotWriteLocked(lock.mine());
    assertEquals(twoHolds, lock.mine().getReadLockCount());
    lock.mine().readLock().unlock();
    lock.mine().readLock().unlock();
    assertEquals(0, lock.mine().getReadLockCount());
    awaitTermination(t2);
    assertNotWriteLocked(lock.mine());
  }

  /**
   * A thread that tries to acquire a fair read lock (non-reentrantly) will block if there is a
   * waiting writer thread. Run on the lock of the maker that promises it (see {@link
   * LockMaker#readersWaitForWaitingWriter}).
   */
  @Test
  void testReaderWriterReaderFairFifo() throws InterruptedException {
    boolean fair = !maker().readersWaitForWaitingWriter(false);
    assumeTrue(maker().readersWaitForWaitingWriter(fair), "no read-write lock promises it here");
    Both<ReadWriteLockView> lock = newLock(fair);
    AtomicBoolean t1GotLock = new AtomicBoolean(false);

    lock.mine().readLock().lock();
    Thread t1 =
        newStartedThread(
            new CheckedRunnable() {
              @Override
              void realRun() {
                assertEquals(1, lock.theirs().getReadLockCount());
                lock.theirs().writeLock().lock();
                assertEquals(0, lock.theirs().getReadLockCount());
                t1GotLock.set(true);
                lock.theirs().writeLock().unlock();
              }
            });
    waitForQueuedThread(t1);

    Thread t2 =
        newStartedThread(
            new CheckedRunnable() {
              @Override
              void realRun() {
                assertEquals(1, lock.theirs().getReadLockCount());
                lock.theirs().readLock().lock();
                assertEquals(1, lock.theirs().getReadLockCount());
                assertTrue(t1GotLock.get());
                lock.theirs().readLock().unlock();
              }
            });
    waitForQueuedThread(t2);
    assertTrue(t1.isAlive());
    assertNotWriteLocked(lock.mine());
    assertEquals(1, lock.mine().getReadLockCount());
    lock.mine().readLock().unlock();
    awaitTermination(t1);
    awaitTermination(t2);
    assertNotWriteLocked(lock.mine());
  }

  /** Readlocks succeed only after a writing thread unlocks */
  @Test
  void testReadAfterWriteLock() throws InterruptedException {
    testReadAfterWriteLock(false);
  }

  @Test
  void testReadAfterWriteLock_fair() throws InterruptedException {
    testReadAfterWriteLock(true);
  }

  void testReadAfterWriteLock(boolean fair) throws InterruptedException {
    Both<ReadWriteLockView> lock = newLock(fair);
    lock.mine().writeLock().lock();
    Thread t1 = newStartedThread(readLockAndUnlock(lock.theirs()));
    Thread t2 = newStartedThread(readLockAndUnlock(lock.theirs()));

    waitForQueuedThread(t1);
    waitForQueuedThread(t2);
    releaseWriteLock(lock.mine());
    awaitTermination(t1);
    awaitTermination(t2);
  }

  private Runnable readLockAndUnlock(ReadWriteLockView lock) {
    return new CheckedRunnable() {
      @Override
      void realRun() {
        lock.readLock().lock();
        lock.readLock().unlock();
      }
    };
  }

  private Runnable writeLockAndUnlock(ReadWriteLockView lock) {
    return new CheckedRunnable() {
      @Override
      void realRun() {
        lock.writeLock().lock();
        lock.writeLock().unlock();
      }
    };
  }

  /** Read trylock succeeds if write locked by current thread */
  @Test
  void testReadHoldingWriteLock() {
    testReadHoldingWriteLock(false);
  }

  @Test
  void testReadHoldingWriteLock_fair() {
    testReadHoldingWriteLock(true);
  }

  void testReadHoldingWriteLock(boolean fair) {
    ReadWriteLockView lock = newLock(fair).mine();
    lock.writeLock().lock();
    assertTrue(lock.readLock().tryLock());
    lock.readLock().unlock();
    lock.writeLock().unlock();
  }

  /** Read trylock succeeds (barging) even in the presence of waiting readers and/or writers */
  @Test
  void testReadTryLockBarging() throws InterruptedException {
    testReadTryLockBarging(false);
  }

  @Test
  void testReadTryLockBarging_fair() throws InterruptedException {
    testReadTryLockBarging(true);
  }

  void testReadTryLockBarging(boolean fair) throws InterruptedException {
    Both<ReadWriteLockView> lock = newLock(fair);
    boolean readersWait = maker().readersWaitForWaitingWriter(fair);
    lock.mine().readLock().lock();

    Thread t1 = newStartedThread(writeLockAndUnlock(lock.theirs()));

    waitForQueuedThread(t1);

    Thread t2 = newStartedThread(readLockAndUnlock(lock.theirs()));

    if (readersWait) {
      waitForQueuedThread(t2);
    }

    Thread t3 =
        newStartedThread(
            new CheckedRunnable() {
              @Override
              void realRun() {
                assertTrue(lock.theirs().readLock().tryLock());
                lock.theirs().readLock().unlock();
              }
            });

    assertTrue(lock.mine().getReadLockCount() > 0);
    awaitTermination(t3);
    assertTrue(t1.isAlive());
    if (readersWait) {
      assertTrue(t2.isAlive());
    }
    lock.mine().readLock().unlock();
    awaitTermination(t1);
    awaitTermination(t2);
  }

  /**
   * Read lock succeeds if write locked by current thread even if other threads are waiting for
   * readlock
   */
  @Test
  void testReadHoldingWriteLock2() throws InterruptedException {
    testReadHoldingWriteLock2(false);
  }

  @Test
  void testReadHoldingWriteLock2_fair() throws InterruptedException {
    testReadHoldingWriteLock2(true);
  }

  void testReadHoldingWriteLock2(boolean fair) throws InterruptedException {
    Both<ReadWriteLockView> lock = newLock(fair);
    lock.mine().writeLock().lock();
    lock.mine().readLock().lock();
    lock.mine().readLock().unlock();

    Thread t1 = newStartedThread(readLockAndUnlock(lock.theirs()));
    Thread t2 = newStartedThread(readLockAndUnlock(lock.theirs()));

    waitForQueuedThread(t1);
    waitForQueuedThread(t2);
    assertWriteLockedByMoi(lock.mine());
    lock.mine().readLock().lock();
    lock.mine().readLock().unlock();
    releaseWriteLock(lock.mine());
    awaitTermination(t1);
    awaitTermination(t2);
  }

  /**
   * Read lock succeeds if write locked by current thread even if other threads are waiting for
   * writelock
   */
  @Test
  void testReadHoldingWriteLock3() throws InterruptedException {
    testReadHoldingWriteLock3(false);
  }

  @Test
  void testReadHoldingWriteLock3_fair() throws InterruptedException {
    testReadHoldingWriteLock3(true);
  }

  void testReadHoldingWriteLock3(boolean fair) throws InterruptedException {
    Both<ReadWriteLockView> lock = newLock(fair);
    lock.mine().writeLock().lock();
    lock.mine().readLock().lock();
    lock.mine().readLock().unlock();

    Thread t1 = newStartedThread(writeLockAndUnlock(lock.theirs()));
    Thread t2 = newStartedThread(writeLockAndUnlock(lock.theirs()));

    waitForQueuedThread(t1);
    waitForQueuedThread(t2);
    assertWriteLockedByMoi(lock.mine());
    lock.mine().readLock().lock();
    lock.mine().readLock().unlock();
    assertWriteLockedByMoi(lock.mine());
    lock.mine().writeLock().unlock();
    awaitTermination(t1);
    awaitTermination(t2);
  }

  /**
   * Write lock succeeds if write locked by current thread even if other threads are waiting for
   * writelock
   */
  @Test
  void testWriteHoldingWriteLock4() throws InterruptedException {
    testWriteHoldingWriteLock4(false);
  }

  @Test
  void testWriteHoldingWriteLock4_fair() throws InterruptedException {
    testWriteHoldingWriteLock4(true);
  }

  void testWriteHoldingWriteLock4(boolean fair) throws InterruptedException {
    Both<ReadWriteLockView> lock = newLock(fair);
    ReadWriteLockView mine = lock.mine();
    mine.writeLock().lock();
    mine.writeLock().lock();
    mine.writeLock().unlock();

    Thread t1 = newStartedThread(writeLockAndUnlock(lock.theirs()));
    Thread t2 = newStartedThread(writeLockAndUnlock(lock.theirs()));

    waitForQueuedThread(t1);
    waitForQueuedThread(t2);
    assertWriteLockedByMoi(mine);
    assertEquals(1, mine.getWriteHoldCount());
    mine.writeLock().lock();
    assertWriteLockedByMoi(mine);
    assertEquals(2, mine.getWriteHoldCount());
    mine.writeLock().unlock();
    assertWriteLockedByMoi(mine);
    assertEquals(1, mine.getWriteHoldCount());
    mine.writeLock().unlock();
    awaitTermination(t1);
    awaitTermination(t2);
  }

  /** Read tryLock succeeds if readlocked but not writelocked */
  @Test
  void testTryLockWhenReadLocked() throws InterruptedException {
    testTryLockWhenReadLocked(false);
  }

  @Test
  void testTryLockWhenReadLocked_fair() throws InterruptedException {
    testTryLockWhenReadLocked(true);
  }

  void testTryLockWhenReadLocked(boolean fair) throws InterruptedException {
    Both<ReadWriteLockView> lock = newLock(fair);
    lock.mine().readLock().lock();
    Thread t =
        newStartedThread(
            new CheckedRunnable() {
              @Override
              void realRun() {
                assertTrue(lock.theirs().readLock().tryLock());
                lock.theirs().readLock().unlock();
              }
            });

    awaitTermination(t);
    lock.mine().readLock().unlock();
  }

  /** write tryLock fails when readlocked */
  @Test
  void testWriteTryLockWhenReadLocked() throws InterruptedException {
    testWriteTryLockWhenReadLocked(false);
  }

  @Test
  void testWriteTryLockWhenReadLocked_fair() throws InterruptedException {
    testWriteTryLockWhenReadLocked(true);
  }

  void testWriteTryLockWhenReadLocked(boolean fair) throws InterruptedException {
    Both<ReadWriteLockView> lock = newLock(fair);
    lock.mine().readLock().lock();
    Thread t =
        newStartedThread(
            new CheckedRunnable() {
              @Override
              void realRun() {
                assertFalse(lock.theirs().writeLock().tryLock());
              }
            });

    awaitTermination(t);
    lock.mine().readLock().unlock();
  }

  /** write timed tryLock times out if locked */
  @Test
  void testWriteTryLock_Timeout() throws InterruptedException {
    testWriteTryLock_Timeout(false);
  }

  @Test
  void testWriteTryLock_Timeout_fair() throws InterruptedException {
    testWriteTryLock_Timeout(true);
  }

  void testWriteTryLock_Timeout(boolean fair) throws InterruptedException {
    Both<ReadWriteLockView> lock = newLock(fair);
    long timeoutMillis = timeoutMillis();
    lock.mine().writeLock().lock();
    Thread t =
        newStartedThread(
            new CheckedRunnable() {
              @Override
              void realRun() throws InterruptedException {
                long startTime = System.nanoTime();
                assertFalse(lock.theirs().writeLock().tryLock(timeoutMillis, MILLISECONDS));
                assertTrue(millisElapsedSince(startTime) >= timeoutMillis);
              }
            });

    awaitTermination(t);
    releaseWriteLock(lock.mine());
  }

  /** read timed tryLock times out if write-locked */
  @Test
  void testReadTryLock_Timeout() throws InterruptedException {
    testReadTryLock_Timeout(false);
  }

  @Test
  void testReadTryLock_Timeout_fair() throws InterruptedException {
    testReadTryLock_Timeout(true);
  }

  void testReadTryLock_Timeout(boolean fair) throws InterruptedException {
    Both<ReadWriteLockView> lock = newLock(fair);
    lock.mine().writeLock().lock();
    Thread t =
        newStartedThread(
            new CheckedRunnable() {
              @Override
              void realRun() throws InterruptedException {
                long startTime = System.nanoTime();
                long timeoutMillis = timeoutMillis();
                assertFalse(lock.theirs().readLock().tryLock(timeoutMillis, MILLISECONDS));
                assertTrue(millisElapsedSince(startTime) >= timeoutMillis);
              }
            });

    awaitTermination(t);
    assertTrue(lock.mine().writeLock().isHeldByCurrentThread());
    lock.mine().writeLock().unlock();
  }

  /** write lockInterruptibly succeeds if unlocked, else is interruptible */
  @Test
  void testWriteLockInterruptibly() throws InterruptedException {
    testWriteLockInterruptibly(false);
  }

  @Test
  void testWriteLockInterruptibly_fair() throws InterruptedException {
    testWriteLockInterruptibly(true);
  }

  void testWriteLockInterruptibly(boolean fair) throws InterruptedException {
    Both<ReadWriteLockView> lock = newLock(fair);
    lock.mine().writeLock().lockInterruptibly();
    Thread t = newStartedThread(new InterruptedLockRunnable(lock.theirs()));

    waitForQueuedThread(t);
    t.interrupt();
    assertTrue(lock.mine().writeLock().isHeldByCurrentThread());
    awaitTermination(t);
    releaseWriteLock(lock.mine());
  }

  /** read lockInterruptibly succeeds if lock free else is interruptible */
  @Test
  void testReadLockInterruptibly() throws InterruptedException {
    testReadLockInterruptibly(false);
  }

  @Test
  void testReadLockInterruptibly_fair() throws InterruptedException {
    testReadLockInterruptibly(true);
  }

  void testReadLockInterruptibly(boolean fair) throws InterruptedException {
    Both<ReadWriteLockView> lock = newLock(fair);
    lock.mine().readLock().lockInterruptibly();
    lock.mine().readLock().unlock();
    lock.mine().writeLock().lockInterruptibly();
    Thread t =
        newStartedThread(
            new CheckedInterruptedRunnable() {
              @Override
              void realRun() throws InterruptedException {
                lock.theirs().readLock().lockInterruptibly();
              }
            });

    waitForQueuedThread(t);
    t.interrupt();
    awaitTermination(t);
    releaseWriteLock(lock.mine());
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
    Condition c = newWriteCondition(newLock(fair)).mine();
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
    Condition c = newWriteCondition(newLock(fair)).mine();
    assertThrows(IllegalMonitorStateException.class, c::signal);
  }

  /** Calling signalAll without holding lock throws IllegalMonitorStateException */
  @Test
  void testSignalAll_IMSE() {
    testSignalAll_IMSE(false);
  }

  @Test
  void testSignalAll_IMSE_fair() {
    testSignalAll_IMSE(true);
  }

  void testSignalAll_IMSE(boolean fair) {
    Condition c = newWriteCondition(newLock(fair)).mine();
    assertThrows(IllegalMonitorStateException.class, c::signalAll);
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
    ReadWriteLockView lock = newLock(fair).mine();
    Condition c = newWriteCondition(Both.same(lock)).mine();
    long timeoutMillis = timeoutMillis();
    lock.writeLock().lock();
    long startTime = System.nanoTime();
    long timeoutNanos = MILLISECONDS.toNanos(timeoutMillis);
    long nanosRemaining = c.awaitNanos(timeoutNanos);
    assertTrue(nanosRemaining <= 0);
    assertTrue(millisElapsedSince(startTime) >= timeoutMillis);
    lock.writeLock().unlock();
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
    ReadWriteLockView lock = newLock(fair).mine();
    Condition c = newWriteCondition(Both.same(lock)).mine();
    long timeoutMillis = timeoutMillis();
    lock.writeLock().lock();
    long startTime = System.nanoTime();
    assertFalse(c.await(timeoutMillis, MILLISECONDS));
    assertTrue(millisElapsedSince(startTime) >= timeoutMillis);
    lock.writeLock().unlock();
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
    ReadWriteLockView lock = newLock(fair).mine();
    Condition c = newWriteCondition(Both.same(lock)).mine();
    lock.writeLock().lock();
    // We shouldn't assume that nanoTime and currentTimeMillis
    // use the same time source, so don't use nanoTime here.
    Date delayedDate = delayedDate(timeoutMillis());
    assertFalse(c.awaitUntil(delayedDate));
    assertTrue(new Date().getTime() >= delayedDate.getTime());
    lock.writeLock().unlock();
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
    Both<ReadWriteLockView> lock = newLock(fair);
    Both<Condition> c = newWriteCondition(lock);
    CountDownLatch locked = new CountDownLatch(1);
    Thread t =
        newStartedThread(
            new CheckedRunnable() {
              @Override
              void realRun() throws InterruptedException {
                lock.theirs().writeLock().lock();
                locked.countDown();
                c.theirs().await();
                lock.theirs().writeLock().unlock();
              }
            });

    await(locked);
    lock.mine().writeLock().lock();
    c.mine().signal();
    assertTrue(t.isAlive());
    lock.mine().writeLock().unlock();
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
    Both<ReadWriteLockView> rw = newLock(fair);
    Both<Condition> condition = newWriteCondition(rw);
    Lock mine = rw.mine().writeLock();
    Lock theirs = rw.theirs().writeLock();
    CountDownLatch pleaseInterrupt = new CountDownLatch(2);

    Thread t1 =
        newStartedThread(
            new CheckedRunnable() {
              @Override
              void realRun() {
                // Interrupt before awaitUninterruptibly
                theirs.lock();
                pleaseInterrupt.countDown();
                Thread.currentThread().interrupt();
                condition.theirs().awaitUninterruptibly();
                assertTrue(Thread.interrupted());
                theirs.unlock();
              }
            });

    Thread t2 =
        newStartedThread(
            new CheckedRunnable() {
              @Override
              void realRun() {
                // Interrupt during awaitUninterruptibly
                theirs.lock();
                pleaseInterrupt.countDown();
                condition.theirs().awaitUninterruptibly();
                assertTrue(Thread.interrupted());
                theirs.unlock();
              }
            });

    await(pleaseInterrupt);
    t2.interrupt();
    mine.lock();
    mine.unlock();
    assertThreadBlocks(t1);
    assertThreadBlocks(t2);

    mine.lock();
    condition.mine().signalAll();
    mine.unlock();

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
    Both<ReadWriteLockView> lock = newLock(fair);
    Both<Condition> c = newWriteCondition(lock);
    CountDownLatch locked = new CountDownLatch(1);
    Thread t =
        newStartedThread(
            new CheckedInterruptedRunnable() {
              @Override
              void realRun() throws InterruptedException {
                lock.theirs().writeLock().lock();
                assertWriteLockedByMoi(lock.theirs());
                locked.countDown();
                try {
                  await(c.theirs(), awaitMethod);
                } finally {
                  assertWriteLockedByMoi(lock.theirs());
                  lock.theirs().writeLock().unlock();
                  assertFalse(Thread.interrupted());
                }
              }
            });

    await(locked);
    passThrough(lock.mine());
    t.interrupt();
    awaitTermination(t);
    assertNotWriteLocked(lock.mine());
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
    Both<ReadWriteLockView> lock = newLock(fair);
    Both<Condition> c = newWriteCondition(lock);
    CountDownLatch locked = new CountDownLatch(2);
    Lock writeLock = lock.mine().writeLock();
    Lock theirWriteLock = lock.theirs().writeLock();
    class Awaiter extends CheckedRunnable {
      @Override
      void realRun() throws InterruptedException {
        theirWriteLock.lock();
        locked.countDown();
        await(c.theirs(), awaitMethod);
        theirWriteLock.unlock();
      }
    }

    Thread t1 = newStartedThread(new Awaiter());
    Thread t2 = newStartedThread(new Awaiter());

    await(locked);
    writeLock.lock();
    c.mine().signalAll();
    writeLock.unlock();
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
    Both<ReadWriteLockView> lock = newLock(fair);
    Both<Condition> c = newWriteCondition(lock);
    CountDownLatch locked1 = new CountDownLatch(1);
    CountDownLatch locked2 = new CountDownLatch(1);
    Lock writeLock = lock.mine().writeLock();
    Lock theirWriteLock = lock.theirs().writeLock();
    Thread t1 =
        newStartedThread(
            new CheckedRunnable() {
              @Override
              void realRun() throws InterruptedException {
                theirWriteLock.lock();
                locked1.countDown();
                c.theirs().await();
                theirWriteLock.unlock();
              }
            });

    await(locked1);

    Thread t2 =
        newStartedThread(
            new CheckedRunnable() {
              @Override
              void realRun() throws InterruptedException {
                theirWriteLock.lock();
                locked2.countDown();
                c.theirs().await();
                theirWriteLock.unlock();
              }
            });

    await(locked2);

    writeLock.lock();
    c.mine().signal();
    writeLock.unlock();
    awaitTermination(t1);
    assertTrue(t2.isAlive());
    assertThreadBlocks(t2);
    writeLock.lock();
    c.mine().signal();
    writeLock.unlock();
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
    Both<ReadWriteLockView> lock = newLock(fair);
    Both<Condition> c = newWriteCondition(lock);
    ReadWriteLockView theirs = lock.theirs();
    CountDownLatch locked = new CountDownLatch(2);
    Thread t1 =
        newStartedThread(
            new CheckedRunnable() {
              @Override
              void realRun() throws InterruptedException {
                theirs.writeLock().lock();
                assertWriteLockedByMoi(theirs);
                assertEquals(1, theirs.writeLock().getHoldCount());
                locked.countDown();
                c.theirs().await();
                assertWriteLockedByMoi(theirs);
                assertEquals(1, theirs.writeLock().getHoldCount());
                theirs.writeLock().unlock();
              }
            });

    Thread t2 =
        newStartedThread(
            new CheckedRunnable() {
              @Override
              void realRun() throws InterruptedException {
                theirs.writeLock().lock();
                theirs.writeLock().lock();
                assertWriteLockedByMoi(theirs);
                assertEquals(2, theirs.writeLock().getHoldCount());
                locked.countDown();
                c.theirs().await();
                assertWriteLockedByMoi(theirs);
                assertEquals(2, theirs.writeLock().getHoldCount());
                theirs.writeLock().unlock();
                theirs.writeLock().unlock();
              }
            });

    await(locked);
    lock.mine().writeLock().lock();
    c.mine().signalAll();
    lock.mine().writeLock().unlock();
    awaitTermination(t1);
    awaitTermination(t2);
  }

  /** writeLock.toString indicates current lock state (here: as the current thread sees it) */
  @Test
  void testWriteLockToString() {
    testWriteLockToString(false);
  }

  @Test
  void testWriteLockToString_fair() {
    testWriteLockToString(true);
  }

  void testWriteLockToString(boolean fair) {
    ReadWriteLockView lock = newLock(fair).mine();
    assertTrue(lock.writeLock().toString().contains("Unlocked"));
    lock.writeLock().lock();
    assertTrue(lock.writeLock().toString().contains("Locked by"));
    lock.writeLock().unlock();
    assertTrue(lock.writeLock().toString().contains("Unlocked"));
  }
}
