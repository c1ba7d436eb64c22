package io.github.redislock.internal;

import io.github.redislock.internal.util.Threads;
import io.github.redislock.internal.util.Ticker;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Renews every hold of one factory, on one daemon thread that runs while anything is held and ends
 * a few ticks after the last release (ticks that find no hold held and none taken since the tick
 * before).
 *
 * <p>The thread wakes every sixth of the lease, walks the holds the engine has (see {@link Holds}),
 * and starts a renewal for each hold last confirmed a third of the lease ago or more and not being
 * renewed already, on the renewal threads of the hold's node ({@link NodeExecutor}), which do
 * nothing else: so a stalled node delays only its own holds' renewals, and a renewal never waits
 * behind an acquisition. Taking and returning a hold costs the renewer nothing but a volatile read:
 * no set to update, no thread signalled on the lock's fast path. A renewal that finds the key gone
 * or taken marks the hold lost at once; one that fails is retried at every tick until the lease, as
 * last confirmed, would have run out, and then marks it lost. A hold that has lasted its maximum
 * hold time is not renewed any more, and is marked lost once its lease ran out. Each loss is
 * reported once.
 */
public final class LeaseRenewer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(LeaseRenewer.class);
  private static final int IDLE_TICKS_BEFORE_EXIT = 3;

  /** Who is told of each renewal, on the renewal's thread. */
  public interface Renewals {
    Renewals NONE = new Renewals() {};

    default void renewed(Hold hold) {}

    default void failed(Hold hold, RuntimeException e) {}
  }

  /** The holds to renew: whatever the engine holds now, held or not any more. */
  public interface Holds {
    void forEach(Consumer<Hold> action);
  }

  private final long validNanos;
  private final long renewAfterNanos;
  private final long tickNanos;
  private final LossReporter losses;
  private final NodeExecutor executor;
  private final Holds holds;
  private final Ticker ticker;
  private final Renewals renewals;
  private final AtomicBoolean running = new AtomicBoolean();

  /**
   * Whether a hold was taken since the last tick. A tick judges whether the renewer is idle by it
   * as well as by the holds it finds: holds that come and go between ticks (a loop of short
   * critical sections) would otherwise leave every tick finding none, and the thread would end and
   * be started again by the next acquisition, in the calling thread, every few ticks. Written only
   * when it changes, so that taking a hold costs a volatile read.
   */
  private volatile boolean taken;

  private volatile boolean closed;
  private volatile Thread thread;

  /**
   * A renewer of the holds {@code holds} finds.
   *
   * @param leaseNanos the lease every renewal sets
   * @param validNanos how long a hold counts as held after a renewal starts: the lease less the
   *     backend's safety margin
   */
  public LeaseRenewer(
      long leaseNanos,
      long validNanos,
      LossReporter losses,
      NodeExecutor executor,
      Holds holds,
      Ticker ticker) {
    this(leaseNanos, validNanos, losses, executor, holds, ticker, Renewals.NONE);
  }

  /** A renewer that tells {@code renewals} of each renewal and each failed one. */
  public LeaseRenewer(
      long leaseNanos,
      long validNanos,
      LossReporter losses,
      NodeExecutor executor,
      Holds holds,
      Ticker ticker,
      Renewals renewals) {
    this.renewals = renewals;
    this.validNanos = validNanos;
    this.renewAfterNanos = leaseNanos / 3;
    this.tickNanos = Math.max(TimeUnit.MILLISECONDS.toNanos(1), leaseNanos / 6);
    this.losses = losses;
    this.executor = executor;
    this.holds = holds;
    this.ticker = ticker;
  }

  /**
   * Makes sure a hold the engine just took is renewed (the engine holds it already, where {@link
   * Holds} finds it); {@code false} when the factory is closed.
   */
  boolean start(Hold hold) {
    if (closed) {
      return false;
    }
    if (!taken) {
      taken = true;
    }
    if (!running.get() && running.compareAndSet(false, true)) {
      Thread renewer = Threads.daemon("redis-lock-renewal").newThread(this::run);
      thread = renewer;
      renewer.start();
    }
    return true;
  }

  /** Number of holds being renewed: held, not lost. */
  public int activeCount() {
    int[] count = new int[1];
    holds.forEach(hold -> count[0] += hold.isHeld() ? 1 : 0);
    return count[0];
  }

  /** The time between two ticks. */
  long tickNanos() {
    return tickNanos;
  }

  /**
   * One tick: starts a renewal of every hold due for one.
   *
   * @return whether any hold is held, or was taken since the last tick
   */
  boolean tick() {
    boolean active = taken;
    if (active) {
      taken = false;
    }
    long now = ticker.read();
    boolean[] any = new boolean[1];
    holds.forEach(
        hold -> {
          if (!hold.isHeld()) {
            return;
          }
          any[0] = true;
          if (hold.outlived(now)) {
            if (now - hold.leaseEndNanos() >= 0) {
              losses.lose(hold, hold.limitReason());
            }
            return; // no more renewals: it expires with its lease
          }
          if (now - hold.renewedAtNanos() >= renewAfterNanos && hold.beginRenewal()) {
            try {
              executor.execute(hold.keys, () -> renew(hold));
            } catch (RejectedExecutionException e) {
              hold.endRenewal(); // closing, or its node's threads are all stuck: the next tick
            } catch (RuntimeException | Error e) {
              hold.endRenewal(); // not started: the next tick tries again
              throw e;
            }
          }
        });
    return any[0] || active;
  }

  private void run() {
    int idleTicks = 0;
    while (!closed) {
      if (!safeTick()) {
        if (++idleTicks >= IDLE_TICKS_BEFORE_EXIT) {
          running.set(false);
          // A hold taken after the walk, and before running turned false, found the thread
          // running and started none: take it on unless another thread did.
          if (activeCount() == 0 || !running.compareAndSet(false, true)) {
            return;
          }
        }
      } else {
        idleTicks = 0;
      }
      LockSupport.parkNanos(this, tickNanos);
    }
    running.set(false);
  }

  /**
   * A tick that survives anything thrown in it: the thread must keep renewing every other hold, and
   * it counts as running, so nothing would start another.
   */
  private boolean safeTick() {
    try {
      return tick();
    } catch (Throwable e) {
      log.error("a renewal tick failed; renewing goes on at the next tick", e);
      return true;
    }
  }

  private void renew(Hold hold) {
    try {
      renewOnce(hold);
    } catch (Throwable e) {
      log.error("the renewal of lock '{}' failed; retrying at the next tick", hold.name, e);
    } finally {
      hold.endRenewal();
    }
  }

  private void renewOnce(Hold hold) {
    if (!hold.isHeld()) {
      return;
    }
    long start = ticker.read();
    try {
      if (hold.extend()) {
        hold.extendedUntil(start, start + validNanos);
        renewals.renewed(hold);
      } else {
        losses.lose(hold, LossReporter.NOT_OURS);
      }
    } catch (RuntimeException e) { // Redis failed, or the client did something unexpected
      renewals.failed(hold, e);
      if (ticker.read() - hold.leaseEndNanos() >= 0) {
        losses.lose(hold, "renewal failed until the lease ran out: " + e.getMessage());
      } else {
        log.debug("renewal of lock '{}' failed; retrying at the next tick", hold.name, e);
      }
    }
  }

  /** Stops renewing; the holds still held are lost (their owners learn it on unlock). */
  @Override
  public void close() {
    closed = true;
    holds.forEach(hold -> losses.lose(hold, "the lock factory was closed"));
    Thread renewer = thread;
    if (renewer != null) {
      LockSupport.unpark(renewer);
      try {
        renewer.join(TimeUnit.SECONDS.toMillis(1));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
