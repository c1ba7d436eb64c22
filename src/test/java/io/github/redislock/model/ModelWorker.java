package io.github.redislock.model;

import io.github.redislock.LockLostException;
import io.github.redislock.RedisDistributedLock;
import io.github.redislock.RedisLockException;
import io.github.redislock.RedisReadWriteLock;
import io.github.redislock.model.LockModel.Family;
import io.github.redislock.model.LockModel.Mode;
import io.github.redislock.model.LockModel.Ticket;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * One thread of the model-based test: a seeded random sequence of sections, each taking a lock of a
 * name in one of its forms ({@code lock}, {@code lockInterruptibly}, {@code tryLock}, timed {@code
 * tryLock}), sometimes again (reentrantly), a second name, the read lock under the write lock (a
 * downgrade) or the write lock under the read lock (an upgrade, refused), asking for a fencing
 * token, signalling or awaiting a condition, then releasing everything. Every step is told to the
 * {@link LockModel} and checked against it; what the thread can check alone (hold counts, the
 * interrupt status, the exceptions the contract names) is checked here and reported to the model.
 */
final class ModelWorker implements Runnable {
  /** The locks of one name as one factory hands them out, made once per factory. */
  record Locks(
      String name,
      Family family,
      RedisDistributedLock plain,
      RedisDistributedLock fair,
      RedisReadWriteLock readWrite,
      List<Condition> conditions) {}

  private final LockModel model;
  private final List<Locks> locks;
  private final SplittableRandom random;
  private final BooleanSupplier stopped;
  private final BooleanSupplier factoryClosed;
  private final long leaseNanos;

  /** This thread's holds, innermost last. */
  private final List<Held> held = new ArrayList<>();

  private long sections;

  ModelWorker(
      LockModel model,
      List<Locks> locks,
      long seed,
      BooleanSupplier stopped,
      BooleanSupplier factoryClosed,
      long leaseNanos) {
    this.model = model;
    this.locks = locks;
    this.random = new SplittableRandom(seed);
    this.stopped = stopped;
    this.factoryClosed = factoryClosed;
    this.leaseNanos = leaseNanos;
  }

  long sections() {
    return sections;
  }

  @Override
  public void run() {
    try {
      while (!stopped.getAsBoolean()) {
        section();
        sections++;
      }
    } catch (FactoryClosed e) {
      // this worker's factory was closed under it: its part of the run is over
    } catch (RuntimeException | Error e) {
      model.violation("*", "unexpected " + describe(e));
    } finally {
      Thread.interrupted();
    }
  }

  /** One lock, its form, and how this thread holds it. */
  private static final class Held {
    final Locks locks;
    final String kind; // plain, fair, read, write
    final Lock lock;
    final Mode mode;
    int count;
    long token;

    Held(Locks locks, String kind, Lock lock, Mode mode) {
      this.locks = locks;
      this.kind = kind;
      this.lock = lock;
      this.mode = mode;
    }

    String name() {
      return locks.name;
    }

    /** The hold count the lock reports for the calling thread. */
    int reportedCount() {
      return switch (kind) {
        case "read" -> locks.readWrite.getReadHoldCount();
        case "write" -> locks.readWrite.writeLock().getHoldCount();
        default -> ((RedisDistributedLock) lock).getHoldCount();
      };
    }

    boolean reportsHeld() {
      return switch (kind) {
        case "read" -> locks.readWrite.getReadHoldCount() > 0;
        case "write" -> locks.readWrite.isWriteLockedByCurrentThread();
        default -> ((RedisDistributedLock) lock).isHeldByCurrentThread();
      };
    }

    long fencingToken() {
      return kind.equals("write")
          ? locks.readWrite.writeLock().getFencingToken()
          : ((RedisDistributedLock) lock).getFencingToken();
    }

    @Override
    public String toString() {
      return kind + "('" + locks.name + "')";
    }
  }

