package io.github.redislock.internal.condition;

import io.github.redislock.LockLostException;
import io.github.redislock.RedisLockException;
import io.github.redislock.internal.Hold;
import io.github.redislock.internal.Lifecycle;
import io.github.redislock.internal.LossReporter;
import io.github.redislock.internal.Mutexes;
import io.github.redislock.internal.PendingSignals;
import io.github.redislock.internal.Releases;
import io.github.redislock.internal.backend.ConditionKeys;
import io.github.redislock.internal.backend.ConditionQueue;
import io.github.redislock.internal.backend.ConditionQueue.SignalledRelease;
import io.github.redislock.internal.backend.Failures;
import io.github.redislock.internal.backend.LockKeys;
import io.github.redislock.internal.backend.Release;
import io.github.redislock.internal.kind.FairKind;
import io.github.redislock.internal.util.Backoff;
import io.github.redislock.internal.util.Ticker;
import io.github.redislock.internal.wakeup.WakeUpHub;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The conditions of one family of locks ({@link Mutexes}) in one factory: what their awaits share.
 * The awaiters of this JVM, by id, so that a signal given here wakes them at once (the signal's
 * message, on the condition's channel, wakes them too, a moment later); the signalled awaiters that
 * are taking their lock again, whose signals it keeps from passing on; and the clean-up of used
 * signals in the background.
 */
public final class Conditions {
  /** An awaiter of this JVM, as the conditions it waits on know it. */
  interface Awaiter {
    /** Its id: its entry in its condition's queue, and the address of the messages for it. */
    String id();

    /** The condition it waits on. */
    ConditionKeys keys();

    /** The keys of the lock it gave up to wait. */
    LockKeys lockKeys();

    /** A signal was given to it in this JVM. */
    void deliver();

    /**
     * A {@code signalAll()} given in this JVM signalled its condition's awaiters up to {@code
     * upTo}.
     */
    void deliverUpTo(long upTo);

    /** The factory closes: it leaves its queue, if it still waits. */
    void leaveAtClose();
  }

  private static final Logger log = LoggerFactory.getLogger(Conditions.class);

  final Mutexes family;
  final ConditionQueue queue;
  final WakeUpHub wakeUps;
  final Releases releases;
  final Lifecycle lifecycle;
  final Ticker ticker;
  private final LossReporter losses;
  private final long leaseNanos;

  /** Runs the conditions' bookkeeping (renewing entries, removing used signals, leaving). */
  private final Executor io;

  /** The kind of the family's locks: how an await's or a signal's release releases them. */
  final ConditionQueue.Kind kind;

  /** How often a waiting awaiter renews its entry: a third of the lease. */
  final long renewNanos;

  /** How a signal sent after it was given is named when its hold is found lost. */
  private static final String PENDING = "conditions, given earlier";

  private final Map<String, Awaiter> local = new ConcurrentHashMap<>();

  /** How many awaiters of this JVM wait on each condition: a signal to one of them is not held. */
  private final Map<ConditionKeys, Integer> localCounts = new ConcurrentHashMap<>();

  private final Set<Awaiter> reacquiring = ConcurrentHashMap.newKeySet();

  /**
   * How long a used signal waits for its removal, so that the removals of a burst of awaits go
   * together: each await handing work to an I/O thread at once would wake one, which on a machine
   * with few CPUs delays the awaiter's return (by some 10 µs on a 2-CPU VM). The signal's lease is
   * far longer.
   */
  private static final long DONE_DELAY_MILLIS = 10;

  /** Used signals whose removal is queued: run by the next drain, or at close if still queued. */
  private final Set<Done> unfinished = ConcurrentHashMap.newKeySet();

  private final AtomicBoolean keeping = new AtomicBoolean();
  private final Executor keeper;
  private final AtomicBoolean draining = new AtomicBoolean();
  private final Executor drainer;
  private final LongAdder unsignalledWakeUps = new LongAdder();

  /**
   * The conditions of {@code family}.
   *
   * @param kind how the family's locks are released by an await or a signal
   * @param queue the conditions' operations in Redis
   * @param leaseNanos the lease of every hold, and of every awaiter's entry
   * @param io runs the conditions' bookkeeping
   */
  public Conditions(
      Mutexes family,
      ConditionQueue.Kind kind,
      ConditionQueue queue,
      long leaseNanos,
      Executor io,
      WakeUpHub wakeUps,
      Releases releases,
      LossReporter losses,
      Lifecycle lifecycle,
      Ticker ticker) {
    this.family = family;
    this.queue = queue;
    this.kind = kind;
    this.leaseNanos = leaseNanos;
    this.io = io;
    this.wakeUps = wakeUps;
    this.releases = releases;
    this.losses = losses;
    this.lifecycle = lifecycle;
    this.ticker = ticker;
    this.renewNanos = leaseNanos / 3;
    this.keeper = CompletableFuture.delayedExecutor(renewNanos, TimeUnit.NANOSECONDS, io);
    this.drainer = CompletableFuture.delayedExecutor(DONE_DELAY_MILLIS, TimeUnit.MILLISECONDS, io);
  }

  /** An awaiter of this JVM starts waiting. */
  void enter(Awaiter wait) {
    localCounts.merge(wait.keys(), 1, Integer::sum);
    local.put(wait.id(), wait);
  }

  /** An awaiter of this JVM stopped waiting. */
  void exit(Awaiter wait) {
    if (local.remove(wait.id(), wait)) {
      localCounts.computeIfPresent(wait.keys(), (keys, n) -> n == 1 ? null : n - 1);
    }
  }

  // ---- signals ----

  /**
   * A signal ({@code all}: {@code signalAll}) of {@code condition} by the holder of {@code hold}.
   * While an awaiter of this JVM waits on the condition, it is recorded in Redis now, so that a
   * local awaiter it wakes can take the lock from its signaller without a round trip (by local
   * handoff); otherwise it travels with the hold's release ({@link #release}), so that the awaiter
   * it wakes, in another process, finds the lock free.
   *
   * @throws LockLostException if Redis finds the lock key gone or taken (the hold is given up)
   */
  void signal(Hold hold, String description, ConditionKeys condition, boolean all) {
    if (localCounts.containsKey(condition)) {
      signalNow(hold, description, condition, all);
    } else {
      hold.pendingSignals(pending -> release(hold, pending)).add(condition, all);
    }
  }

  /**
   * Records the hold's pending signals in Redis now, before its holder awaits: an await's release
   * carries none. On failure the signals not recorded stay pending.
   *
   * @throws LockLostException if Redis finds the lock key gone or taken (the hold is given up)
   * @throws RedisLockException if Redis could not be reached: the lock is still held
   */
  void flush(Hold hold) {
    PendingSignals pending = hold.pendingSignals();
    if (pending == null) {
      return;
    }
    Iterator<Map.Entry<ConditionKeys, Integer>> signals = pending.counts().entrySet().iterator();
    while (signals.hasNext()) {
      Map.Entry<ConditionKeys, Integer> signal = signals.next();
      send(hold, signal.getKey(), signal.getValue());
      signals.remove();
    }
    hold.takePendingSignals();
  }

  /**
   * How the holder's release sends its pending signals: the signals of every condition but the last
   * one first, then the last one's with the release, in one script (retried as a release is). The
   * local awaiters they woke are told once the lock is free. A hold found not ours gives {@link
   * Release#NOT_OURS}, with nobody signalled.
   */
  Release release(Hold hold, PendingSignals pending) {
    Iterator<Map.Entry<ConditionKeys, Integer>> signals = pending.counts().entrySet().iterator();
    Map.Entry<ConditionKeys, Integer> last = signals.next();
    while (signals.hasNext()) {
      Map.Entry<ConditionKeys, Integer> signal = last;
      last = signals.next();
      try {
        send(hold, signal.getKey(), signal.getValue());
      } catch (LockLostException e) {
        return Release.NOT_OURS;
      }
    }
    ConditionKeys condition = last.getKey();
    int count = last.getValue();
    // The script hands the lock over only when the lock's channel has no listener but ours. Ours
    // counts only once the server confirmed it: a subscription asked for and not yet made (or being
    // made again) is not among the server's listeners, and counting it would take another client's
    // listener for ours.
    int own = wakeUps.isActive(hold.keys.channel()) ? 1 : 0;
    SignalledRelease[] answer = new SignalledRelease[1];
    Release release =
        releases.releaseWithRetry(
            hold,
            h -> {
              answer[0] = queue.signalAndRelease(h.keys, kind, condition, h.token, count, own);
              return answer[0].release();
            });
    SignalledRelease signalled = answer[0];
    if (release.released() && signalled != null && signalled.release().released()) {
      for (String awaiter : signalled.awaiters()) {
        signalledHere(condition, new ConditionQueue.Signalled(true, awaiter, 0));
      }
      if (signalled.upTo() > 0) {
        signalledHere(condition, new ConditionQueue.Signalled(true, null, signalled.upTo()));
      }
    }
    return release;
  }

  /** {@code count} signals (0: all) recorded now, retried once after a transient failure. */
  private void send(Hold hold, ConditionKeys condition, int count) {
    if (count == PendingSignals.ALL) {
      signalNow(hold, PENDING, condition, true);
      return;
    }
    for (int i = 0; i < count; i++) {
      if (!signalNow(hold, PENDING, condition, false)) {
        return; // nobody else waits
      }
    }
  }

  /**
   * One signal recorded in Redis now, retried once after a transient failure (a second awaiter may
   * then be woken: a spurious wake-up, where not retrying could lose the signal).
   *
   * @return whether an awaiter was signalled
   */
  private boolean signalNow(Hold hold, String description, ConditionKeys condition, boolean all) {
    ConditionQueue.Signalled signalled;
    try {
      signalled = queue.signal(hold.keys, condition, hold.token, all);
    } catch (RedisLockException first) {
      if (!Failures.isTransient(first)) {
        throw first;
      }
      try {
        signalled = queue.signal(hold.keys, condition, hold.token, all);
      } catch (RedisLockException second) {
        second.addSuppressed(first);
        throw second;
      }
    }
    if (!signalled.holder()) {
      losses.lose(hold, LossReporter.NOT_OURS);
      throw new LockLostException(
          hold.name, LossReporter.NOT_OURS + " before a signal of its " + description);
    }
    signalledHere(condition, signalled);
    return signalled.awaiter() != null || signalled.upTo() > 0;
  }

  /** A signal given in this JVM: wakes the awaiters of this JVM it signalled, without waiting. */
  void signalledHere(ConditionKeys keys, ConditionQueue.Signalled signalled) {
    if (signalled.awaiter() != null) {
      Awaiter wait = local.get(signalled.awaiter());
      if (wait != null) {
        wait.deliver();
      }
    } else if (signalled.upTo() > 0) {
      for (Awaiter wait : local.values()) {
        if (wait.keys().equals(keys)) {
          wait.deliverUpTo(signalled.upTo());
        }
      }
    }
  }

  /** A woken awaiter that was not signalled as far as Redis knows: a spurious wake-up. */
  void unsignalledWakeUp() {
    unsignalledWakeUps.increment();
  }

  /** Spurious wake-ups so far. */
  long unsignalledWakeUps() {
    return unsignalledWakeUps.sum();
  }

  // ---- awaits that will not take their signal ----

  /**
   * An await that will take neither a signal nor the lock, and may have left its entry in Redis
   * (its enqueueing failed after it may have run; its cancel failed): the entry leaves the queue in
   * the background, so that it does not take a signal, or with it the lock, from the awaiters that
   * wait. A signal it had passes on at once, and a lock handed to it is released. A transient
   * failure is retried with a back-off until the entry's lease would have run out.
   */
  void abandon(Awaiter wait) {
    new Abandon(wait, ticker.read() + leaseNanos).schedule(0);
  }

  /** The removal of an abandoned await's entry, retried until it answers or the entry ran out. */
  private final class Abandon {
    final Awaiter wait;
    final long until;
    final Backoff backoff = new Backoff();

    Abandon(Awaiter wait, long until) {
      this.wait = wait;
      this.until = until;
    }

    /** Runs an attempt on an I/O thread, after {@code delayNanos}. */
    void schedule(long delayNanos) {
      try {
        CompletableFuture.delayedExecutor(delayNanos, TimeUnit.NANOSECONDS, io)
            .execute(this::attempt);
      } catch (RejectedExecutionException e) {
        log.debug("factory closed; the entry of {} runs out with its lease", wait);
      }
    }

    private void attempt() {
      try {
        queue.abandon(wait.lockKeys(), kind, wait.keys(), wait.id());
      } catch (RedisLockException e) {
        if (Failures.isTransient(e) && ticker.read() - until < 0) {
          log.debug("could not take {} out of its queue; retrying", wait, e);
          schedule(backoff.nextNanos());
        } else {
          log.debug("could not take {} out of its queue; it runs out with its lease", wait, e);
        }
      }
    }
  }

  // ---- signals in use ----

  /**
   * A signalled awaiter takes its lock again: its signal is renewed every third of the lease until
   * {@link #reacquired}, so that it does not pass on to another awaiter meanwhile.
   */
  void reacquiring(Awaiter wait) {
    reacquiring.add(wait);
    if (keeping.compareAndSet(false, true)) {
      schedule();
    }
  }

  /**
   * The awaiter holds its lock again ({@code used}), or gave up: its signal is removed in the
   * background a moment later (with the others used meanwhile), or left to pass on when its lease
   * runs out.
   */
  void reacquired(Awaiter wait, boolean used) {
    reacquiring.remove(wait);
    if (used) {
      unfinished.add(new Done(wait));
      if (draining.compareAndSet(false, true)) {
        try {
          drainer.execute(this::drain);
        } catch (RejectedExecutionException e) {
          draining.set(false); // the factory is closing: close() removes them
        }
      }
    }
  }

  /** Removes the used signals queued; one queued from now on schedules the next drain. */
  private void drain() {
    draining.set(false);
    for (Done done : unfinished) {
      quietly(() -> finish(done), done.wait);
    }
  }

  /** The removal of a used signal. */
  private final class Done implements Runnable {
    final Awaiter wait;

    Done(Awaiter wait) {
      this.wait = wait;
    }

    @Override
    public void run() {
      queue.done(wait.lockKeys(), wait.keys(), wait.id());
    }
  }

  private void finish(Done done) {
    if (unfinished.remove(done)) {
      done.run();
    }
  }

  /**
   * The factory closes: the awaits of this JVM still waiting leave their queues (see {@link
   * Awaiter#leaveAtClose}), in parallel, for a bounded time; then the used signals whose removal
   * has not run yet are removed, so that none passes on to another awaiter later, stopping at the
   * first failure (they run out with their lease).
   */
  void close() {
    List<CompletableFuture<Void>> leaving = new ArrayList<>();
    for (Awaiter wait : local.values()) {
      try {
        leaving.add(CompletableFuture.runAsync(wait::leaveAtClose, io));
      } catch (RejectedExecutionException e) {
        wait.leaveAtClose();
      }
    }
    try {
      CompletableFuture.allOf(leaving.toArray(CompletableFuture[]::new))
          .get(FairKind.LEAVE_AT_CLOSE_MILLIS, TimeUnit.MILLISECONDS);
    } catch (TimeoutException | ExecutionException e) {
      log.debug("the awaits of a closing factory did not all leave; they run out with their lease");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    try {
      for (Done done : unfinished) {
        finish(done);
      }
    } catch (RuntimeException e) {
      log.debug("could not remove the used signals of awaits; they run out with their lease", e);
    }
  }

  private void schedule() {
    try {
      keeper.execute(this::renewSignals);
    } catch (RejectedExecutionException e) {
      keeping.set(false); // the factory is closing
    }
  }

  private void renewSignals() {
    for (Awaiter wait : reacquiring) {
      background(() -> queue.renew(wait.lockKeys(), wait.keys(), wait.id()), wait);
    }
    if (!reacquiring.isEmpty()) {
      schedule();
      return;
    }
    keeping.set(false);
    if (!reacquiring.isEmpty() && keeping.compareAndSet(false, true)) {
      schedule(); // one came while the keeper stopped
    }
  }

  private void background(Runnable call, Awaiter wait) {
    try {
      io.execute(() -> quietly(call, wait));
    } catch (RejectedExecutionException e) {
      log.debug("factory closed; the signal of {} runs out with its lease", wait);
    }
  }

  private static void quietly(Runnable call, Awaiter wait) {
    try {
      call.run();
    } catch (RuntimeException e) {
      log.debug("could not update the signal of {}; it runs out with its lease", wait, e);
    }
  }
}
