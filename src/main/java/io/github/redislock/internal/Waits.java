package io.github.redislock.internal;

import io.github.redislock.RedisLockException;
import io.github.redislock.internal.backend.Acquisition;
import io.github.redislock.internal.backend.Failures;
import io.github.redislock.internal.backend.LockKeys;
import io.github.redislock.internal.kind.Attempts;
import io.github.redislock.internal.util.Backoff;
import io.github.redislock.internal.util.Ticker;
import io.github.redislock.internal.util.Tokens;
import io.github.redislock.internal.wakeup.Signal;
import io.github.redislock.internal.wakeup.WakeUpHub;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the acquisitions' waits of one factory share (wake-ups, turns, clean-up releases, the
 * factory's lifecycle and clock, the per-node threads of timed attempts), and the waits themselves:
 * {@link RedisWait}, one per call, an inner class that uses them as its own.
 */
public final class Waits {
  private static final Logger log = LoggerFactory.getLogger(Waits.class);

  /** The longest timeout a wait counts with: beyond, it waits as if forever. */
  private static final long MAX_TIMEOUT_NANOS = Long.MAX_VALUE / 4;

  private final WakeUpHub wakeUps;
  private final Turns turns;
  private final Releases releases;
  private final Lifecycle lifecycle;
  private final Ticker ticker;
  private final long slowCallNanos;
  private final long validNanos;

  /** Runs timed attempts, on the threads of each key's node. */
  private final NodeExecutor attempts;

  /**
   * The waits of a factory.
   *
   * @param slowCallNanos how long a call may take before a timed attempt runs on a thread of its
   *     node
   * @param validNanos how long a hold counts as held after its acquisition started: an attempt that
   *     took longer acquired nothing usable
   */
  public Waits(
      WakeUpHub wakeUps,
      Turns turns,
      Releases releases,
      Lifecycle lifecycle,
      Ticker ticker,
      long slowCallNanos,
      long validNanos,
      NodeExecutor attempts) {
    this.wakeUps = wakeUps;
    this.turns = turns;
    this.releases = releases;
    this.lifecycle = lifecycle;
    this.ticker = ticker;
    this.slowCallNanos = slowCallNanos;
    this.validNanos = validNanos;
    this.attempts = attempts;
  }

  /**
   * What a wait checks first: the factory is open, and the calling thread not interrupted when
   * {@code mode} may be interrupted.
   *
   * @return the deadline of a wait of {@code timeoutNanos} (capped) that starts now
   */
  long begin(Mode mode, long timeoutNanos) throws InterruptedException {
    lifecycle.checkOpen();
    if ((mode == Mode.INTERRUPTIBLE || mode == Mode.TIMED) && Thread.interrupted()) {
      throw new InterruptedException();
    }
    return ticker.read() + Math.min(timeoutNanos, MAX_TIMEOUT_NANOS);
  }

  /**
   * One acquisition of {@code name} in Redis as {@code kind}, in {@code mode}, until {@code
   * deadline}.
   */
  RedisWait wait(String name, LockKeys keys, Attempts kind, Mode mode, long deadline) {
    return new RedisWait(name, keys, kind, mode, deadline, validNanos);
  }

  /**
   * As {@link #wait(String, LockKeys, Attempts, Mode, long)}, for a hold that counts as held {@code
   * holdValidNanos} after its attempt started (a lease given with the call).
   */
  RedisWait wait(
      String name, LockKeys keys, Attempts kind, Mode mode, long deadline, long holdValidNanos) {
    return new RedisWait(name, keys, kind, mode, deadline, holdValidNanos);
  }