  private void section() {
    int index = random.nextInt(locks.size());
    Held first = acquire(pick(locks.get(index)), false);
    if (first == null) {
      return;
    }
    try {
      double extra = random.nextDouble();
      if (extra < 0.10) {
        acquire(first, true);
      } else if (extra < 0.16 && first.kind.equals("write")) {
        Held read =
            new Held(first.locks, "read", first.locks.readWrite.readLock(), Mode.READ); // downgrade
        acquire(read, false);
      } else if (extra < 0.20 && first.kind.equals("read")) {
        upgradeIsRefused(first);
      } else if (extra < 0.25 && index + 1 < locks.size()) {
        // A second, higher name, in name order: no two threads wait for each other.
        Held second = pick(locks.get(index + 1 + random.nextInt(locks.size() - index - 1)));
        acquire(second, false);
      }
      if (first.mode == Mode.EXCLUSIVE && first.token == 0 && random.nextDouble() < 0.3) {
        askToken(first);
      }
      // An await gives up the holds of its lock only: with a read hold of the same name (or of
      // another name) beside, the JDK's write-lock condition would deadlock; keep to one hold.
      if (first.mode == Mode.EXCLUSIVE
          && held.size() == 1
          && !first.locks.conditions.isEmpty()
          && random.nextDouble() < 0.35) {
        condition(first);
      }
      work();
    } finally {
      releaseAll();
    }
  }

  /** A lock of {@code locks} for this section: the family decides which. */
  private Held pick(Locks locks) {
    return switch (locks.family) {
      case PLAIN -> new Held(locks, "plain", locks.plain, Mode.EXCLUSIVE);
      case FAIR -> new Held(locks, "fair", locks.fair, Mode.EXCLUSIVE);
      case MIXED ->
          random.nextBoolean()
              ? new Held(locks, "plain", locks.plain, Mode.EXCLUSIVE)
              : new Held(locks, "fair", locks.fair, Mode.EXCLUSIVE);
      case READ_WRITE ->
          random.nextDouble() < 0.6
              ? new Held(locks, "read", locks.readWrite.readLock(), Mode.READ)
              : new Held(locks, "write", locks.readWrite.writeLock(), Mode.EXCLUSIVE);
    };
  }

  /**
   * Takes {@code target} in a random form; {@code again}: the thread holds it already. Returns the
   * hold, or {@code null} when not taken.
   */
  private Held acquire(Held target, boolean again) {
    int form = random.nextInt(100);
    boolean preInterrupted = random.nextInt(100) < 3;
    String what;
    long timeoutMillis = 0;
    if (form < 25) {
      what = "lock()";
    } else if (form < 45) {
      what = "lockInterruptibly()";
    } else if (form < 65) {
      what = "tryLock()";
    } else {
      long[] choices = {-1, 0, 1, 5, 20, 100, 300};
      timeoutMillis = choices[random.nextInt(choices.length)];
      what = "tryLock(" + timeoutMillis + " ms)";
    }
    what = target + "." + what + (preInterrupted ? " interrupted" : "");
    int before = target.count;
    if (preInterrupted) {
      Thread.currentThread().interrupt();
    }
    Ticket ticket = model.begin(target.name(), what);
    boolean got = false;
    try {
      if (form < 25) {
        target.lock.lock();
        got = true;
        if (preInterrupted && !Thread.currentThread().isInterrupted()) {
          model.violation(target.name(), what + " returned without the interrupted status");
        }
      } else if (form < 45) {
        target.lock.lockInterruptibly();
        got = true;
        if (preInterrupted) {
          model.violation(target.name(), what + " took the lock although interrupted on entry");
        }
      } else if (form < 65) {
        got = target.lock.tryLock();
        if (preInterrupted && !Thread.currentThread().isInterrupted()) {
          model.violation(target.name(), what + " cleared the interrupted status");
        }
      } else {
        got = target.lock.tryLock(timeoutMillis, TimeUnit.MILLISECONDS);
        if (preInterrupted) {
          model.violation(target.name(), what + " returned although interrupted on entry");
        }
      }
      if (got) {
        model.acquired(ticket, target.mode, what);
      } else if (again) {
        model.violation(target.name(), what + " answered false to the thread holding it");
      } else {
        model.refused(ticket, what);
        if (form >= 65) {
          model.ghost(target.name()); // an attempt given up at the deadline may land late
        }
      }
    } catch (InterruptedException e) {
      model.ghost(target.name());
    } catch (RedisLockException e) {
      model.ghost(target.name());
    } catch (IllegalStateException e) {
      closedOr(target, what, e);
    } catch (LockLostException e) {
      lostOr(target, what, e);
    } finally {
      model.end(target.name());
      Thread.interrupted();
    }
    if (got) {
      target.count++;
      if (!again) {
        held.add(target);
      }
    }
    checkCount(target, what, got ? before + 1 : before);
    return got ? target : null;
  }

