package io.github.redislock;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import java.util.function.LongSupplier;

/**
 * Running code under a {@link Lock}, written once for every lock of the library: lock, run, unlock,
 * and exceptions passed through; and the {@link LockHold}s of try-with-resources.
 */
final class Locked {
  private Locked() {}

  /** {@code lock()}, {@code action}, {@code unlock()}. */
  static void run(Lock lock, Runnable action) {
    Objects.requireNonNull(action, "action");
    lock.lock();
    runHolding(lock, action);
  }

  /** {@code lock()}, {@code action}, {@code unlock()}, and the action's result. */
  static <T> T call(Lock lock, Callable<T> action) throws Exception {
    Objects.requireNonNull(action, "action");
    T result;
    lock.lock();
    try {
      result = action.call();
    } catch (Throwable e) {
      unlockAfter(lock, e);
      throw e;
    }
    lock.unlock();
    return result;
  }

  /** {@code tryLock(timeout)}: then {@code action} and {@code unlock()}, or else {@code onBusy}. */
  static boolean tryRun(Lock lock, Duration timeout, Runnable action, Runnable onBusy)
      throws InterruptedException {
    Objects.requireNonNull(action, "action");
    if (!lock.tryLock(nanos(timeout), TimeUnit.NANOSECONDS)) {
      if (onBusy != null) {
        onBusy.run();
      }
      return false;
    }
    runHolding(lock, action);
    return true;
  }

  /** {@code lock()}, as a hold whose token {@code fencing} tells. */
  static LockHold acquire(Lock lock, LongSupplier fencing) {
    lock.lock();
    return new Hold(lock, fencing);
  }

  /** {@code tryLock(timeout)}, as a hold whose token {@code fencing} tells. */
  static Optional<LockHold> tryAcquire(Lock lock, Duration timeout, LongSupplier fencing)
      throws InterruptedException {
    return lock.tryLock(nanos(timeout), TimeUnit.NANOSECONDS)
        ? Optional.of(new Hold(lock, fencing))
        : Optional.empty();
  }

  /** The token of a read hold: there is none. */
  @SuppressWarnings("DoNotCallSuggester") // called through a LongSupplier, whose callers expect it
  static long noFencingToken() {
    throw new UnsupportedOperationException("a read lock's hold has no fencing token");
  }

  private static void runHolding(Lock lock, Runnable action) {
    try {
      action.run();
    } catch (Throwable e) {
      unlockAfter(lock, e);
      throw e;
    }
    lock.unlock();
  }

  /** The unlock after {@code failure}: what it throws is added to the failure, which wins. */
  private static void unlockAfter(Lock lock, Throwable failure) {
    try {
      lock.unlock();
    } catch (RuntimeException e) {
      failure.addSuppressed(e);
    }
  }

  /** The timeout in nanoseconds, saturated (a {@code Duration} can exceed a {@code long}). */
  private static long nanos(Duration timeout) {
    Objects.requireNonNull(timeout, "timeout");
    return timeout.compareTo(Duration.ofDays(365 * 100)) > 0 ? Long.MAX_VALUE : timeout.toNanos();
  }

  /*
   * A hold is used by one thread: it is created by the acquiring thread, and every other thread is
   * turned away before touching its state, so the closed flag needs no synchronization.
   */
  private static final class Hold implements LockHold {
    private final Lock lock;
    private final LongSupplier fencing;
    private final Thread owner = Thread.currentThread();
    private boolean closed;

    Hold(Lock lock, LongSupplier fencing) {
      this.lock = lock;
      this.fencing = fencing;
    }

    @Override
    public long fencingToken() {
      checkOwner("asked for the fencing token of");
      if (closed) {
        throw new IllegalMonitorStateException("this hold of " + lock + " was closed");
      }
      return fencing.getAsLong();
    }

    @Override
    public void close() {
      checkOwner("closed");
      if (!closed) {
        closed = true;
        lock.unlock();
      }
    }

    private void checkOwner(String what) {
      Thread current = Thread.currentThread();
      if (current != owner) {
        throw new IllegalMonitorStateException(
            "thread '"
                + current.getName()
                + "' "
                + what
                + " a hold that thread '"
                + owner.getName()
                + "' acquired: only the acquiring thread may");
      }
    }

    @Override
    public String toString() {
      return "LockHold["
          + (closed ? "closed" : "held")
          + " by "
          + owner.getName()
          + ": "
          + lock
          + "]";
    }
  }
}