  /**
   * One acquisition in Redis by the thread at the head of a name's local queue: attempts, and the
   * waiting between them, until the lock is acquired, the caller's deadline passes, or it is
   * interrupted. One object per call, whose fields are the state that lasts between attempts.
   *
   * <p>When the lock is busy the thread subscribes to the name's wake-up channel and waits until
   * the first of: a wake-up (a release; its subscription becoming active; or, on a channel
   * subscribed already, a release heard since the channel's epoch read before the attempt: these
   * close the window between the busy answer and the registration), the holder's remaining lease, a
   * re-check interval, the caller's deadline. The re-check is long ({@value #LONG_RECHECK_MILLIS}
   * ms) when the holder is one of ours (it publishes on release) and the subscription is active,
   * short ({@value #SHORT_RECHECK_MILLIS} ms) otherwise (a foreign holder never publishes). A key
   * that never expires (set without a TTL by another client) is waited for the same way, rechecked
   * until it is deleted, with one warning per wait. When Redis fails, the thread retries after a
   * capped, jittered backoff, warning every {@value #WARN_EVERY_SECONDS} s.
   *
   * <p>Deadlines are computed once. A Redis call cannot be interrupted and may take up to the
   * client's timeout (twice that when the pool reconnects in the caller's thread), so a timed
   * attempt that might overrun the deadline runs on a thread of the key's node ({@link
   * Waits#attempts}), and the caller stops waiting for it at the deadline (plus a grace of {@value
   * #TIMED_GRACE_MILLIS} ms); an abandoned attempt that turns out to have acquired is released at
   * once. When that node's threads are all stuck with more attempts waiting, the attempt fails as
   * if Redis had.
   *
   * <p>A wait that the factory's closing ends, in an attempt or between attempts, throws the closed
   * factory's {@link IllegalStateException}, never a failure of Redis the closing caused.
   */
  final class RedisWait {
    static final long SHORT_RECHECK_MILLIS = 100;
    static final long LONG_RECHECK_MILLIS = 1500;
    static final long TIMED_GRACE_MILLIS = 25;
    static final long WARN_EVERY_SECONDS = 10;
    private static final long SHORT_RECHECK_NANOS =
        TimeUnit.MILLISECONDS.toNanos(SHORT_RECHECK_MILLIS);
    private static final long LONG_RECHECK_NANOS =
        TimeUnit.MILLISECONDS.toNanos(LONG_RECHECK_MILLIS);
    private static final long TIMED_GRACE_NANOS = TimeUnit.MILLISECONDS.toNanos(TIMED_GRACE_MILLIS);
    private static final long WARN_EVERY_NANOS = TimeUnit.SECONDS.toNanos(WARN_EVERY_SECONDS);

    private final String name;
    private final LockKeys keys;
    private final Attempts kind;
    private final Mode mode;
    private final long deadline;

    /** How long a hold counts as held after the attempt that got it started. */
    private final long validNanos;

    // Between attempts.
    private Signal signal;
    private boolean subscribed;
    private Backoff backoff;
    private boolean interrupted;
    private boolean answered;
    private boolean busyStill;
    private long lastWarn;
    private boolean warnedNeverExpires;

    /** Counts the attempts sent to Redis, and those that failed; {@code null}: nobody counts. */
    private Telemetry.Acquiring seen;

    /**
     * Whether the last attempt needs no clean-up by the loop: given up at the deadline (its
     * clean-up arranged already), or never sent.
     */
    private boolean abandonedAtDeadline;

    // The outcome.
    private String token;
    private Acquisition granted;
    private long grantedAttemptStart;

    private RedisWait(
        String name, LockKeys keys, Attempts kind, Mode mode, long deadline, long validNanos) {
      this.validNanos = validNanos;
      this.name = name;
      this.keys = keys;
      this.kind = kind;
      this.mode = mode;
      this.deadline = deadline;
    }