  /** A reader's write acquisition is refused at once: no upgrade. */
  private void upgradeIsRefused(Held reader) {
    Lock write = reader.locks.readWrite.writeLock();
    try {
      write.tryLock();
      model.violation(reader.name(), "an upgrade from the read lock was not refused");
      write.unlock();
    } catch (IllegalMonitorStateException expected) {
      // the documented answer
    } catch (IllegalStateException e) {
      closedOr(reader, "upgrade", e);
    }
  }

  private void askToken(Held hold) {
    Ticket since = model.begin(hold.name(), "getFencingToken()");
    try {
      hold.token = hold.fencingToken();
      model.fencingToken(since, hold.token, hold + ".getFencingToken()");
    } catch (RedisLockException e) {
      hold.token = 0;
    } catch (IllegalStateException e) {
      closedOr(hold, "getFencingToken()", e);
    } catch (LockLostException e) {
      lostOr(hold, "getFencingToken()", e);
    } finally {
      model.end(hold.name());
    }
  }

  /**
   * Fencing tokens are compared with holds released before the acquisition began; a token asked for
   * later in a hold is still greater than those, so the ticket of a new call is not needed: {@link
   * #askToken} uses a fresh one, whose snapshot is at least as high, which is stricter.
   */
  private void condition(Held hold) {
    int which = random.nextInt(hold.locks.conditions.size());
    Condition condition = hold.locks.conditions.get(which);
    String label = "condition " + which;
    if (random.nextDouble() < 0.45) {
      boolean all = random.nextInt(4) == 0;
      model.signalled(hold.name(), label);
      try {
        if (all) {
          condition.signalAll();
        } else {
          condition.signal();
        }
      } catch (RedisLockException e) {
        // the signal may or may not have been recorded: both are right
      } catch (IllegalStateException e) {
        closedOr(hold, "signal", e);
      }
      return;
    }
    int holds = hold.count;
    boolean preInterrupted = random.nextInt(100) < 3;
    long[] choices = {0, 20, 100, 300};
    long millis = choices[random.nextInt(choices.length)];
    int form = random.nextInt(3);
    String what =
        hold
            + (form == 0 ? ".awaitNanos(" : form == 1 ? ".await(" : ".awaitUntil(")
            + millis
            + " ms) of "
            + label
            + (preInterrupted ? " interrupted" : "");
    for (int i = 0; i < holds; i++) {
      model.releasing(hold.name(), Mode.EXCLUSIVE);
    }
    long since = model.now();
    Ticket ticket = model.begin(hold.name(), what);
    boolean timeLeft = false;
    boolean reacquired = true;
    if (preInterrupted) {
      Thread.currentThread().interrupt();
    }
    try {
      if (form == 0) {
        timeLeft = condition.awaitNanos(TimeUnit.MILLISECONDS.toNanos(millis)) > 0;
      } else if (form == 1) {
        timeLeft = condition.await(millis, TimeUnit.MILLISECONDS);
      } else {
        timeLeft = condition.awaitUntil(new Date(System.currentTimeMillis() + millis));
      }
      if (preInterrupted) {
        model.violation(hold.name(), what + " returned although interrupted on entry");
      }
    } catch (InterruptedException e) {
      timeLeft = false;
    } catch (RedisLockException e) {
      reacquired = hold.reportsHeld();
    } catch (IllegalStateException e) {
      reacquired = false;
      closedOr(hold, what, e);
    } catch (LockLostException e) {
      reacquired = false;
      lostOr(hold, what, e);
    } finally {
      Thread.interrupted();
      if (reacquired) {
        for (int i = 0; i < holds; i++) {
          model.acquired(ticket, Mode.EXCLUSIVE, what);
        }
      }
      model.end(hold.name());
    }
    if (!reacquired) {
      held.remove(hold);
      hold.count = 0;
      return;
    }
    hold.token = 0; // a new hold: its token, if asked, is a new one
    checkCount(hold, what, holds);
    if (timeLeft && (form != 0 || millis > 0)) {
      model.wokenWithTimeLeft(hold.name(), label, since, what);
    }
  }

