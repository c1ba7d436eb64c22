package io.github.redislock.internal;

import io.github.redislock.LockLostEvent;
import io.github.redislock.LockStatsListener;
import io.github.redislock.RedisLockException;
import io.github.redislock.internal.events.AcquisitionEvent;
import io.github.redislock.internal.events.Jfr;
import io.github.redislock.internal.events.LostHoldEvent;
import io.github.redislock.internal.events.ReleaseEvent;
import io.github.redislock.internal.events.RenewalFailureEvent;
import io.github.redislock.internal.kind.LockKind;
import io.github.redislock.internal.util.Ticker;
import java.util.concurrent.atomic.LongAccumulator;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a factory tells about its locks: the JFR events ({@link Jfr}), the statistics of {@code
 * recordStats()}, and the pushes to the user's listener. With statistics off and the events
 * disabled, every call returns after a check and allocates nothing.
 */
public final class Telemetry {
  private static final Logger log = LoggerFactory.getLogger(Telemetry.class);

  /** The counts, as {@code LockStats} gives them. */
  public record Counts(
      long acquisitions,
      long failures,
      long timeouts,
      long totalWaitNanos,
      long maxWaitNanos,
      long handoffs,
      long lostHolds,
      long redisErrors,
      long renewals) {}

  private final boolean counting;
  private final LockStatsListener sink;
  private final Ticker ticker;
  private final LongAdder acquisitions = new LongAdder();
  private final LongAdder failures = new LongAdder();
  private final LongAdder timeouts = new LongAdder();
  private final LongAdder totalWait = new LongAdder();
  private final LongAccumulator maxWait = new LongAccumulator(Math::max, 0);
  private final LongAdder handoffs = new LongAdder();
  private final LongAdder lostHolds = new LongAdder();
  private final LongAdder redisErrors = new LongAdder();
  private final LongAdder renewals = new LongAdder();

  /**
   * @param counting whether statistics are recorded
   * @param sink where they are pushed too, or {@code null}
   */
  public Telemetry(boolean counting, LockStatsListener sink, Ticker ticker) {
    // What the paths make only while something records, loaded now (see Jfr.preload).
    Jfr.preload();
    new Acquiring(0, null);
    this.counting = counting || sink != null;
    this.sink = sink;
    this.ticker = ticker;
  }

  /** A snapshot of the counts: all zero when statistics are off. */
  public Counts counts() {
    return new Counts(
        acquisitions.sum(),
        failures.sum(),
        timeouts.sum(),
        totalWait.sum(),
        maxWait.get(),
        handoffs.sum(),
        lostHolds.sum(),
        redisErrors.sum(),
        renewals.sum());
  }

  /** One acquisition being watched: made only when something records it. */
  static final class Acquiring {
    final long startNanos;
    final AcquisitionEvent event;
    int roundTrips;
    int redisErrors;

    Acquiring(long startNanos, AcquisitionEvent event) {
      this.startNanos = startNanos;
      this.event = event;
    }
  }

  /** An acquisition starts; {@code null} when nothing records it (the common, free case). */
  Acquiring acquiring() {
    boolean jfr = Jfr.acquisitions();
    if (!counting && !jfr) {
      return null;
    }
    AcquisitionEvent event = null;
    if (jfr) {
      event = new AcquisitionEvent();
      event.begin();
    }
    return new Acquiring(ticker.read(), event);
  }

  /**
   * The acquisition {@code a} of {@code name} ended: {@code acquired}, or not, by {@code failure}
   * (thrown) or, when {@code null}, because the lock was busy or the time elapsed ({@code mode}).
   */
  void acquisitionEnded(
      Acquiring a, String name, LockKind kind, Mode mode, boolean acquired, Throwable failure) {
    long wait = ticker.read() - a.startNanos;
    boolean handoff = acquired && a.roundTrips == 0; // the hold came without a call to Redis
    boolean timedOut = !acquired && failure == null && mode == Mode.TIMED;
    if (counting) {
      redisErrors(name, a.redisErrors);
      if (acquired) {
        acquisitions.increment();
        totalWait.add(wait);
        maxWait.accumulate(wait);
        if (handoff) {
          handoffs.increment();
        }
      } else if (timedOut) {
        timeouts.increment();
      } else {
        failures.increment();
      }
      if (sink != null) {
        push(
            () -> {
              if (acquired) {
                sink.acquired(name, wait, handoff);
              } else {
                sink.notAcquired(name, wait, timedOut);
              }
            });
      }
    }
    AcquisitionEvent event = a.event;
    if (event != null) {
      event.end();
      if (event.shouldCommit()) {
        event.lockName = name;
        event.kind = kind.label();
        event.outcome = outcome(acquired, timedOut, failure);
        event.roundTrips = a.roundTrips;
        event.handoff = handoff;
        event.commit();
      }
    }
  }

  private static String outcome(boolean acquired, boolean timedOut, Throwable failure) {
    if (acquired) {
      return "acquired";
    }
    if (failure == null) {
      return timedOut ? "timed out" : "busy";
    }
    if (failure instanceof InterruptedException) {
      return "interrupted";
    }
    return failure instanceof RedisLockException ? "error" : "failed";
  }

  /** {@code hold} was released in Redis ({@code released}: it was still ours). */
  void released(Hold hold, LockKind kind, boolean released) {
    boolean jfr = Jfr.releases();
    if (!counting && !jfr) {
      return;
    }
    long held = ticker.read() - hold.acquiredAtNanos;
    if (sink != null) {
      push(() -> sink.released(hold.name, held));
    }
    if (jfr) {
      ReleaseEvent event = new ReleaseEvent();
      event.lockName = hold.name;
      event.kind = kind.label();
      event.holdTime = held;
      event.released = released;
      event.commit();
    }
  }

  /** A hold was lost (before the user's listener is told). */
  public void lost(LockLostEvent lost) {
    if (counting) {
      lostHolds.increment();
      if (sink != null) {
        push(() -> sink.lostHold(lost.lockName(), lost.reason()));
      }
    }
    if (Jfr.lostHolds()) {
      LostHoldEvent event = new LostHoldEvent();
      event.lockName = lost.lockName();
      event.reason = lost.reason();
      event.fencingToken = lost.fencingToken();
      event.commit();
    }
  }

  public void renewed(Hold hold) {
    if (counting) {
      renewals.increment();
      if (sink != null) {
        push(() -> sink.renewed(hold.name));
      }
    }
  }

  public void renewalFailed(Hold hold, RuntimeException e) {
    redisErrors(hold.name, 1);
    if (counting && sink != null) {
      push(() -> sink.renewalFailed(hold.name));
    }
    if (Jfr.renewalFailures()) {
      RenewalFailureEvent event = new RenewalFailureEvent();
      event.lockName = hold.name;
      event.error = String.valueOf(e.getMessage());
      event.commit();
    }
  }

  /** {@code count} Redis calls for {@code name} failed. */
  void redisErrors(String name, int count) {
    if (counting && count > 0) {
      redisErrors.add(count);
      if (sink != null) {
        push(
            () -> {
              for (int i = 0; i < count; i++) {
                sink.redisError(name);
              }
            });
      }
    }
  }

  /** Tells the sink, if any; what it throws is logged and goes no further. */
  private static void push(Runnable push) {
    try {
      push.run();
    } catch (Throwable e) {
      log.error("the LockStatsListener failed", e);
    }
  }
}
