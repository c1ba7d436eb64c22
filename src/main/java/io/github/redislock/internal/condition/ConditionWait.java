package io.github.redislock.internal.condition;

import io.github.redislock.RedisLockException;
import io.github.redislock.internal.Hold;
import io.github.redislock.internal.LockName;
import io.github.redislock.internal.Mode;
import io.github.redislock.internal.backend.ConditionKeys;
import io.github.redislock.internal.backend.ConditionQueue;
import io.github.redislock.internal.backend.ConditionQueue.Standing;
import io.github.redislock.internal.backend.Failures;
import io.github.redislock.internal.backend.LockKeys;
import io.github.redislock.internal.backend.Release;
import io.github.redislock.internal.util.Backoff;
import io.github.redislock.internal.util.Tokens;
import io.github.redislock.internal.wakeup.Signal;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One {@code await} on a condition, by the thread that holds its lock: one object per call, whose
 * fields are the state that lasts through it.
 *
 * <p>The awaiter registers for the condition's channel, then enqueues itself in Redis and releases
 * the lock in one script (so no signal can fall between the two), giving up its holds in the JVM
 * too. It waits for a message naming it ({@code to:<id>}, or {@code all:<n>} for every awaiter
 * numbered n or less), delivered by the factory's one subscription to the channel, or by a signal
 * given in this JVM: a named awaiter knows it was signalled without asking Redis. Every third of
 * the lease, and when the channel's subscription (re)starts or fails, it renews its entry, whose
 * reply also tells whether it was signalled. A deadline or an interrupt cancels the entry; the
 * cancel script decides whether a signal came first, in which case the signal is the awaiter's (as
 * in {@code AbstractQueuedSynchronizer.ConditionObject}: interrupted before the signal, the await
 * throws; after it, the interrupt status is set again). Then the awaiter takes the lock again with
 * the family's own acquisition, uninterruptibly, and restores its hold count; meanwhile its signal
 * is kept from passing on, and once it holds the lock the signal is removed in the background.
 */
final class ConditionWait implements Conditions.Awaiter {
  private static final Logger log = LoggerFactory.getLogger(ConditionWait.class);
  private static final String ALL = "all:";
  private static final String HELD = "held:";

  private final Conditions conditions;
  private final Mode mode;
  private final long deadline;
  final LockName lock;
  final ConditionKeys keys;
  final String id = Tokens.next();
  private final String address = Signal.TO + id;
  private final String heldAddress = HELD + id;
  private final String description;

  /** Checks, once the thread was found to hold the lock, that it may await (else throws). */
  private final Runnable beforeAwait;

  /** The greatest {@code all:<n>} heard: it may come before this awaiter knows its number. */
  private final AtomicLong allUpTo = new AtomicLong();

  private volatile long sequence;
  private volatile boolean delivered;

  /** Whether the release that signalled it handed it the lock: the key holds {@link #id}. */
  private volatile boolean handed;

  /**
   * When the last call that renewed its entry started (the await, or a renewal that found it
   * waiting): a handed key expires when the entry would have, so its lease counts from then.
   */
  private long entrySince;

  private Signal signal;

  // The outcome.
  private boolean signalled;
  private boolean interrupted;

  /**
   * An await of the calling thread.
   *
   * @param mode {@code UNINTERRUPTIBLE}, {@code INTERRUPTIBLE}, or {@code TIMED} until {@code
   *     deadline}
   */
  ConditionWait(
      Conditions conditions,
      LockName lock,
      ConditionKeys keys,
      String description,
      Runnable beforeAwait,
      Mode mode,
      long deadline) {
    this.conditions = conditions;
    this.lock = lock;
    this.keys = keys;
    this.description = description;
    this.beforeAwait = beforeAwait;
    this.mode = mode;
    this.deadline = deadline;
  }