  /** The section's work: mostly none, sometimes a little. */
  private void work() {
    int r = random.nextInt(100);
    if (r < 25) {
      LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(50 + random.nextInt(2_000)));
    } else if (r < 28) {
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5 + random.nextInt(30)));
    }
  }

  /** Releases every hold, innermost first, each as many times as it was taken. */
  private void releaseAll() {
    for (int i = held.size() - 1; i >= 0; i--) {
      Held hold = held.get(i);
      while (hold.count > 0) {
        release(hold);
      }
    }
    held.clear();
  }

  private void release(Held hold) {
    boolean interrupted = random.nextInt(100) < 3;
    String what = hold + ".unlock()" + (interrupted ? " interrupted" : "");
    int before = hold.count;
    model.releasing(hold.name(), hold.mode);
    Ticket ticket = model.begin(hold.name(), what);
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    try {
      hold.lock.unlock();
      hold.count--;
      if (hold.count == 0) {
        model.released(hold.name(), hold.token);
      }
    } catch (RedisLockException e) {
      hold.count = 0; // the local hold is cleared; the key may stay until its lease ends
      model.ghost(hold.name(), leaseNanos);
    } catch (LockLostException e) {
      hold.count = 0;
      lostOr(hold, what, e);
    } catch (IllegalStateException e) {
      hold.count = 0;
      closedOr(hold, what, e);
    } finally {
      Thread.interrupted();
      model.end(ticket.name());
    }
    if (hold.count > 0) {
      checkCount(hold, what, before - 1);
    } else if (hold.reportsHeld() && !factoryClosed.getAsBoolean()) {
      model.violation(hold.name(), what + ": the lock still reports the thread holding it");
    }
  }

  private void checkCount(Held hold, String what, int expected) {
    if (factoryClosed.getAsBoolean()) {
      return;
    }
    int reported = hold.reportedCount();
    if (reported != expected) {
      model.violation(
          hold.name(), "after " + what + " the hold count is " + reported + ", not " + expected);
    }
  }

  /** An {@link IllegalStateException} is right only once the factory is closed. */
  private void closedOr(Held hold, String what, IllegalStateException e) {
    if (factoryClosed.getAsBoolean()) {
      stopHere(hold);
    }
    model.violation(hold.name(), what + " threw " + describe(e));
  }

  /** A lost hold is right only when the factory closed (the faults are shorter than a lease). */
  private void lostOr(Held hold, String what, LockLostException e) {
    if (factoryClosed.getAsBoolean()) {
      stopHere(hold);
    }
    model.violation(hold.name(), what + " threw " + describe(e));
  }

  /**
   * The factory closed: it releases nothing, so every name this thread held, or was taking, may
   * stay held in Redis until its lease ends; the worker stops.
   */
  private void stopHere(Held current) {
    model.ghost(current.name(), leaseNanos);
    for (Held hold : held) {
      model.ghost(hold.name(), leaseNanos);
      hold.count = 0;
    }
    held.clear();
    throw new FactoryClosed();
  }

  private static String describe(Throwable e) {
    return e.getClass().getSimpleName() + ": " + e.getMessage();
  }

  /** The worker's factory was closed: it stops. */
  private static final class FactoryClosed extends RuntimeException {
    private static final long serialVersionUID = 1L;

    FactoryClosed() {
      super(null, null, false, false);
    }
  }
}
