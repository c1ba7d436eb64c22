package io.github.redislock.internal;

import io.github.redislock.LockLostEvent;
import io.github.redislock.LockLostException;
import io.github.redislock.RedisLockException;
import io.github.redislock.internal.backend.Acquisition;
import io.github.redislock.internal.backend.Failures;
import io.github.redislock.internal.backend.LockBackend;
import io.github.redislock.internal.backend.LockKeys;
import io.github.redislock.internal.backend.RedlockBackend;
import io.github.redislock.internal.backend.Release;
import io.github.redislock.internal.backend.SingleNodeBackend;
import io.github.redislock.internal.util.Backoff;
import io.github.redislock.internal.util.Threads;
import io.github.redislock.internal.util.Tokens;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.UnifiedJedis;

/**
 * The {@code Lock} logic of one factory, written once for every backend: reentrancy counted in the
 * JVM, a JVM-local queue per name (only its head talks to Redis), waiting on wake-ups and lease
 * ends, deadlines and interrupts, renewal and loss reporting.
 *
 * <p>Everything here is keyed by lock name; {@code RedisDistributedLock} forwards to it with the
 * calling thread.
 */
public final class LockEngine implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(LockEngine.class);

  /*
   * Waiting. The head of a name's local queue tries Redis; when the lock is busy it subscribes
   * to the name's wake-up channel and waits until the first of: a wake-up (a release, or its
   * subscription becoming active, which closes the window between the failed attempt and the
   * subscription), the holder's remaining lease, a re-check interval, the caller's deadline.
   * The re-check is long when the holder is one of ours (it publishes on release) and the
   * subscription is active, short otherwise (a foreign holder never publishes).
   *
   * Deadlines. Computed once from System.nanoTime(). A Redis call cannot be interrupted and may
   * take up to the client's timeout (twice that when the pool reconnects in the caller's thread),
   * so a timed attempt that might overrun the deadline runs on the I/O executor, and the caller
   * stops waiting for it at the deadline; an abandoned attempt that turns out to have acquired
   * is released at once.
   */

  private static final long SHORT_RECHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
  private static final long LONG_RECHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(1500);
  private static final long TIMED_GRACE_NANOS = TimeUnit.MILLISECONDS.toNanos(25);
  private static final long WARN_EVERY_NANOS = TimeUnit.SECONDS.toNanos(10);
  private static final long MAX_TIMEOUT_NANOS = Long.MAX_VALUE / 4;
  private static final int MAX_HANDOFFS = 16;
  private static final long MAX_HANDOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(20);
  private static final long MIN_YIELD_NANOS = TimeUnit.MILLISECONDS.toNanos(5);
  private static final long MAX_YIELD_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

  private enum Mode {
    /** {@code tryLock()}: one attempt. */
    ONCE,
    /** {@code tryLock(time, unit)}. */
    TIMED,
    /** {@code lockInterruptibly()}. */
    INTERRUPTIBLE,
    /** {@code lock()}: waits through interrupts and Redis outages. */
    UNINTERRUPTIBLE
  }

  private final LockBackend backend;
  private final String keyPrefix;
  private final long leaseMillis;
  private final long leaseNanos;
  private final long slowCallNanos;
  private final long safetyMarginNanos;
  private final LeaseRenewer renewer;
  private final List<WakeUps> wakeUps;
  private final ExecutorService io;
  private final ConcurrentHashMap<String, NameState> states = new ConcurrentHashMap<>();

  /** Releases after which this factory gave way to other processes: for tests. */
  private final LongAdder turnsGiven = new LongAdder();

  /** Until when this JVM's next attempt on a name gives way to other processes. */
  private final ConcurrentHashMap<String, Long> yields = new ConcurrentHashMap<>();

  private final Set<Signal> waiters = ConcurrentHashMap.newKeySet();
  private volatile boolean closed;

  /**
   * Whether anyone asked this factory for a fencing token: from then on every acquisition issues
   * its token at once, in the same script, rather than at the first request, which would cost a
   * round trip more. Until then acquisitions are a plain {@code SET NX PX}.
   */
  private volatile boolean fencingWanted;

  /**
   * A moving average of the round trip of an attempt that found the lock busy, for the yield to
   * other processes.
   */
  private volatile long roundTripNanos = TimeUnit.MICROSECONDS.toNanos(100);

  private LockEngine(
      LockBackend backend,
      String keyPrefix,
      Duration leaseTime,
      Duration commandTimeout,
      Consumer<LockLostEvent> onLockLost) {
    this.backend = backend;
    this.keyPrefix = keyPrefix;
    this.leaseMillis = leaseTime.toMillis();
    this.leaseNanos = leaseTime.toNanos();
    // A pooled Jedis call to a stalled server can take two socket timeouts plus a connect.
    this.slowCallNanos = commandTimeout.toNanos() * 3;
    this.safetyMarginNanos = backend.safetyMarginNanos(leaseMillis);
    this.io =
        new ThreadPoolExecutor(
            0,
            Integer.MAX_VALUE,
            10,
            TimeUnit.SECONDS,
            new SynchronousQueue<>(),
            Threads.daemon("redis-lock-io"));
    this.renewer =
        new LeaseRenewer(
            backend, leaseMillis, safetyMarginNanos, onLockLost, io, this::forEachHold);
    this.wakeUps = backend.wakeUpSources().stream().map(source -> new WakeUps(source, io)).toList();
  }

  /**
   * An engine on one Redis deployment.
   *
   * @param client the client: a standalone, Sentinel or Cluster {@code UnifiedJedis}
   * @param ownsClient whether {@link #close()} closes it
   * @param keyPrefix prepended to every lock name to form its key
   * @param leaseTime the lease of every hold, renewed while held
   * @param commandTimeout the longest one Redis command is expected to take
   * @param onLockLost told of every hold lost before its release
   * @return the engine
   */
  public static LockEngine singleNode(
      UnifiedJedis client,
      boolean ownsClient,
      String keyPrefix,
      Duration leaseTime,
      Duration commandTimeout,
      Consumer<LockLostEvent> onLockLost) {
    return new LockEngine(
        new SingleNodeBackend(client, ownsClient, companionTtlMillis(leaseTime)),
        keyPrefix,
        leaseTime,
        commandTimeout,
        onLockLost);
  }

  /**
   * An engine running the Redlock algorithm over independent masters.
   *
   * @param masters one client per master, at least three
   * @param labels how each master is named in messages
   * @param ownsClients whether {@link #close()} closes them
   * @param keyPrefix prepended to every lock name to form its key
   * @param leaseTime the lease of every hold, renewed while held
   * @param commandTimeout the longest one Redis command is expected to take
   * @param nodeTimeout how long one operation waits for each node
   * @param onLockLost told of every hold lost before its release
   * @return the engine
   */
  public static LockEngine redlock(
      List<? extends UnifiedJedis> masters,
      List<String> labels,
      boolean ownsClients,
      String keyPrefix,
      Duration leaseTime,
      Duration commandTimeout,
      Duration nodeTimeout,
      Consumer<LockLostEvent> onLockLost) {
    return new LockEngine(
        new RedlockBackend(
            masters,
            labels,
            ownsClients,
            companionTtlMillis(leaseTime),
            nodeTimeout.toNanos(),
            commandTimeout.toNanos()),
        keyPrefix,
        leaseTime,
        commandTimeout,
        onLockLost);
  }

  private static long companionTtlMillis(Duration leaseTime) {
    return Math.max(2 * leaseTime.toMillis(), TimeUnit.MINUTES.toMillis(1));
  }

  /**
   * A lock name with its Redis keys, derived once per lock object rather than at every call.
   * Obtained from {@link #lockName(String)}.
   */
  public static final class LockName {
    final String name;
    final LockKeys keys;

    private LockName(String name, LockKeys keys) {
      this.name = name;
      this.keys = keys;
    }

    @Override
    public String toString() {
      return name;
    }
  }

  /** The name {@code name} of this engine's locks, with its keys (the key prefix applied). */
  public LockName lockName(String name) {
    return new LockName(name, keysOf(name));
  }

  // ---- Lock ----

  public void lock(LockName name) {
    try {
      acquire(name, Mode.UNINTERRUPTIBLE, 0);
    } catch (InterruptedException e) {
      throw new AssertionError("lock() does not throw InterruptedException", e);
    }
  }

  public void lockInterruptibly(LockName name) throws InterruptedException {
    acquire(name, Mode.INTERRUPTIBLE, 0);
  }

  public boolean tryLock(LockName name) {
    try {
      return acquire(name, Mode.ONCE, 0);
    } catch (InterruptedException e) {
      throw new AssertionError("tryLock() does not throw InterruptedException", e);
    }
  }

  public boolean tryLock(LockName name, long timeoutNanos) throws InterruptedException {
    if (timeoutNanos <= 0) {
      if (Thread.interrupted()) {
        throw new InterruptedException();
      }
      return acquire(name, Mode.ONCE, 0);
    }
    return acquire(name, Mode.TIMED, Math.min(timeoutNanos, MAX_TIMEOUT_NANOS));
  }

  public void unlock(LockName lockName) {
    String name = lockName.name;
    NameState state = states.get(name);
    if (state == null || !state.local.isHeldByCurrentThread()) {
      throw new IllegalMonitorStateException(
          "the current thread does not hold lock '" + name + "'");
    }
    Hold hold = state.hold;
    if (hold.isLost()) {
      drop(state);
      throw new LockLostException(name, hold.lostReason());
    }
    if (state.local.getHoldCount() > 1) {
      state.local.unlock();
      return;
    }
    if (mayHandOff(state, hold)) {
      handOff(state, hold);
      return;
    }
    if (!hold.beginRelease()) {
      drop(state);
      throw new LockLostException(name, hold.lostReason());
    }
    Release release;
    try {
      release = releaseWithRetry(hold);
    } catch (RedisLockException e) {
      drop(state);
      throw new RedisLockException(
          "lock '"
              + name
              + "' was released in this JVM, but Redis could not confirm the release;"
              + " its key expires within the lease ("
              + leaseMillis
              + " ms)",
          e);
    }
    // Recorded before the local queue moves on, so that the next local holder sees it.
    if (othersWaited(release, state.keys.channel())) {
      // Other processes wait: this JVM's next attempt gives them a head start. It costs nothing
      // when they take the lock (the attempt would have failed), and bounds how long a waiter
      // that went away can delay this JVM. Kept by name, not in the name's state, which goes
      // when this was its last user: a thread that locks again at once must give way as well.
      turnsGiven.increment();
      rememberYield(state.name, System.nanoTime() + yieldNanos());
    }
    drop(state);
    if (!release.released()) {
      throw new LockLostException(
          name, "the lock key was deleted, expired or taken by another owner before unlock");
    }
  }

  // ---- queries ----

  public boolean isHeldByCurrentThread(LockName name) {
    NameState state = states.get(name.name);
    if (state == null || !state.local.isHeldByCurrentThread()) {
      return false;
    }
    Hold hold = state.hold;
    return hold != null && hold.isValid();
  }

  public int getHoldCount(LockName name) {
    NameState state = states.get(name.name);
    return isHeldByCurrentThread(name) ? state.local.getHoldCount() : 0;
  }

  public boolean isLocked(LockName name) {
    checkOpen();
    return backend.isLocked(name.keys);
  }

  public long getFencingToken(LockName lockName) {
    String name = lockName.name;
    NameState state = states.get(name);
    if (state == null || !state.local.isHeldByCurrentThread()) {
      throw new IllegalMonitorStateException(
          "the current thread does not hold lock '" + name + "'");
    }
    Hold hold = state.hold;
    if (!hold.isValid()) {
      throw new LockLostException(name, hold.lostReason());
    }
    if (!fencingWanted) {
      fencingWanted = true;
    }
    if (hold.fenceStale) {
      long fence = backend.reissueFence(hold.keys, hold.token, hold.grant);
      if (fence < 0) {
        renewer.lose(hold, "the lock key was deleted, expired or taken by another owner");
        throw new LockLostException(name, hold.lostReason());
      }
      hold.fencingToken = fence;
      hold.fenceConfirmed = true;
      hold.fenceStale = false;
    } else if (!hold.fenceConfirmed) {
      if (!backend.confirmFence(hold.keys, hold.token, hold.fencingToken)) {
        renewer.lose(hold, "the lock key was deleted, expired or taken by another owner");
        throw new LockLostException(name, hold.lostReason());
      }
      hold.fenceConfirmed = true;
    }
    return hold.fencingToken;
  }

  /** Throws {@link IllegalStateException} once the factory is closed. */
  public void checkOpen() {
    if (closed) {
      throw new IllegalStateException("this RedisLockFactory is closed");
    }
  }

  /** Number of holds being renewed: for tests that check nothing leaks. */
  public int renewingCount() {
    return renewer.activeCount();
  }

  /** Releases after which this factory gave other processes the next turn: for tests. */
  public long turnsGiven() {
    return turnsGiven.sum();
  }

  /** Number of wake-up channels subscribed: for tests that check nothing leaks. */
  public int subscribedCount() {
    return wakeUps.stream().mapToInt(WakeUps::subscribedCount).sum();
  }

  /**
   * Stops renewals (holds still held are reported lost), wakes every waiter (they throw {@link
   * IllegalStateException}), and closes the clients the backend created.
   */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    renewer.close();
    waiters.forEach(Signal::raise);
    wakeUps.forEach(WakeUps::close);
    io.shutdownNow();
    backend.close();
  }

  // ---- acquisition ----

  private boolean acquire(LockName name, Mode mode, long timeoutNanos) throws InterruptedException {
    checkOpen();
    if (mode == Mode.INTERRUPTIBLE || mode == Mode.TIMED) {
      if (Thread.interrupted()) {
        throw new InterruptedException();
      }
    }
    long deadline = System.nanoTime() + timeoutNanos;
    NameState current = states.get(name.name);
    if (current != null && current.local.isHeldByCurrentThread()) {
      return reenter(current);
    }
    NameState state = enter(name);
    boolean acquired = false;
    boolean queued = false;
    try {
      queued = queueLocally(state, mode, timeoutNanos);
      if (!queued) {
        return false;
      }
      try {
        acquired = takeHandOff(state) || acquireInRedis(state, mode, deadline);
      } finally {
        if (!acquired) {
          state.local.unlock();
        }
      }
      return acquired;
    } finally {
      if (!acquired) {
        releaseOrphanedHandOff(state);
        exit(state);
      }
    }
  }

  /*
   * Local handoff. When the last unlock finds other threads of this JVM queued for the name, the
   * Redis hold (its key, token and renewal) passes to the next of them without a release and a new
   * acquisition: two round trips saved per holder. It is bounded, so that other processes do not
   * starve: at most MAX_HANDOFFS holders in a row and MAX_HANDOFF_NANOS after the Redis
   * acquisition; then a real release. When other processes waited at that release (more listeners
   * on the wake-up channel than this factory's own subscription), this JVM gives them the next
   * turn: its next attempt waits, subscribed, until one of them releases (which wakes it at once,
   * and tells that process that this one waits, so turns alternate) or a short yield has passed.
   * Each new holder gets a
   * new fencing token, issued when first asked for (a token is only binding once the holder has
   * seen it). A handoff that nobody takes (every queued thread gave up) is released by the last
   * thread to leave the queue.
   */

  private boolean mayHandOff(NameState state, Hold hold) {
    return !closed
        && state.handoffs < MAX_HANDOFFS
        && state.local.hasQueuedThreads()
        && hold.isValid()
        && System.nanoTime() - hold.acquiredAtNanos < MAX_HANDOFF_NANOS;
  }

  private void handOff(NameState state, Hold hold) {
    state.handoffs++;
    hold.fenceStale = true;
    state.hold = null;
    state.handoff = hold;
    state.local.unlock();
    releaseOrphanedHandOff(state);
    exit(state);
  }

  /** The new owner of {@code state.local} takes the hold handed to it, if any and still good. */
  private boolean takeHandOff(NameState state) {
    Hold handed = state.handoff;
    if (handed == null) {
      return false;
    }
    state.handoff = null;
    if (handed.isValid()) {
      state.hold = handed;
      return true;
    }
    if (handed.beginRelease()) { // its lease ran out unconfirmed: release it, and start over
      releaseLater(handed.keys, handed.token);
    }
    return false;
  }

  /**
   * Releases a handed-off hold that no queued thread will take: called by every thread that leaves
   * the queue without the lock, and by the thread that handed it off.
   */
  private void releaseOrphanedHandOff(NameState state) {
    if (state.handoff == null || state.local.hasQueuedThreads() || !state.local.tryLock()) {
      return;
    }
    try {
      Hold orphan = state.handoff;
      if (orphan != null && !state.local.hasQueuedThreads()) {
        state.handoff = null;
        if (orphan.beginRelease()) {
          releaseLater(orphan.keys, orphan.token);
        }
      }
    } finally {
      state.local.unlock();
    }
  }

  /**
   * Whether other processes (or factories) waited for the lock when it was released: more listeners
   * on its wake-up channel than this factory's own subscription, which stays a while after this
   * JVM's last waiter left.
   */
  private boolean othersWaited(Release release, String channel) {
    if (release.listeners() == 0) {
      return false;
    }
    boolean own = false;
    for (WakeUps source : wakeUps) {
      own |= source.isSubscribed(channel);
    }
    return release.listeners() > (own ? 1 : 0);
  }

  private long yieldNanos() {
    return Math.max(MIN_YIELD_NANOS, Math.min(MAX_YIELD_NANOS, 10 * roundTripNanos));
  }

  private boolean reenter(NameState state) {
    Hold hold = state.hold;
    if (hold.isLost()) {
      throw new LockLostException(state.name, hold.lostReason());
    }
    state.local.lock();
    return true;
  }

  private static boolean queueLocally(NameState state, Mode mode, long timeoutNanos)
      throws InterruptedException {
    switch (mode) {
      case ONCE:
        return state.local.tryLock();
      case TIMED:
        return state.local.tryLock(timeoutNanos, TimeUnit.NANOSECONDS);
      case INTERRUPTIBLE:
        state.local.lockInterruptibly();
        return true;
      default:
        state.local.lock();
        return true;
    }
  }

  private boolean acquireInRedis(NameState state, Mode mode, long deadline)
      throws InterruptedException {
    Signal signal = null;
    boolean subscribed = false;
    Backoff backoff = null;
    boolean interrupted = false;
    boolean answered = false;
    boolean busyStill = false;
    long lastWarn = 0;
    try {
      long yieldUntil = mode == Mode.ONCE || yields.isEmpty() ? 0 : takeYield(state.name);
      if (yieldUntil != 0 && yieldUntil - System.nanoTime() > 0) {
        signal = waitingSignal();
        // Subscribed while giving way: the other processes' releases then count this JVM as
        // waiting (so they give way in turn), and the first of them ends the pause.
        Signal registered = signal;
        wakeUps.forEach(w -> w.register(state.keys.channel(), registered));
        subscribed = true;
        long pause = yieldUntil - System.nanoTime();
        if (mode == Mode.TIMED) {
          pause = Math.min(pause, deadline - System.nanoTime());
        }
        interrupted |= await(signal, pause, mode);
      }
      while (true) {
        checkOpen();
        // A fresh token per attempt: a failed attempt is cleaned up in the background, and that
        // cleanup must not delete what a later attempt acquires.
        String token = Tokens.next();
        long start = System.nanoTime();
        Acquisition attempt;
        // After "busy" and no wake-up since, the lock is most likely still busy: the script
        // answers that, and for how long, in one round trip. Otherwise the plain SET NX PX.
        LockBackend.Ask ask =
            fencingWanted
                ? LockBackend.Ask.FENCED
                : busyStill ? LockBackend.Ask.PROBE : LockBackend.Ask.PLAIN;
        try {
          attempt = attempt(state, token, ask, mode, deadline, answered);
        } catch (RedisLockException e) {
          releaseLater(state.keys, token);
          if (mode == Mode.ONCE || !Failures.isTransient(e)) {
            throw e;
          }
          long now = System.nanoTime();
          if (mode == Mode.TIMED && deadline - now <= 0) {
            throw e;
          }
          if (lastWarn == 0 || now - lastWarn >= WARN_EVERY_NANOS) {
            lastWarn = now;
            log.warn(
                "Redis is unavailable to acquire lock '{}'; retrying: {}",
                state.name,
                e.getMessage());
          }
          backoff = backoff == null ? new Backoff() : backoff;
          long pause = backoff.nextNanos();
          if (mode == Mode.TIMED) {
            pause = Math.min(pause, deadline - now);
          }
          signal = signal == null ? waitingSignal() : signal;
          interrupted |= await(signal, pause, mode);
          answered = false;
          busyStill = false;
          continue;
        }
        if (attempt.acquired()) {
          install(state, token, attempt, start);
          return true;
        }
        // Measured on busy answers only: the yield matters under contention, and the uncontended
        // path then writes no field that every thread of the factory shares.
        long roundTrip = System.nanoTime() - start;
        roundTripNanos += (roundTrip - roundTripNanos) / 8;
        answered = true;
        if (mode == Mode.ONCE) {
          return false;
        }
        long now = System.nanoTime();
        if (mode == Mode.TIMED && deadline - now <= 0) {
          return false;
        }
        if (!subscribed) {
          signal = signal == null ? waitingSignal() : signal;
          Signal registered = signal;
          wakeUps.forEach(w -> w.register(state.keys.channel(), registered));
          subscribed = true;
        }
        long wait = waitNanos(attempt, state.keys.channel());
        if (mode == Mode.TIMED) {
          wait = Math.min(wait, deadline - now);
        }
        busyStill = !signal.await(wait);
        interrupted |= afterWait(mode);
      }
    } finally {
      if (signal != null) {
        Signal registered = signal;
        waiters.remove(registered);
        if (subscribed) {
          wakeUps.forEach(w -> w.unregister(state.keys.channel(), registered));
        }
      }
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** One attempt; a timed one that could overrun its deadline runs on the I/O executor. */
  private Acquisition attempt(
      NameState state,
      String token,
      LockBackend.Ask ask,
      Mode mode,
      long deadline,
      boolean answeredBefore)
      throws InterruptedException {
    long budget = deadline - System.nanoTime();
    if (mode != Mode.TIMED || budget > slowCallNanos) {
      return backend.tryAcquire(state.keys, token, leaseMillis, ask);
    }
    CompletableFuture<Acquisition> call;
    try {
      call =
          CompletableFuture.supplyAsync(
              () -> backend.tryAcquire(state.keys, token, leaseMillis, ask), io);
    } catch (RejectedExecutionException e) {
      checkOpen();
      throw e;
    }
    try {
      return call.get(Math.max(budget, TIMED_GRACE_NANOS), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      releaseWhenDone(call, state.keys, token);
      if (answeredBefore) {
        return Acquisition.busy(0, false); // the last answer was "held by another"
      }
      throw new RedisLockException(
          "Redis did not answer before the deadline while acquiring lock '" + state.name + "'", e);
    } catch (InterruptedException e) {
      releaseWhenDone(call, state.keys, token);
      throw e;
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof RuntimeException runtime) {
        throw runtime;
      }
      throw new RedisLockException("acquiring lock '" + state.name + "' failed", cause);
    }
  }

  private long waitNanos(Acquisition busy, String channel) {
    boolean active = wakeUps.stream().anyMatch(w -> w.isActive(channel));
    long recheck =
        Backoff.jitter(busy.holderPublishes() && active ? LONG_RECHECK_NANOS : SHORT_RECHECK_NANOS);
    if (busy.holderTtlMillis() >= 0) {
      long ttl = TimeUnit.MILLISECONDS.toNanos(busy.holderTtlMillis() + 1);
      return Math.min(recheck, ttl);
    }
    return recheck;
  }

  /**
   * Waits on {@code signal}. Interruptible modes throw on interrupt; {@code lock()} clears the flag
   * (so the wait does not spin) and answers {@code true}, for the flag to be re-set at the end.
   */
  private boolean await(Signal signal, long nanos, Mode mode) throws InterruptedException {
    signal.await(nanos);
    return afterWait(mode);
  }

  /** What {@link #await} does after the wait, for callers that wait on the signal themselves. */
  private static boolean afterWait(Mode mode) throws InterruptedException {
    if (Thread.interrupted()) {
      if (mode == Mode.UNINTERRUPTIBLE) {
        return true;
      }
      throw new InterruptedException();
    }
    return false;
  }

  private Signal waitingSignal() {
    Signal signal = new Signal();
    waiters.add(signal);
    if (closed) {
      signal.raise();
    }
    return signal;
  }

  private void install(NameState state, String token, Acquisition granted, long startNanos) {
    Hold hold =
        new Hold(
            state.name,
            state.keys,
            token,
            granted.fencingToken(),
            granted.grant(),
            startNanos,
            startNanos + leaseNanos - safetyMarginNanos);
    state.handoffs = 0;
    state.hold = hold;
    if (!renewer.start(hold)) {
      state.hold = null;
      releaseLater(state.keys, token);
      checkOpen();
    }
  }

  // ---- release ----

  /**
   * Releases; a transient failure is retried once (its reply may have been lost). After a failed
   * attempt, which may have deleted the key, "not the owner" is no proof that the hold was lost.
   * The lease tells: the key cannot have expired before the lease as last confirmed ends (Redis
   * starts counting it after this process did), so a key found gone or taken before then was
   * released by the first attempt. Later, the release is reported unconfirmed rather than lost.
   */
  private Release releaseWithRetry(Hold hold) {
    try {
      return backend.release(hold.keys, hold.token, hold.fencingToken, hold.grant);
    } catch (RedisLockException first) {
      if (!Failures.isTransient(first)) {
        throw first;
      }
      Release release;
      try {
        release = backend.release(hold.keys, hold.token, hold.fencingToken, hold.grant);
      } catch (RedisLockException second) {
        second.addSuppressed(first);
        throw second;
      }
      if (release.released()) {
        return release;
      }
      if (System.nanoTime() - (hold.leaseEndNanos() - leaseNanos / 100) < 0) { // 1% for drift
        return Release.RELEASED; // the first attempt released, and its reply was lost
      }
      throw first;
    }
  }

  /** Releases {@code token} in the background, if it holds the key: for abandoned attempts. */
  private void releaseLater(LockKeys keys, String token) {
    try {
      io.execute(() -> releaseQuietly(keys, token));
    } catch (RejectedExecutionException e) {
      log.debug("factory closed; not cleaning up an abandoned attempt on '{}'", keys.lock());
    }
  }

  private void releaseWhenDone(CompletableFuture<Acquisition> call, LockKeys keys, String token) {
    call.whenComplete(
        (attempt, failure) -> {
          if (failure != null || attempt.acquired()) {
            releaseQuietly(keys, token);
          }
        });
  }

  private void releaseQuietly(LockKeys keys, String token) {
    try {
      backend.release(keys, token, 0, null);
    } catch (RuntimeException e) {
      log.debug("could not clean up an abandoned attempt on '{}'", keys.lock(), e);
    }
  }

  /** Clears the current thread's hold of {@code state}, whatever its count. */
  private void drop(NameState state) {
    state.hold = null;
    for (int count = state.local.getHoldCount(); count > 0; count--) {
      state.local.unlock();
    }
    exit(state);
  }

  // ---- per-name state ----

  /** Every hold of this factory: held, handed off to a queued thread, or lost but not returned. */
  private void forEachHold(Consumer<Hold> action) {
    for (NameState state : states.values()) {
      Hold hold = state.hold;
      Hold handed = state.handoff;
      if (hold != null) {
        action.accept(hold);
      }
      if (handed != null && handed != hold) {
        action.accept(handed);
      }
    }
  }

  /** Remembers a yield; forgets the expired ones now and then, so that the map stays small. */
  private void rememberYield(String name, long untilNanos) {
    if (yields.size() >= 64) {
      long now = System.nanoTime();
      yields.values().removeIf(until -> until - now <= 0);
    }
    yields.put(name, untilNanos);
  }

  /** Takes the yield owed on {@code name}: until when, or 0 for none. The next attempt pays it. */
  private long takeYield(String name) {
    Long until = yields.remove(name);
    return until == null ? 0 : until;
  }

  private NameState enter(LockName name) {
    return states.compute(
        name.name,
        (n, state) -> {
          NameState entered = state != null ? state : new NameState(n, name.keys);
          entered.users++;
          return entered;
        });
  }

  private void exit(NameState state) {
    states.computeIfPresent(
        state.name,
        (n, current) -> {
          if (current == state && --current.users == 0) {
            return null;
          }
          return current;
        });
  }

  private LockKeys keysOf(String name) {
    return LockKeys.of(keyPrefix + Objects.requireNonNull(name, "name"));
  }
}