    /**
     * Tries until acquired or the mode gives up; the interrupt status of {@code lock()} is re-set
     * on return.
     *
     * @return whether the lock was acquired: then {@link #token()}, {@link #granted()} and {@link
     *     #attemptStart()} tell how
     * @throws InterruptedException if interrupted in an interruptible mode
     * @throws RedisLockException if Redis failed and the mode does not retry
     */
    boolean run() throws InterruptedException {
      try {
        giveWayIfOwed();
        while (true) {
          lifecycle.checkOpen();
          // A fresh token per attempt: a failed attempt is cleaned up in the background, and that
          // cleanup must not delete what a later attempt acquires.
          String attemptToken = Tokens.next();
          // Read before the attempt: a release after its busy answer moves it (see subscribe).
          long epoch = subscribed || mode.once() ? 0 : wakeUps.epoch(keys.channel());
          long start = ticker.read();
          Acquisition attempt;
          if (seen != null) {
            seen.roundTrips++;
          }
          try {
            attempt = attempt(attemptToken);
          } catch (RedisLockException e) {
            lifecycle.checkOpen(e);
            if (seen != null) {
              seen.redisErrors++;
            }
            if (!abandonedAtDeadline) {
              releases.releaseLater(kind, keys, attemptToken);
            }
            backOff(e);
            continue;
          }
          if (attempt.acquired() && ticker.read() - start >= validNanos) {
            // Granted, but the reply came after the lease would have run out: the hold would be
            // worthless. Release it and try again, as after a failure.
            releases.releaseLater(kind, keys, attemptToken);
            backOff(
                new RedisLockException(
                    "Redis granted lock '" + name + "' only after its lease ran out; released it",
                    new Failures.TransientFailure("acquisition slower than the lease")));
            continue;
          }
          if (attempt.acquired()) {
            token = attemptToken;
            granted = attempt;
            grantedAttemptStart = start;
            return true;
          }
          turns.busyRoundTrip(ticker.read() - start);
          answered = true;
          if (mode.once()) {
            return false;
          }
          long now = ticker.read();
          if (mode == Mode.TIMED && deadline - now <= 0) {
            return false;
          }
          if (attempt.holderTtlMillis() < 0 && !warnedNeverExpires) {
            warnedNeverExpires = true;
            log.warn(
                "lock '{}' is held by a key that never expires: '{}' has no TTL, so another client"
                    + " set it without a lease; waiting until someone deletes it",
                name,
                keys.lock());
          }
          subscribe(epoch);
          long wait = Math.min(waitNanos(attempt), kind.maxWaitNanos());
          if (mode == Mode.TIMED) {
            wait = Math.min(wait, deadline - now);
          }
          busyStill = !signal.await(wait);
          afterWait();
          if (signal.takeAddressed() && handedOver(start)) {
            return true;
          }
        }
      } finally {
        if (token == null) {
          kind.leave(keys); // an entry in Redis, if the kind keeps one: gone before we return
        }
        if (signal != null) {
          wakeUps.forget(signal, keys.channel(), subscribed);
        }
        if (interrupted) {
          Thread.currentThread().interrupt();
        }
      }
    }

    /**
     * A message named this waiter: for a kind whose releases hand the lock to the first waiter, the
     * lock is its own, under the token the kind tells, with no further round trip. Its lease counts
     * from the start of the last attempt, which the hand-over came after (the attempt renewed the
     * waiter's place, whose end the handed key keeps; a hand-over before it, the attempt would have
     * taken). A hand-over the waiter learns of only after the lease is gone is released.
     */
    private boolean handedOver(long lastAttemptStart) {
      String handed = kind.handedToken();
      if (handed == null) {
        return false;
      }
      if (ticker.read() - lastAttemptStart >= validNanos) {
        releases.releaseLater(kind, keys, handed);
        return false;
      }
      token = handed;
      granted = Acquisition.acquired(0);
      grantedAttemptStart = lastAttemptStart;
      return true;
    }

    /** Makes this wait count its attempts in {@code acquiring}, when not {@code null}. */
    RedisWait watchedBy(Telemetry.Acquiring acquiring) {
      this.seen = acquiring;
      return this;
    }

    /** The token of the acquired hold. */
    String token() {
      return token;
    }

    /** The reply that granted the hold. */
    Acquisition granted() {
      return granted;
    }

    /** When the attempt that acquired started: the lease counts from then. */
    long attemptStart() {
      return grantedAttemptStart;
    }

    /**
     * Gives other processes the turn this JVM owes them on the name (see {@link Turns}): waits,
     * subscribed, until one of them releases or the yield has passed.
     */
    private void giveWayIfOwed() throws InterruptedException {
      long pause = mode.once() ? 0 : turns.takeYieldNanos(name);
      if (pause <= 0) {
        return;
      }
      subscribe(wakeUps.epoch(keys.channel()));
      if (mode == Mode.TIMED) {
        pause = Math.min(pause, deadline - ticker.read());
      }
      signal.await(pause);
      afterWait();
    }

