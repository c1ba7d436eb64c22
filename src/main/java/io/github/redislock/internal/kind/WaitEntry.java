package io.github.redislock.internal.kind;

import io.github.redislock.internal.backend.Acquisition;
import io.github.redislock.internal.backend.Failures;
import io.github.redislock.internal.backend.LockKeys;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One wait's entry in Redis, which its attempts queue and renew while it waits: a fair waiter's
 * place ({@link FairKind}), a waiting writer's intent ({@link WriteKind}). A wait that gives up
 * (times out, is interrupted, or its factory closes) takes its entry out in the calling thread,
 * before its call returns, so that a waiter that has returned holds nothing in Redis: no entry, and
 * no lock handed to it or taken by an attempt of its that was still on its way.
 *
 * <p>An attempt may reach Redis after its wait gave up: a timed attempt runs on the I/O executor
 * and its caller stops waiting for it at the deadline, and an attempt whose reply was lost may have
 * run or may still run. So the wait counts its attempts that have no reply; taking the entry out
 * while one has none also bars the wait's id in Redis for a lease (an attempt that arrives later
 * takes nothing and queues nothing), and gives up the lock if such an attempt took it already. The
 * last of them to be answered takes the bar out again; a bar whose attempt never answered ends with
 * its lease. An attempt that starts after its wait gave up is not sent.
 */
abstract class WaitEntry implements Attempts, WaitEntries.Entry {
  private static final Logger log = LoggerFactory.getLogger(WaitEntry.class);

  /** The wait's id, the same for all its attempts: the entry's member in Redis. */
  final String id;

  /** The kind whose lock this entry waits for: it releases a token nobody will use. */
  private final LockKind kind;

  private final WaitEntries entries;
  private final Executor io;

  // Guarded by this: the wait's state, read and changed together, never across a Redis call.
  private boolean left;
  private int unanswered;
  private boolean barred;

  /**
   * Whether the take-out that sets the bar has not returned yet: an attempt answered meanwhile
   * leaves the bar to that take-out to lift (lifted before it was set, it would stay a lease).
   */
  private boolean barring;

  private String lastToken;
  private LockKeys reached;

  /**
   * The entry of one wait.
   *
   * @param kind the kind that renews, releases and fences the holds the wait acquires
   * @param entries the entries of the kind's waits not over yet, which this one joins (the kind
   *     adds it once made)
   * @param io where an entry is taken out when the calling thread could not do it
   * @param id the wait's id
   */
  WaitEntry(LockKind kind, WaitEntries entries, Executor io, String id) {
    this.kind = kind;
    this.entries = entries;
    this.io = io;
    this.id = id;
  }

  /** One attempt with {@code token}: acquires, or queues the entry (or renews it) and tells why. */
  abstract Acquisition attempt(LockKeys keys, String token);

  /**
   * Takes the entry out: the leave script.
   *
   * @param unsettled the token of an attempt that may still reach Redis: the wait's id is barred,
   *     and a lock that token holds is given up; {@code null} when every attempt was answered
   */
  abstract void takeOut(LockKeys keys, String unsettled);

  @Override
  public final Acquisition tryAcquire(LockKeys keys, String token, boolean expectBusy) {
    synchronized (this) {
      if (left) {
        return Acquisition.busy(0, false); // not sent: the wait is over
      }
      unanswered++;
      lastToken = token;
      reached = keys;
    }
    Acquisition attempt;
    try {
      attempt = attempt(keys, token);
    } catch (RuntimeException e) {
      if (Failures.certainlyNotRun(e) || Failures.permanentCause(e) != null) {
        answered(keys); // not run, or ran and failed: nothing of it can reach Redis later
      }
      // Any other failure leaves the attempt unanswered: its command may have run, or may still.
      throw e;
    }
    boolean unbar;
    synchronized (this) {
      unanswered--;
      unbar = left && barred && !barring && unanswered == 0;
      if (unbar) {
        barred = false;
      }
      if (attempt.acquired()) {
        entries.remove(this);
      } else if (!left) {
        entries.add(this); // again, after a hand-over that came too late to be taken
      }
    }
    if (unbar) {
      takeOutQuietly(keys, null); // the wait left while this attempt was on its way
    }
    return attempt;
  }

  /** An attempt failed in a way that tells it will never reach Redis, or reached it already. */
  private void answered(LockKeys keys) {
    boolean unbar;
    synchronized (this) {
      unanswered--;
      unbar = left && barred && !barring && unanswered == 0;
      if (unbar) {
        barred = false;
      }
    }
    if (unbar) {
      takeOutQuietly(keys, null);
    }
  }

  /**
   * Takes the entry out, barring the wait's id when an attempt was unanswered; once that take-out
   * returned, lifts the bar if every attempt was answered meanwhile.
   */
  private void takeOutThenUnbar(Leaving leaving) {
    try {
      takeOut(leaving.keys, leaving.unsettled);
    } finally {
      if (leaving.unsettled != null) {
        boolean unbar;
        synchronized (this) {
          barring = false;
          unbar = barred && unanswered == 0;
          if (unbar) {
            barred = false;
          }
        }
        if (unbar) {
          takeOutQuietly(leaving.keys, null);
        }
      }
    }
  }

  @Override
  public final void releaseToken(LockKeys keys, String token) {
    kind.releaseToken(keys, token);
  }

  @Override
  public final void leave(LockKeys keys) {
    Leaving leaving = markLeft();
    if (leaving == null) {
      return;
    }
    try {
      takeOutThenUnbar(leaving);
    } catch (RuntimeException e) {
      log.debug(
          "could not take out the entry of a wait for '{}'; trying in the background", keys, e);
      try {
        io.execute(() -> takeOutQuietly(leaving));
      } catch (RejectedExecutionException rejected) {
        log.debug("factory closed; the entry of a wait for '{}' ends with its lease", keys);
      }
    }
  }

  /**
   * The factory is closing: marks the wait left, as {@link #leave} does, and tells how to take its
   * entry out.
   *
   * @return the leaving to run, or {@code null} when the wait left already or sent no attempt
   */
  @Override
  public final Runnable leaveAtClose() {
    Leaving leaving = markLeft();
    return leaving == null ? null : () -> takeOutQuietly(leaving);
  }

  /**
   * Marks the wait left, once: its attempts are not sent any more.
   *
   * @return what taking its entry out needs; {@code null} when it left already, or sent no attempt
   */
  private synchronized Leaving markLeft() {
    if (left) {
      return null;
    }
    left = true;
    entries.remove(this);
    if (reached == null) {
      return null;
    }
    barred = unanswered > 0;
    barring = barred;
    return new Leaving(reached, barred ? lastToken : null);
  }

  /** The keys of the wait's entry, and the token of an attempt that may still reach Redis. */
  private record Leaving(LockKeys keys, String unsettled) {}

  /** The wait acquired without an attempt of its own (a release handed it the lock). */
  final void acquiredByHandOver() {
    entries.remove(this);
  }

  private void takeOutQuietly(Leaving leaving) {
    try {
      takeOutThenUnbar(leaving);
    } catch (RuntimeException e) {
      log.debug(
          "could not take out the entry of a wait for '{}'; it ends with its lease",
          leaving.keys,
          e);
    }
  }

  private void takeOutQuietly(LockKeys keys, String unsettled) {
    try {
      takeOut(keys, unsettled);
    } catch (RuntimeException e) {
      log.debug("could not take out the entry of a wait for '{}'; it ends with its lease", keys, e);
    }
  }
}
