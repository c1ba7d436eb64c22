package io.github.redislock.internal.util;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A bulkhead: an executor of at most {@code maxThreads} threads and at most {@code maxQueued} tasks
 * waiting beyond them, refusing more. A thread starts only when a task finds no idle one, and ends
 * after {@code keepAliveNanos} without work. When its last thread ends with nothing queued, the
 * bulkhead retires: it refuses every later task ({@link Offer#RETIRED}) and tells its owner, which
 * makes a new bulkhead when it needs one, so that a bulkhead nobody uses holds neither a thread nor
 * a place in its owner's map. {@link #close()} drops the queued tasks and tells each dropped or
 * running {@link Abortable} task.
 *
 * <p>The executor of the JDK that comes closest, {@code ThreadPoolExecutor}, starts a thread for
 * each task up to its core size even while others idle, and beyond its core size only once its
 * queue is full; neither fits a bound that should cost nothing until a node is slow.
 */
public final class Bulkhead {
  private static final Logger log = LoggerFactory.getLogger(Bulkhead.class);

  /** A task whose caller waits for it: told when the bulkhead closes before or while it runs. */
  public interface Abortable extends Runnable {
    /** The bulkhead closed: the caller should stop waiting; the task may still run to its end. */
    void abort();
  }

  /** What became of a task offered to the bulkhead. */
  public enum Offer {
    /** It runs, now or after the tasks queued before it. */
    ACCEPTED,
    /** Every thread is busy and the queue full: refused. */
    FULL,
    /** The bulkhead has retired: refused; offer it to a new bulkhead. */
    RETIRED,
    /** The bulkhead was closed: refused. */
    CLOSED
  }

  private final ThreadFactory threadFactory;
  private final int maxThreads;
  private final int maxQueued;
  private final long keepAliveNanos;
  private final Consumer<Bulkhead> onRetire;

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition work = lock.newCondition();
  private final Condition ended = lock.newCondition();

  // Guarded by lock.
  private final ArrayDeque<Runnable> queue = new ArrayDeque<>();
  private final List<Runnable> running = new ArrayList<>(); // at most maxThreads
  private int threads;
  private int idle;
  private boolean retired;
  private boolean closed;

  /**
   * A bulkhead with no thread yet.
   *
   * @param threadFactory makes its threads
   * @param maxThreads the most threads it runs at once
   * @param maxQueued the most tasks that wait for a thread
   * @param keepAliveNanos how long a thread waits for work before it ends
   * @param onRetire told, on the last thread, once the bulkhead has retired
   */
  public Bulkhead(
      ThreadFactory threadFactory,
      int maxThreads,
      int maxQueued,
      long keepAliveNanos,
      Consumer<Bulkhead> onRetire) {
    if (maxThreads < 1 || maxQueued < 0 || keepAliveNanos <= 0) {
      throw new IllegalArgumentException(
          "a bulkhead needs a thread, a queue of 0 or more, a keep-alive above 0");
    }
    this.threadFactory = threadFactory;
    this.maxThreads = maxThreads;
    this.maxQueued = maxQueued;
    this.keepAliveNanos = keepAliveNanos;
    this.onRetire = onRetire;
  }

  /**
   * Runs {@code task} on a thread of the bulkhead: an idle one, a new one while there are fewer
   * than the bound, or the first to finish its task, unless {@code maxQueued} tasks wait already.
   *
   * @return whether the bulkhead took it
   */
  public Offer offer(Runnable task) {
    lock.lock();
    try {
      if (closed) {
        return Offer.CLOSED;
      }
      if (retired) {
        return Offer.RETIRED;
      }
      if ((long) queue.size() + running.size() >= (long) maxThreads + maxQueued) {
        return Offer.FULL;
      }
      queue.add(task);
      if (idle > 0) {
        work.signal();
      }
      // Each thread not running a task (idle, or just started) takes one of the queued.
      if (queue.size() > threads - running.size() && threads < maxThreads) {
        startThread(task);
      }
      return Offer.ACCEPTED;
    } finally {
      lock.unlock();
    }
  }

  private void startThread(Runnable task) {
    threads++;
    try {
      threadFactory.newThread(this::work).start();
    } catch (RuntimeException | Error e) {
      threads--;
      queue.removeLastOccurrence(task);
      throw e;
    }
  }

  /**
   * Takes {@code task} out of the queue if no thread has taken it yet.
   *
   * @return whether it was queued (it will not run)
   */
  public boolean remove(Runnable task) {
    lock.lock();
    try {
      return queue.removeIf(queued -> queued == task);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Refuses every later task, drops the queued ones, and lets each thread end after its task; each
   * dropped or running {@link Abortable} is told. Idempotent.
   */
  public void close() {
    List<Runnable> aborted;
    lock.lock();
    try {
      if (closed) {
        return;
      }
      closed = true;
      aborted = new ArrayList<>(queue);
      aborted.addAll(running);
      queue.clear();
      work.signalAll();
    } finally {
      lock.unlock();
    }
    for (Runnable task : aborted) {
      if (task instanceof Abortable abortable) {
        abortable.abort();
      }
    }
  }

  /**
   * Waits, after {@link #close}, until every thread has ended its task, or for {@code nanos}.
   *
   * @return whether every thread ended
   */
  public boolean awaitEnd(long nanos) throws InterruptedException {
    lock.lock();
    try {
      while (threads > 0) {
        if (nanos <= 0) {
          return false;
        }
        nanos = ended.awaitNanos(nanos);
      }
      return true;
    } finally {
      lock.unlock();
    }
  }

  /** Threads running now, busy or idle. */
  public int threads() {
    lock.lock();
    try {
      return threads;
    } finally {
      lock.unlock();
    }
  }

  private void work() {
    Runnable task = null;
    boolean exited = false;
    try {
      while ((task = next(task)) != null) {
        try {
          task.run();
        } catch (RuntimeException e) {
          log.error("a background Redis call failed", e);
        }
        Thread.interrupted(); // a task's interrupt is not the next task's
      }
      exited = true;
    } finally {
      if (!exited) { // an Error ended the thread
        lock.lock();
        try {
          running.remove(task);
          threads--;
          ended.signalAll();
        } finally {
          lock.unlock();
        }
      }
    }
  }

  /** The next task, after {@code done}; {@code null}: the thread ends (its count dropped). */
  private Runnable next(Runnable done) {
    boolean retiring = false;
    lock.lock();
    try {
      if (done != null) {
        running.remove(done);
      }
      long nanos = keepAliveNanos;
      while (queue.isEmpty()) {
        if (closed || nanos <= 0) {
          threads--;
          ended.signalAll();
          retiring = threads == 0 && !closed;
          retired |= retiring;
          return null;
        }
        idle++;
        try {
          nanos = work.awaitNanos(nanos);
        } catch (InterruptedException e) {
          // nobody interrupts a bulkhead's thread but a task it ran: go on waiting
        } finally {
          idle--;
        }
      }
      Runnable task = queue.poll();
      running.add(task);
      return task;
    } finally {
      lock.unlock();
      if (retiring) {
        onRetire.accept(this);
      }
    }
  }
}
