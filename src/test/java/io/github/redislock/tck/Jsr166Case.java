/*
 * Adapted from JSR166TestCase of the JSR-166 TCK, which carries this notice:
 *
 * Written by Doug Lea and Martin Buchholz with assistance from
 * members of JCP JSR-166 Expert Group and released to the public
 * domain, as explained at
 * http://creativecommons.org/publicdomain/zero/1.0/
 * Other contributors include Andrew Wright, Jeffrey Hayes,
 * Pat Fisher, Mike Judd.
 */
package io.github.redislock.tck;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.github.redislock.testing.Timing;
import java.time.Duration;
import java.util.Arrays;
import java.util.Date;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.TestInstance;

/**
 * The part of the TCK's {@code JSR166TestCase} that the lock tests use: checked runnables whose
 * failures fail the test, started threads that must end, and the TCK's delays, with the lock under
 * test made by a {@link LockMaker}.
 *
 * <p>Differences from the original, all in how a test waits, none in what it asserts:
 *
 * <ul>
 *   <li>{@link #LONG_DELAY_MS}, an upper bound only (no test waits it out), is 10 s scaled by
 *       {@link Timing}; {@link #timeoutMillis()}, the time a timed call is given to time out, is 50
 *       ms scaled (the TCK's is 12 ms), so that a Redis round trip on a loaded machine fits in it.
 *   <li>Where the TCK spins on {@code hasQueuedThread(t)} to know that a thread is blocked in the
 *       lock, the port waits with Awaitility until the thread is parked ({@code WAITING} or {@code
 *       TIMED_WAITING}), which every lock under test, the JDK's included, shows then; see {@link
 *       #waitForQueuedThread}.
 *   <li>{@link #assertThreadBlocks} accepts {@code TIMED_WAITING} as well as the {@code WAITING}
 *       the TCK asks for: a distributed await wakes up to renew its entry's lease.
 * </ul>
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class Jsr166Case {

  /** The number of reentrant acquisitions the hold count tests make (the TCK's {@code SIZE}). */
  static final int SIZE = 20;

  /** An upper bound for anything a test waits for: never waited out when the test passes. */
  static final long LONG_DELAY_MS = Timing.scaled(Duration.ofSeconds(10)).toMillis();

  private static final long TIMEOUT_MILLIS = Timing.scaled(Duration.ofMillis(50)).toMillis();
  private static final AtomicInteger TEST_NUMBER = new AtomicInteger();

  private final List<Thread> started = new CopyOnWriteArrayList<>();
  private final AtomicReference<Throwable> threadFailure = new AtomicReference<>();
  private LockMaker maker;
  private String name;

  /** Makes the maker of the locks under test, once for the class. */
  protected abstract LockMaker newMaker();

  @BeforeAll
  final void startMaker() {
    maker = newMaker();
  }

  @AfterAll
  final void closeMaker() {
    if (maker != null) {
      maker.close();
    }
  }

  @BeforeEach
  final void nameTheLock(TestInfo info) {
    name =
        "tck:" + TEST_NUMBER.incrementAndGet() + ":" + info.getTestMethod().orElseThrow().getName();
  }

  /**
   * As the TCK's {@code tearDown}: a failure in a started thread fails the test, and every started
   * thread must have ended (one still running is interrupted, and fails the test); then nothing of
   * the test's lock may be left held or stored.
   */
  @AfterEach
  final void checkThreadsAndLock() throws InterruptedException {
    List<Thread> alive = started.stream().filter(Thread::isAlive).toList();
    for (Thread t : alive) {
      t.interrupt();
    }
    for (Thread t : alive) {
      t.join(LONG_DELAY_MS);
    }
    started.clear();
    Throwable failure = threadFailure.getAndSet(null);
    if (failure != null) {
      throw new AssertionError("a thread of the test failed", failure);
    }
    if (!alive.isEmpty()) {
      fail("threads of the test still running at its end: " + alive);
    }
    maker.checkClean(name);
  }

  /** The maker of the locks under test. */
  final LockMaker maker() {
    return maker;
  }

  /** The name of this test's lock: new for every test. */
  final String name() {
    return name;
  }

  /** The time given to a timed call that must time out. */
  static long timeoutMillis() {
    return TIMEOUT_MILLIS;
  }

  static long millisElapsedSince(long startNanoTime) {
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanoTime);
  }

  static Date delayedDate(long delayMillis) {
    return new Date(System.currentTimeMillis() + delayMillis);
  }

  /** Records the first failure of a started thread; the test fails with it at its end. */
  final void threadRecordFailure(Throwable t) {
    threadFailure.compareAndSet(null, t);
  }

  /** Starts a thread of the test (of the "other process", when the maker has two). */
  final Thread newStartedThread(Runnable runnable) {
    Thread t = new Thread(runnable, "tck-" + name + "-" + started.size());
    t.setDaemon(true);
    started.add(t);
    t.start();
    return t;
  }

  /** Waits for the thread to end, at most {@link #LONG_DELAY_MS}; fails with its stack if not. */
  final void awaitTermination(Thread t) throws InterruptedException {
    t.join(LONG_DELAY_MS);
    if (t.isAlive()) {
      StackTraceElement[] stack = t.getStackTrace();
      t.interrupt();
      fail("thread " + t.getName() + " did not end: " + Arrays.toString(stack));
    }
  }

  /** Waits for the latch, at most {@link #LONG_DELAY_MS}. */
  static void await(CountDownLatch latch) throws InterruptedException {
    assertTrue(latch.await(LONG_DELAY_MS, TimeUnit.MILLISECONDS), "latch not counted down");
  }

  /**
   * Waits until {@code t} is blocked in the lock call it made: parked, and alive. Stands for the
   * TCK's spin on {@code hasQueuedThread(t)}, which only a JVM-local queue can answer.
   */
  final void waitForQueuedThread(Thread t) {
    assertThreadBlocks(t);
  }

  /** Waits until {@code t} is parked ({@code WAITING} or {@code TIMED_WAITING}). */
  final void assertThreadBlocks(Thread t) {
    Awaitility.await("thread " + t.getName() + " blocks")
        .atMost(Duration.ofMillis(LONG_DELAY_MS))
        .pollDelay(Duration.ofMillis(1))
        .pollInterval(Duration.ofMillis(2))
        .until(
            () -> {
              Thread.State s = t.getState();
              assertFalse(s == Thread.State.TERMINATED, "thread ended: " + t.getName());
              return s == Thread.State.WAITING || s == Thread.State.TIMED_WAITING;
            });
  }

  /** A runnable whose failures fail the test. */
  abstract class CheckedRunnable implements Runnable {
    abstract void realRun() throws Throwable;

    @Override
    public final void run() {
      try {
        realRun();
      } catch (Throwable fail) {
        threadRecordFailure(fail);
      }
    }
  }

  /** A runnable that must be interrupted: it must throw InterruptedException, status cleared. */
  abstract class CheckedInterruptedRunnable implements Runnable {
    abstract void realRun() throws Throwable;

    @Override
    public final void run() {
      try {
        realRun();
        threadRecordFailure(new AssertionError("should throw InterruptedException"));
      } catch (InterruptedException success) {
        if (Thread.interrupted()) {
          threadRecordFailure(new AssertionError("interrupt status still set"));
        }
      } catch (Throwable fail) {
        threadRecordFailure(fail);
      }
    }
  }
}
