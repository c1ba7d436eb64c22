package io.github.redislock.internal;

import io.github.redislock.internal.backend.ConditionKeys;
import io.github.redislock.internal.backend.ConditionQueue;
import io.github.redislock.internal.backend.LockKeys;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
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
final class Conditions {
  private static final Logger log = LoggerFactory.getLogger(Conditions.class);

  final Toolkit toolkit;
  final Mutexes family;
  final ConditionQueue queue;
  final boolean fair;

  /** How often a waiting awaiter renews its entry: a third of the lease. */
  final long renewNanos;

  private final Map<String, ConditionWait> local = new ConcurrentHashMap<>();
  private final Set<ConditionWait> reacquiring = ConcurrentHashMap.newKeySet();

  /** Used signals whose removal is queued on the I/O threads: run at close if still queued. */
  private final Set<Runnable> unfinished = ConcurrentHashMap.newKeySet();

  private final AtomicBoolean keeping = new AtomicBoolean();
  private final Executor keeper;
  private final LongAdder unsignalledWakeUps = new LongAdder();

  /**
   * The conditions of {@code family}.
   *
   * @throws UnsupportedOperationException where the backend has none (Redlock)
   */
  Conditions(Toolkit toolkit, Mutexes family, boolean fair) {
    this.toolkit = toolkit;
    this.family = family;
    this.queue = toolkit.backend().conditionQueue();
    this.fair = fair;
    this.renewNanos = toolkit.settings().leaseNanos / 3;
    this.keeper =
        CompletableFuture.delayedExecutor(
            renewNanos, TimeUnit.NANOSECONDS, runnable -> toolkit.waiting().io().execute(runnable));
  }

  /** The fair lock's queue keys, whose first waiter an await's release wakes; else null. */
  List<String> fairQueue(LockKeys keys) {
    return fair ? List.of(keys.beside("fq"), keys.beside("ft")) : null;
  }

  /** An awaiter of this JVM starts waiting. */
  void enter(ConditionWait wait) {
    local.put(wait.id, wait);
  }

  /** An awaiter of this JVM stopped waiting. */
  void exit(ConditionWait wait) {
    local.remove(wait.id, wait);
  }

  /** A signal given in this JVM: wakes the awaiters of this JVM it signalled, without waiting. */
  void signalledHere(ConditionKeys keys, ConditionQueue.Signalled signalled) {
    if (signalled.awaiter() != null) {
      ConditionWait wait = local.get(signalled.awaiter());
      if (wait != null) {
        wait.deliver();
      }
    } else if (signalled.upTo() > 0) {
      for (ConditionWait wait : local.values()) {
        if (wait.keys.equals(keys)) {
          wait.deliverUpTo(signalled.upTo());
        }
      }
    }
  }

  /** A woken awaiter that was not signalled as far as Redis knows: a spurious wake-up. */
  void unsignalledWakeUp() {
    unsignalledWakeUps.increment();
  }

  /** Spurious wake-ups so far: for tests. */
  long unsignalledWakeUps() {
    return unsignalledWakeUps.sum();
  }

  // ---- signals in use ----

  /**
   * A signalled awaiter takes its lock again: its signal is renewed every third of the lease until
   * {@link #reacquired}, so that it does not pass on to another awaiter meanwhile.
   */
  void reacquiring(ConditionWait wait) {
    reacquiring.add(wait);
    if (keeping.compareAndSet(false, true)) {
      schedule();
    }
  }

  /**
   * The awaiter holds its lock again ({@code used}), or gave up: its signal is removed in the
   * background, or left to pass on when its lease runs out.
   */
  void reacquired(ConditionWait wait, boolean used) {
    reacquiring.remove(wait);
    if (used) {
      Runnable done = () -> queue.done(wait.lock.keys, wait.keys, wait.id);
      unfinished.add(done);
      background(() -> finish(done), wait);
    }
  }

  private void finish(Runnable done) {
    if (unfinished.remove(done)) {
      done.run();
    }
  }

  /**
   * The factory closes: removes the used signals whose removal has not run yet, so that none passes
   * on to another awaiter later; stops at the first failure (they run out with their lease).
   */
  void close() {
    try {
      for (Runnable done : unfinished) {
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
    for (ConditionWait wait : reacquiring) {
      background(() -> queue.renew(wait.lock.keys, wait.keys, wait.id), wait);
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

  private void background(Runnable call, ConditionWait wait) {
    try {
      toolkit.waiting().io().execute(() -> quietly(call, wait));
    } catch (RejectedExecutionException e) {
      log.debug("factory closed; the signal of {} runs out with its lease", wait);
    }
  }

  private static void quietly(Runnable call, ConditionWait wait) {
    try {
      call.run();
    } catch (RuntimeException e) {
      log.debug("could not update the signal of {}; it runs out with its lease", wait, e);
    }
  }
}