  /**
   * Releases the lock, waits, and takes the lock again with the hold count it had.
   *
   * @return whether the awaiter was signalled (or woken spuriously); {@code false} when its time
   *     ran out first
   * @throws InterruptedException if interrupted before a signal, in an interruptible mode: thrown
   *     with the lock held again
   */
  boolean run() throws InterruptedException {
    Hold held = conditions.family.heldHold(lock); // not held: IllegalMonitorStateException
    beforeAwait.run();
    try {
      conditions.queue.checkAccess(lock.keys); // NOPERM: thrown while the lock is still held
    } catch (RedisLockException e) {
      if (!Failures.isTransient(e)) {
        throw e;
      }
      // Redis is unreachable: the await's own call meets it, and gives the hold up as it says.
    }
    conditions.flush(held); // signals given under the hold: recorded before it is given up
    String channel = keys.channel();
    signal = conditions.wakeUps.routedSignal(this::isFor);
    conditions.wakeUps.subscribe(channel, signal, conditions.wakeUps.epoch(channel));
    conditions.enter(this);
    int holds;
    try {
      if (conditions.wakeUps.isActive(channel)) {
        signal.await(0); // an earlier activation: a signal after the enqueue will be heard
      }
      holds = conditions.family.releaseAll(lock, this::enqueue);
      waitForSignal();
    } finally {
      conditions.wakeUps.forget(signal, channel, true);
      conditions.exit(this);
    }
    if (signalled) {
      conditions.reacquiring(this);
    }
    boolean reacquired = false;
    try {
      if (!(signalled && handed && takeHanded(holds))) {
        conditions.family.reacquire(lock, holds);
      }
      reacquired = true;
    } finally {
      if (signalled) {
        conditions.reacquired(this, reacquired);
      }
    }
    if (interrupted) {
      if (!signalled && mode != Mode.UNINTERRUPTIBLE) {
        Thread.interrupted();
        throw new InterruptedException();
      }
      Thread.currentThread().interrupt();
    }
    return signalled;
  }

  /**
   * Takes the hold the signal's release handed over, without a round trip; else (another thread of
   * this JVM owns the local lock, and may be waiting for Redis, or the lease is gone) gives it
   * back.
   */
  private boolean takeHanded(int holds) {
    if (conditions.family.takeHanded(lock, holds, id, entrySince)) {
      return true;
    }
    conditions.releases.releaseQuietly(conditions.family.kind(), lock.keys, id);
    return false;
  }

  /** The await script, for {@link Mutexes#releaseAll}: enqueues and releases; retried once. */
  private Release enqueue(Hold hold) {
    interrupted |= Thread.interrupted(); // acted on once released; a pooled call would fail now
    entrySince = conditions.ticker.read();
    ConditionQueue.Enqueued enqueued;
    try {
      enqueued = enqueueOnce(hold);
    } catch (RedisLockException first) {
      if (!Failures.isTransient(first)) {
        throw first; // refused: nothing was written
      }
      try {
        enqueued = enqueueOnce(hold); // same id: a first call that ran is found, not repeated
      } catch (RedisLockException second) {
        second.addSuppressed(first);
        // Either call may have run: this awaiter may be queued, and it will not wait.
        conditions.abandon(this);
        throw second;
      }
    }
    if (enqueued.signalled()) {
      handed = enqueued.handed();
      delivered = true;
    } else if (enqueued.sequence() > 0) {
      sequence = enqueued.sequence();
      if (enqueued.sequence() <= allUpTo.get()) {
        delivered = true;
      }
    }
    return enqueued.release();
  }

  private ConditionQueue.Enqueued enqueueOnce(Hold hold) {
    return conditions.queue.await(lock.keys, conditions.kind, keys, hold.token, id);
  }

