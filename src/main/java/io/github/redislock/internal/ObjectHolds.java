package io.github.redislock.internal;

import io.github.redislock.LockHandle;
import io.github.redislock.internal.backend.Acquisition;
import io.github.redislock.internal.backend.ReadWriteOps;
import io.github.redislock.internal.backend.Release;
import io.github.redislock.internal.kind.Attempts;
import io.github.redislock.internal.kind.LockKind;
import io.github.redislock.internal.kind.ReadKind;
import io.github.redislock.internal.kind.TokenRelease;
import io.github.redislock.internal.util.Ticker;
import io.github.redislock.internal.wakeup.WakeUpHub;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The holds of one family of locks (one mode of it) that handles own, not threads: their
 * acquisitions ({@link PendingHold}), which no thread waits for, and the handles held ({@link
 * HandleHold}), renewed, reported lost and closed with the factory's other holds. Acquisitions of
 * one name in an exclusive mode queue here, in the order they came, so that only the first asks
 * Redis (as threads queue on a name's local lock); shares do not queue.
 */
public final class ObjectHolds {
  private static final Logger log = LoggerFactory.getLogger(ObjectHolds.class);
  private static final long WARN_EVERY_NANOS = TimeUnit.SECONDS.toNanos(10);
  private static final int MAX_LEASED_KINDS = 64;

  /** What the holds of handles use of the factory's engine. */
  public record Machinery(
      Holds holds,
      WakeUpHub wakeUps,
      LossReporter losses,
      Telemetry telemetry,
      NodeExecutor attempts,
      Timer timer,
      long slowCallNanos) {
    Releases releases() {
      return holds.releases();
    }

    Lifecycle lifecycle() {
      return holds.lifecycle();
    }

    Ticker ticker() {
      return holds.ticker();
    }
  }

  /** The kind of a family's holds, for a lease given per call (0: the factory's). */
  @FunctionalInterface
  public interface Kinds {
    /**
     * The kind for a lease and a way of attempting.
     *
     * @param leaseMillis the lease, 0 for the factory's
     * @param barge whether it is a {@code tryLock()}-like attempt that takes a free lock whoever
     *     waits (a kind made per wait, as the read lock's, needs it at birth)
     */
    LockKind kind(long leaseMillis, boolean barge);
  }

  private final Machinery m;
  private final Kinds kinds;
  private final boolean queued;
  private final Set<HandleHold> held = ConcurrentHashMap.newKeySet();
  private final Set<PendingHold> pending = ConcurrentHashMap.newKeySet();
  private final ConcurrentHashMap<String, ArrayDeque<PendingHold>> lines =
      new ConcurrentHashMap<>();
  private final ConcurrentHashMap<Long, LockKind> leased = new ConcurrentHashMap<>();
  private volatile long lastWarn;
  private final Owner owner = new Owner();

  private Owner owner() {
    return owner;
  }

  /** The handles of a family of exclusive locks of {@code kind}: they queue by name. */
  public static ObjectHolds exclusive(Machinery machinery, LockKind kind) {
    return new ObjectHolds(machinery, (leaseMillis, barge) -> leased(kind, leaseMillis), true);
  }

  /** The handles of the read locks on {@code ops}: shares, which do not queue. */
  public static ObjectHolds shared(Machinery machinery, ReadWriteOps ops) {
    return new ObjectHolds(
        machinery,
        (leaseMillis, barge) -> new ReadKind(leasedOps(ops, leaseMillis), "", barge),
        false);
  }

  /** {@code kind} with a lease of {@code leaseMillis} given per call (0: the factory's). */
  private static LockKind leased(LockKind kind, long leaseMillis) {
    return leaseMillis == 0 ? kind : kind.withLease(leaseMillis);
  }

  /** {@code ops} with a lease of {@code leaseMillis} given per call (0: the factory's). */
  static ReadWriteOps leasedOps(ReadWriteOps ops, long leaseMillis) {
    return leaseMillis == 0 ? ops : ops.withLease(leaseMillis);
  }

  /**
   * The handles of one family (mode) of locks.
   *
   * @param kinds its kinds, by lease
   * @param queued whether its holds exclude each other: then acquisitions of a name queue here
   */
  public ObjectHolds(Machinery machinery, Kinds kinds, boolean queued) {
    this.m = machinery;
    this.kinds = kinds;
    this.queued = queued;
  }

  /**
   * Acquires a hold of {@code name} for a new handle.
   *
   * @param waitNanos how long it may wait: {@code Long.MAX_VALUE} for ever; 0 one attempt in turn
   *     (as {@code tryLock(0, unit)}); less than 0 one attempt that barges (as {@code tryLock()})
   * @param leaseNanos a lease given with the call, not renewed; 0 for the factory's, renewed
   * @throws IllegalStateException if the factory is closed
   */
  public CompletableFuture<Optional<LockHandle>> acquire(
      LockName name, long waitNanos, long leaseNanos) {
    m.lifecycle().checkOpen();
    Mode mode =
        waitNanos < 0
            ? Mode.ONCE
            : waitNanos == 0
                ? Mode.ONCE_IN_TURN
                : waitNanos == Long.MAX_VALUE ? Mode.UNINTERRUPTIBLE : Mode.TIMED;
    LockKind kind = kindFor(leaseNanos, mode == Mode.ONCE);
    Attempts attempts =
        switch (mode) {
          case ONCE -> kind.forWait(true);
          case ONCE_IN_TURN -> kind.forAttemptInTurn();
          default -> kind.forWait(false);
        };
    long deadline = m.ticker().read() + Math.min(Math.max(waitNanos, 0), Long.MAX_VALUE / 4);
    PendingHold acquisition =
        new PendingHold(
            owner, name, kind, attempts, mode, deadline, leaseNanos, m.telemetry().acquiring());
    pending.add(acquisition);
    // In the line before its deadline is armed: a deadline that passes at once takes it out again.
    boolean first = !queued || mode.once() || joinLine(acquisition);
    acquisition.arm();
    if (first) {
      if (mode == Mode.TIMED && waitNanos <= m.slowCallNanos()) {
        // A short wait: the attempt runs on the node's threads, so that a stalled Redis cannot
        // hold the caller past it (as a timed tryLock's would not).
        acquisition.submit();
      } else {
        acquisition.runFirst();
      }
    }
    if (m.lifecycle().isClosed()) {
      acquisition.future.completeExceptionally(
          new IllegalStateException("this RedisLockFactory is closed"));
    }
    return acquisition.future;
  }

  /** The kind of this family for a lease of {@code leaseNanos} given with a call (0: none). */
  public LockKind leasedKind(long leaseNanos) {
    return kindFor(leaseNanos, false);
  }

  /** The kind for {@code leaseNanos} (0: the factory's). */
  private LockKind kindFor(long leaseNanos, boolean barge) {
    long millis = leaseMillis(leaseNanos);
    if (barge || leased.size() >= MAX_LEASED_KINDS) {
      return kinds.kind(millis, barge);
    }
    return leased.computeIfAbsent(millis, ms -> kinds.kind(ms, false));
  }

  /** Milliseconds of a lease, rounded up (Redis counts in them); 0 stays 0. */
  private static long leaseMillis(long leaseNanos) {
    return leaseNanos <= 0 ? 0 : Math.max(1, (leaseNanos + 999_999) / 1_000_000);
  }

  /** Queues {@code acquisition} behind those of its name; {@code true} when it is first. */
  private boolean joinLine(PendingHold acquisition) {
    boolean[] first = new boolean[1];
    lines.compute(
        acquisition.name.name,
        (n, line) -> {
          ArrayDeque<PendingHold> queue = line == null ? new ArrayDeque<>() : line;
          queue.add(acquisition);
          first[0] = queue.peekFirst() == acquisition;
          return queue;
        });
    return first[0];
  }

  /** {@code acquisition} leaves its name's line; the next in line, if it was first, goes. */
  private void leaveLine(PendingHold acquisition) {
    PendingHold[] next = new PendingHold[1];
    lines.computeIfPresent(
        acquisition.name.name,
        (n, queue) -> {
          boolean wasFirst = queue.peekFirst() == acquisition;
          queue.remove(acquisition);
          if (queue.isEmpty()) {
            return null;
          }
          if (wasFirst) {
            next[0] = queue.peekFirst();
          }
          return queue;
        });
    if (next[0] != null) {
      next[0].submit();
    }
  }

  /** What the acquisitions and handles of these holds ask of them. */
  private final class Owner implements PendingHold.Owner, HandleHold.Owner {

    /** An acquisition ended, granted or not: counted, and out of the line. */
    @Override
    public void ended(PendingHold acquisition, boolean acquired, Throwable failure) {
      if (!pending.remove(acquisition)) {
        return;
      }
      if (queued) {
        leaveLine(acquisition);
      }
      Telemetry.Acquiring seen = acquisitionSeen(acquisition);
      if (seen != null) {
        m.telemetry()
            .acquisitionEnded(
                seen,
                acquisition.name.name,
                acquisition.kind(),
                acquisition.mode(),
                acquired,
                failure);
      }
    }

    private static Telemetry.Acquiring acquisitionSeen(PendingHold acquisition) {
      return acquisition.seen();
    }

    /** Publishes the hold an acquisition got, for a new handle, and renews it. */
    @Override
    public HandleHold install(
        PendingHold acquisition,
        LockKind kind,
        String token,
        Acquisition granted,
        long startNanos,
        long leaseNanos) {
      HandleHold[] handle = new HandleHold[1];
      Hold hold =
          m.holds()
              .newHold(
                  kind,
                  h -> forget(handle[0]),
                  acquisition.name,
                  token,
                  granted,
                  startNanos,
                  leaseNanos);
      handle[0] = new HandleHold(owner(), hold);
      held.add(handle[0]);
      m.holds().renew(hold, () -> held.remove(handle[0]));
      m.holds().describeHandle(hold);
      return handle[0];
    }

    @Override
    public Timer timer() {
      return m.timer();
    }

    @Override
    public NodeExecutor attempts() {
      return m.attempts();
    }

    @Override
    public WakeUpHub wakeUps() {
      return m.wakeUps();
    }

    @Override
    public long now() {
      return m.ticker().read();
    }

    @Override
    public boolean isClosed() {
      return m.lifecycle().isClosed();
    }

    @Override
    public long validNanos(long leaseNanos) {
      return m.holds().validNanos(leaseNanos);
    }

    @Override
    public void releaseLater(TokenRelease kind, LockName name, String token) {
      m.releases().releaseLater(kind, name.keys, token);
    }

    /** The wait's entry leaves Redis in the background. */
    @Override
    public void leaveLater(Attempts attempts, LockName name) {
      try {
        m.attempts().execute(name.keys, () -> leaveQuietly(attempts, name));
      } catch (RejectedExecutionException e) {
        // closing (the kind takes its waiters' entries out) or the node is stuck: its lease ends it
      }
    }

    private static void leaveQuietly(Attempts attempts, LockName name) {
      try {
        attempts.leave(name.keys);
      } catch (RuntimeException e) {
        log.debug("could not take a withdrawn wait for '{}' out of Redis", name.name, e);
      }
    }

    @Override
    public void releaseUnwanted(HandleHold handle) {
      try {
        handle.close();
      } catch (RuntimeException e) {
        log.debug("could not release an unwanted hold of '{}'", handle.name(), e);
      }
    }

    @Override
    public void warnUnavailable(PendingHold acquisition, RuntimeException e) {
      long now = now();
      long last = lastWarn;
      if (last == 0 || now - last >= WARN_EVERY_NANOS) {
        lastWarn = now;
        log.warn(
            "Redis is unavailable to acquire lock '{}'; retrying: {}",
            acquisition.name.name,
            e.getMessage());
      }
    }

    @Override
    public void lose(Hold hold, String reason) {
      m.losses().lose(hold, reason);
    }

    /** The handle's hold of a new lease of {@code leaseNanos}, not renewed. */
    @Override
    public boolean relet(Hold hold, long leaseNanos) {
      return m.holds().relet(hold, kindFor(leaseNanos, false), leaseNanos);
    }

    /**
     * Keeps a hold its handle released for {@code delayNanos} more in Redis; {@code false} when the
     * key was not the hold's any more.
     */
    @Override
    public boolean reletReleased(Hold hold, long delayNanos) {
      boolean ours = m.holds().relet(hold, kindFor(delayNanos, false), delayNanos);
      m.telemetry().released(hold, hold.kind, ours);
      return ours;
    }

    @Override
    public Release releaseByOwner(Hold hold) {
      return m.releases().byOwner(hold, null);
    }

    /** The handle is done with its hold: released, or lost. */
    @Override
    public void forget(HandleHold handle) {
      if (handle != null) {
        held.remove(handle);
      }
    }
  }

  // ---- for the engine ----

  /** Every hold of a handle: what the renewer renews, and close reports lost. */
  public void forEachHold(Consumer<Hold> action) {
    for (HandleHold handle : held) {
      action.accept(handle.hold);
    }
  }

  /** Adds the names that handles hold or wait for to {@code names}. */
  public void namesInUse(Set<String> names) {
    held.forEach(handle -> names.add(handle.name()));
    pending.forEach(acquisition -> names.add(acquisition.name.name));
  }

  /** The acquisitions pending now. */
  public int pendingCount() {
    return pending.size();
  }

  /**
   * The factory closed: every pending acquisition completes with its {@code IllegalStateException}.
   */
  public void close() {
    List<PendingHold> all = new ArrayList<>(pending);
    for (PendingHold acquisition : all) {
      acquisition.future.completeExceptionally(
          new IllegalStateException("this RedisLockFactory is closed"));
    }
  }
}
