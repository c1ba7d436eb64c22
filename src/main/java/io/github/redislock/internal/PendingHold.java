package io.github.redislock.internal;

import io.github.redislock.LockHandle;
import io.github.redislock.RedisLockException;
import io.github.redislock.internal.backend.Acquisition;
import io.github.redislock.internal.backend.Failures;
import io.github.redislock.internal.kind.Attempts;
import io.github.redislock.internal.kind.LockKind;
import io.github.redislock.internal.kind.TokenRelease;
import io.github.redislock.internal.util.Backoff;
import io.github.redislock.internal.util.Tokens;
import io.github.redislock.internal.wakeup.Signal;
import io.github.redislock.internal.wakeup.WakeUpHub;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * One acquisition of a hold for a handle, which no thread waits for: a state machine driven by its
 * attempts' answers, the wake-ups of its channel, and timers. At most one attempt is in flight;
 * between attempts it is a registration on the channel (a {@link Signal} that runs {@link #wake})
 * and a re-check on the factory's {@link Timer}. Its future is the caller's: completing it in any
 * way (a grant, the deadline, a cancel, a failure, the factory's close) ends the acquisition, once
 * ({@link #finished}); an attempt that was granted after that is released at once, and the wait's
 * entry in Redis (a fair place, a writer's intent) is taken out, after any attempt in flight.
 *
 * <p>The first attempt runs in the thread that asked (an uncontended acquisition returns complete);
 * later ones on the threads of the key's node. The waits between attempts follow the thread-bound
 * wait's (see {@code Waits.RedisWait}): the holder's remaining lease, a re-check, a backoff after a
 * failure.
 */
final class PendingHold {
  private static final long SHORT_RECHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
  private static final long LONG_RECHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(1500);

  /** What an acquisition asks of the holds it is for. */
  interface Owner {
    Timer timer();

    NodeExecutor attempts();

    WakeUpHub wakeUps();

    long now();

    boolean isClosed();

    /** How long a hold of a lease given per call (0: none) counts as held. */
    long validNanos(long leaseNanos);

    void releaseLater(TokenRelease kind, LockName name, String token);

    /** The wait's entry leaves Redis in the background. */
    void leaveLater(Attempts attempts, LockName name);

    /** Publishes the hold an acquisition got, for a new handle, and renews it. */
    HandleHold install(
        PendingHold acquisition,
        LockKind kind,
        String token,
        Acquisition granted,
        long startNanos,
        long leaseNanos);

    /** An acquisition ended, granted or not. */
    void ended(PendingHold acquisition, boolean acquired, Throwable failure);

    void releaseUnwanted(HandleHold handle);

    void warnUnavailable(PendingHold acquisition, RuntimeException e);
  }

  private final Owner owner;
  final LockName name;
  private final LockKind kind;
  private final Attempts attempts;
  private final Mode mode;
  private final long deadline;
  private final long leaseNanos;
  final CompletableFuture<Optional<LockHandle>> future = new CompletableFuture<>();
  private final Telemetry.Acquiring seen;

  // Guarded by this.
  private boolean finished;
  private boolean inFlight;
  private boolean woken;
  private ScheduledFuture<?> recheck;
  private ScheduledFuture<?> timeout;

  // Touched by the attempt in flight only (one at a time; the hand-over is ordered by this).
  private Signal signal;
  private boolean subscribed;
  private Backoff backoff;
  private boolean busyStill;
  private long lastAttemptStart;

  PendingHold(
      Owner owner,
      LockName name,
      LockKind kind,
      Attempts attempts,
      Mode mode,
      long deadline,
      long leaseNanos,
      Telemetry.Acquiring seen) {
    this.owner = owner;
    this.name = name;
    this.kind = kind;
    this.attempts = attempts;
    this.mode = mode;
    this.deadline = deadline;
    this.leaseNanos = leaseNanos;
    this.seen = seen;
  }

  LockKind kind() {
    return kind;
  }

  Mode mode() {
    return mode;
  }

  Telemetry.Acquiring seen() {
    return seen;
  }

  /** Arms the deadline and the withdrawal; the caller then runs or queues the first attempt. */
  void arm() {
    var unused = future.whenComplete((granted, failure) -> withdraw(failure));
    if (mode == Mode.TIMED) {
      try {
        ScheduledFuture<?> end =
            owner.timer().schedule(this::deadlinePassed, deadline - owner.now());
        synchronized (this) {
          timeout = end;
        }
      } catch (RejectedExecutionException e) {
        future.completeExceptionally(new IllegalStateException("this RedisLockFactory is closed"));
      }
    }
  }

  /** Runs the first attempt in the calling thread. */
  void runFirst() {
    synchronized (this) {
      if (finished || inFlight) {
        return;
      }
      inFlight = true;
    }
    attempt();
  }

  /** Runs the next attempt on a thread of the key's node. */
  void submit() {
    if (owner.isClosed()) {
      // No attempt starts once the factory closes: one in flight during the close would leave its
      // entry barred in Redis (see WaitEntry) if the closing clients cut its reply off.
      future.completeExceptionally(new IllegalStateException("this RedisLockFactory is closed"));
      return;
    }
    synchronized (this) {
      if (finished || inFlight) {
        return;
      }
      inFlight = true;
      woken = false;
      cancel(recheck);
      recheck = null;
    }
    try {
      owner.attempts().execute(name.keys, this::attempt);
    } catch (RejectedExecutionException e) {
      if (owner.isClosed()) {
        future.completeExceptionally(new IllegalStateException("this RedisLockFactory is closed"));
      }
      endAttempt(SHORT_RECHECK_NANOS); // the node's threads are all busy: later
    }
  }

  /** A wake-up on the channel (a release, a new subscription, close): from its reader thread. */
  void wake() {
    synchronized (this) {
      if (finished) {
        return;
      }
      if (inFlight) {
        woken = true;
        return;
      }
    }
    submit();
  }

  private void deadlinePassed() {
    future.complete(Optional.empty());
  }

  /** One attempt and what follows from its answer. */
  private void attempt() {
    try {
      if (isFinished()) {
        endAttempt(0);
        return;
      }
      if (signal != null && signal.takeAddressed() && handedOver()) {
        return;
      }
      tryOnce();
    } catch (RuntimeException | Error e) {
      future.completeExceptionally(e);
      endAttempt(0);
    }
  }

  private void tryOnce() {
    String token = Tokens.next();
    long epoch = subscribed || mode.once() ? 0 : owner.wakeUps().epoch(name.keys.channel());
    long start = owner.now();
    lastAttemptStart = start;
    if (seen != null) {
      seen.roundTrips++;
    }
    Acquisition answer;
    try {
      answer = attempts.tryAcquire(name.keys, token, busyStill);
    } catch (RedisLockException e) {
      if (seen != null) {
        seen.redisErrors++;
      }
      owner.releaseLater(attempts, name, token);
      failed(e);
      return;
    }
    if (answer.acquired()) {
      if (owner.now() - start >= owner.validNanos(leaseNanos)) {
        owner.releaseLater(attempts, name, token); // worthless: its lease is gone
        failed(
            new RedisLockException(
                "Redis granted lock '" + name.name + "' only after its lease ran out; released it",
                new Failures.TransientFailure("acquisition slower than the lease")));
        return;
      }
      grant(token, answer, start);
      return;
    }
    if (mode.once()) {
      future.complete(Optional.empty());
      endAttempt(0);
      return;
    }
    subscribe(epoch);
    long wait = Math.min(waitNanos(answer), attempts.maxWaitNanos());
    busyStill = true;
    endAttempt(wait);
  }

  /** A release named this waiter: the lock is its own under the kind's handed token. */
  private boolean handedOver() {
    String handed = attempts.handedToken();
    if (handed == null) {
      return false;
    }
    if (owner.now() - lastAttemptStart >= owner.validNanos(leaseNanos)) {
      owner.releaseLater(attempts, name, handed);
      return false;
    }
    grant(handed, Acquisition.acquired(0), lastAttemptStart);
    return true;
  }

  private void grant(String token, Acquisition granted, long start) {
    boolean withdrawn;
    synchronized (this) {
      withdrawn = finished; // while the attempt was in flight
      finished = true;
      inFlight = false;
      cancel(recheck);
      cancel(timeout);
    }
    if (withdrawn) {
      // Outside the monitor, as every call to Redis or the wake-ups: the subscription's reader
      // takes it to wake this acquisition.
      owner.releaseLater(attempts, name, token);
      forgetSignal();
      leave();
      return;
    }
    forgetSignal();
    HandleHold handle;
    try {
      handle = owner.install(this, kind, token, granted, start, leaseNanos);
    } catch (RuntimeException e) {
      owner.ended(this, false, e);
      future.completeExceptionally(e);
      return;
    }
    owner.ended(this, true, null);
    if (!future.complete(Optional.of(handle))) {
      owner.releaseUnwanted(handle); // completed otherwise meanwhile: nobody will use it
    }
  }

  /** Redis failed: a transient failure is retried after a backoff, unless once or past due. */
  private void failed(RedisLockException e) {
    if (mode.once() || !Failures.isTransient(e)) {
      future.completeExceptionally(e);
      endAttempt(0);
      return;
    }
    if (mode == Mode.TIMED && deadline - owner.now() <= 0) {
      future.completeExceptionally(e);
      endAttempt(0);
      return;
    }
    owner.warnUnavailable(this, e);
    backoff = backoff == null ? new Backoff() : backoff;
    busyStill = false;
    endAttempt(backoff.nextNanos());
  }

  /**
   * The attempt in flight is over: the next comes after {@code waitNanos}, or at once if a wake-up
   * came meanwhile; when the acquisition was withdrawn meanwhile, its entry leaves Redis now.
   */
  private void endAttempt(long waitNanos) {
    boolean again;
    boolean withdrawn;
    synchronized (this) {
      inFlight = false;
      withdrawn = finished;
      again = !withdrawn && woken;
      if (!withdrawn && !again) {
        try {
          recheck = owner.timer().schedule(this::submit, waitNanos);
        } catch (RejectedExecutionException e) {
          again = true; // closing: the attempt finds the factory closed
        }
      }
    }
    if (withdrawn) {
      // The attempt owned the signal and the entry; outside the monitor, which the subscription's
      // reader takes to wake this acquisition.
      forgetSignal(); // it may have subscribed after the withdrawal, which left it to us
      leave();
      return;
    }
    if (again) {
      submit();
    }
  }

  private synchronized boolean isFinished() {
    return finished;
  }

  /**
   * The future completed other than by a grant: no more attempts; the wait's entry leaves Redis,
   * now if no attempt is in flight (else that attempt's end does it).
   */
  private void withdraw(Throwable failure) {
    boolean leaveNow;
    synchronized (this) {
      if (finished) {
        return; // granted: its handle went to the future, or is released
      }
      finished = true;
      leaveNow = !inFlight;
      cancel(recheck);
      cancel(timeout);
    }
    // The attempt in flight, if any, owns the signal and the entry: its end forgets and leaves.
    if (leaveNow) {
      forgetSignal();
    }
    owner.ended(this, false, failure);
    if (leaveNow) {
      owner.leaveLater(attempts, name);
    }
  }

  /** The wait's entry in Redis, if any, leaves it: on the thread of an attempt that just ended. */
  private void leave() {
    try {
      attempts.leave(name.keys);
    } catch (RuntimeException e) {
      owner.leaveLater(attempts, name); // the kind retries in the background, or its lease ends it
    }
  }

  private void subscribe(long epoch) {
    if (signal == null) {
      signal = owner.wakeUps().newSignal(attempts.waiterId(), this::wake);
    }
    if (!subscribed) {
      owner.wakeUps().subscribe(name.keys.channel(), signal, epoch);
      subscribed = true;
    }
  }

  /** Forgets the signal, once: by the attempt in flight, or by the withdrawal when none is. */
  private void forgetSignal() {
    Signal forgotten = signal;
    if (forgotten != null) {
      signal = null;
      owner.wakeUps().forget(forgotten, name.keys.channel(), subscribed);
      subscribed = false;
    }
  }

  private long waitNanos(Acquisition busy) {
    boolean active = owner.wakeUps().isActive(name.keys.channel());
    long wait =
        Backoff.jitter(busy.holderPublishes() && active ? LONG_RECHECK_NANOS : SHORT_RECHECK_NANOS);
    if (busy.holderTtlMillis() >= 0) {
      wait = Math.min(wait, TimeUnit.MILLISECONDS.toNanos(busy.holderTtlMillis() + 1));
    }
    return wait;
  }

  private static void cancel(ScheduledFuture<?> task) {
    if (task != null) {
      task.cancel(false);
    }
  }
}