  /** Waits until signalled, the deadline, or an interrupt (in an interruptible mode). */
  private void waitForSignal() {
    long renewAt = conditions.ticker.read() + conditions.renewNanos;
    Backoff backoff = null;
    boolean raised = false;
    while (!delivered) {
      conditions.lifecycle.checkOpen();
      interrupted |= Thread.interrupted();
      long now = conditions.ticker.read();
      if ((interrupted && mode != Mode.UNINTERRUPTIBLE)
          || (mode == Mode.TIMED && deadline - now <= 0)) {
        cancel();
        return;
      }
      if (raised || now - renewAt >= 0) {
        try {
          Standing standing = conditions.queue.renew(lock.keys, keys, id);
          if (standing == Standing.WAITING) {
            entrySince = now;
          } else {
            handed |= standing == Standing.HELD;
            if (standing == Standing.GONE && !delivered) {
              conditions.unsignalledWakeUp(); // its entry ran out: it may have missed a signal
            }
            signalled = true;
            return;
          }
          backoff = null;
          renewAt = now + conditions.renewNanos;
        } catch (RedisLockException e) {
          log.debug("could not renew {}; retrying", this, e);
          backoff = backoff == null ? new Backoff() : backoff;
          renewAt = now + backoff.nextNanos();
        }
      }
      long wait = renewAt - now;
      if (mode == Mode.TIMED) {
        wait = Math.min(wait, deadline - now);
      }
      raised = signal.await(wait) && !delivered;
    }
    signalled = true;
  }

  /** Stops waiting: the cancel script says whether a signal came first. */
  private void cancel() {
    try {
      Standing standing = conditions.queue.cancel(lock.keys, keys, id);
      handed |= standing == Standing.HELD;
      signalled = standing == Standing.SIGNALLED || standing == Standing.HELD;
    } catch (RedisLockException e) {
      // Unknown: signalled only if a signal's message came. Otherwise it returns unsignalled, and
      // its entry, if still there, leaves in the background: a signal it may have had passes on.
      log.debug("could not cancel {}; it leaves the queue in the background", this, e);
      signalled = delivered;
      if (!signalled) {
        conditions.abandon(this);
      }
    }
  }

  /**
   * The factory closes while this await waits: its entry leaves the queue now, rather than when its
   * lease runs out, so that no signal (nor, with it, the lock) goes to an awaiter that will not
   * take it. A signal it had passes on to the next awaiter at once, and a lock handed to it is
   * released (its thread cannot take either: every acquisition of a closed factory fails). Called
   * by the closing thread; failures are left to the lease.
   */
  @Override
  public void leaveAtClose() {
    try {
      conditions.queue.abandon(lock.keys, conditions.kind, keys, id);
    } catch (RuntimeException e) {
      log.debug("could not take {} out of its queue at close; it runs out with its lease", this, e);
    }
  }

  // ---- wake-ups ----

  /** Whether a message on the condition's channel wakes this awaiter (subscription thread). */
  private boolean isFor(String message) {
    if (message == null) {
      return false;
    }
    if (message.equals(address)) {
      delivered = true;
      return true;
    }
    if (message.equals(heldAddress)) {
      handed = true;
      delivered = true;
      return true;
    }
    if (message.startsWith(ALL)) {
      try {
        return signalledUpTo(Long.parseLong(message.substring(ALL.length())));
      } catch (NumberFormatException e) {
        return false;
      }
    }
    return false;
  }

  /** Signalled by name, in this JVM. */
  @Override
  public void deliver() {
    delivered = true;
    signal.raise();
  }

  /** Every awaiter numbered {@code upTo} or less was signalled, in this JVM. */
  @Override
  public void deliverUpTo(long upTo) {
    if (signalledUpTo(upTo)) {
      signal.raise();
    }
  }

  private boolean signalledUpTo(long upTo) {
    allUpTo.accumulateAndGet(upTo, Math::max);
    long mine = sequence;
    if (mine > 0 && mine <= upTo) {
      delivered = true;
      return true;
    }
    return false;
  }

  @Override
  public String id() {
    return id;
  }

  @Override
  public ConditionKeys keys() {
    return keys;
  }

  @Override
  public LockKeys lockKeys() {
    return lock.keys;
  }

  @Override
  public String toString() {
    return "an await on " + description + " (" + id + ")";
  }
}