    /** Redis failed: rethrows unless the mode retries, else waits a backoff. */
    private void backOff(RedisLockException failure) throws InterruptedException {
      if (mode.once() || !Failures.isTransient(failure)) {
        throw failure;
      }
      if (Thread.currentThread().isInterrupted()) {
        // The JDK closes the socket of a virtual thread interrupted while it waits on it: this
        // failure is the interrupt's, not an outage. Interruptible modes throw for it; lock() goes
        // on at once, keeping the interrupt for its return.
        log.debug("an interrupt ended a Redis call for lock '{}': {}", name, failure.getMessage());
        afterWait();
        return;
      }
      long now = ticker.read();
      if (mode == Mode.TIMED && deadline - now <= 0) {
        throw failure;
      }
      if (lastWarn == 0 || now - lastWarn >= WARN_EVERY_NANOS) {
        lastWarn = now;
        log.warn(
            "Redis is unavailable to acquire lock '{}'; retrying: {}", name, failure.getMessage());
      }
      backoff = backoff == null ? new Backoff() : backoff;
      long pause = backoff.nextNanos();
      if (mode == Mode.TIMED) {
        pause = Math.min(pause, deadline - now);
      }
      if (signal == null) {
        signal = wakeUps.newSignal(kind.waiterId());
      }
      signal.await(pause);
      afterWait();
      answered = false;
      busyStill = false;
    }

    /**
     * Registers for the channel's wake-ups, once; raised at once if it moved past {@code epoch},
     * read before the attempt that found the lock busy.
     */
    private void subscribe(long epoch) {
      if (signal == null) {
        signal = wakeUps.newSignal(kind.waiterId());
      }
      if (!subscribed) {
        wakeUps.subscribe(keys.channel(), signal, epoch);
        subscribed = true;
      }
    }

    /**
     * After a wait: interruptible modes throw on interrupt; {@code lock()} clears the flag (so the
     * wait does not spin) and remembers it, to re-set it at the end.
     */
    private void afterWait() throws InterruptedException {
      if (Thread.interrupted()) {
        if (mode != Mode.UNINTERRUPTIBLE) {
          throw new InterruptedException();
        }
        interrupted = true;
      }
    }

    /** One attempt; a timed one that could overrun its deadline runs on its node's threads. */
    private Acquisition attempt(String attemptToken) throws InterruptedException {
      abandonedAtDeadline = false;
      long budget = deadline - ticker.read();
      if (mode != Mode.TIMED || budget > slowCallNanos) {
        return kind.tryAcquire(keys, attemptToken, busyStill);
      }
      TimedAttempt call = new TimedAttempt(kind, keys, attemptToken, busyStill);
      try {
        attempts.execute(keys, call);
      } catch (RejectedExecutionException e) {
        lifecycle.checkOpen();
        abandonedAtDeadline = true; // never sent
        throw new RedisLockException(
            "Redis is unavailable to acquire lock '" + name + "': " + e.getMessage(),
            new Failures.TransientFailure("too many calls waiting for one node"));
      }
      try {
        return call.get(Math.max(budget, TIMED_GRACE_NANOS));
      } catch (TimeoutException e) {
        abandon(call);
        abandonedAtDeadline = true;
        lifecycle.checkOpen(e);
        if (answered) {
          return Acquisition.busy(0, false); // the last answer was "held by another"
        }
        throw new RedisLockException(
            "Redis did not answer before the deadline while acquiring lock '" + name + "'", e);
      } catch (InterruptedException e) {
        abandon(call);
        throw e;
      } catch (ExecutionException e) {
        lifecycle.checkOpen(e.getCause()); // the closing aborted it, or made it fail
        Throwable cause = e.getCause();
        if (cause instanceof RuntimeException runtime) {
          throw runtime;
        }
        throw new RedisLockException("acquiring lock '" + name + "' failed", cause);
      }
    }

    /** The caller stops waiting for {@code call}: one that has not started leaves its queue. */
    private void abandon(TimedAttempt call) {
      if (call.abandon(releases)) {
        attempts.remove(keys, call);
      }
    }

    private long waitNanos(Acquisition busy) {
      boolean active = wakeUps.isActive(keys.channel());
      long recheck =
          Backoff.jitter(
              busy.holderPublishes() && active ? LONG_RECHECK_NANOS : SHORT_RECHECK_NANOS);
      if (busy.holderTtlMillis() >= 0) {
        long ttl = TimeUnit.MILLISECONDS.toNanos(busy.holderTtlMillis() + 1);
        return Math.min(recheck, ttl);
      }
      return recheck;
    }
  }
}
