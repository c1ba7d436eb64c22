package io.github.redislock.internal;

import io.github.redislock.LockLostException;
import io.github.redislock.RedisLockException;
import io.github.redislock.internal.backend.Acquisition;
import io.github.redislock.internal.backend.LockBackend;
import io.github.redislock.internal.backend.LockKeys;
import io.github.redislock.internal.backend.Release;
import io.github.redislock.internal.util.Threads;
import io.github.redislock.internal.util.Ticker;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import redis.clients.jedis.UnifiedJedis;

/**
 * The {@code Lock} operations of one factory, written once for every backend: reentrancy counted in
 * the JVM, a JVM-local queue per name (only its head talks to Redis), the registry of names in use,
 * and {@link #close()}. The rest is done by pieces that own their state: {@link RedisWait} (one
 * acquisition's waiting), {@link LocalHandoff}, {@link Turns} (between processes), {@link
 * Releases}, {@link LeaseRenewer}, {@link LossReporter}, {@link WakeUpHub}, and {@link Hold} (one
 * hold, with its fencing token).
 *
 * <p>Everything here is keyed by lock name; {@code RedisDistributedLock} forwards to it with the
 * calling thread.
 */
public final class LockEngine implements AutoCloseable {
  private static final long MAX_TIMEOUT_NANOS = Long.MAX_VALUE / 4;

  /**
   * The most threads a factory runs for background Redis calls (renewals, clean-up releases, timed
   * attempts that could overrun their deadline), however stalled Redis is: the work queues beyond.
   */
  static final int MAX_IO_THREADS = 16;

  private final LockBackend backend;
  private final Settings settings;
  private final Ticker ticker;
  private final long validNanos;
  private final Lifecycle lifecycle = new Lifecycle();
  private final ExecutorService io;
  private final LossReporter losses;
  private final Releases releases;
  private final LocalHandoff handoff;
  private final Turns turns;
  private final WakeUpHub wakeUps;
  private final LeaseRenewer renewer;
  private final RedisWait.Context waiting;
  private final ExclusiveKind exclusive;
  private final NameRegistry states = new NameRegistry(lifecycle);
  private final LostHolds lost = new LostHolds(states);

  /**
   * An engine on {@code backend}.
   *
   * @param backend the Redis operations of the deployment
   * @param wakeUpSources the clients whose pub/sub channels carry the backend's wake-ups
   * @param settings the factory's settings
   */
  LockEngine(LockBackend backend, List<? extends UnifiedJedis> wakeUpSources, Settings settings) {
    this.backend = backend;
    this.settings = settings;
    this.ticker = settings.ticker;
    this.validNanos = settings.leaseNanos - backend.safetyMarginNanos();
    this.io = Threads.boundedPool("redis-lock-io", MAX_IO_THREADS);
    this.exclusive = new ExclusiveKind(backend);
    this.losses = new LossReporter(settings.onLockLost, lost::revoke);
    this.releases = new Releases(io, ticker, settings.leaseNanos);
    this.handoff = new LocalHandoff(ticker, releases);
    this.turns = new Turns(ticker);
    this.wakeUps = new WakeUpHub(wakeUpSources, io, ticker);
    this.renewer =
        new LeaseRenewer(settings.leaseNanos, validNanos, losses, io, states::forEachHold, ticker);
    this.waiting =
        new RedisWait.Context(
            wakeUps, turns, releases, io, lifecycle, ticker, settings.slowCallNanos(), validNanos);
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

  /**
   * Checks that {@code name} may name a lock: its key (the key prefix applied) must not be one that
   * another lock keeps beside its own ({@link LockKeys#checkLockKey}).
   *
   * @throws IllegalArgumentException if it may not
   */
  public void checkName(String name) {
    LockKeys.checkLockKey(settings.keyPrefix + name);
  }

  /** The name {@code name} of this engine's locks, with its keys (the key prefix applied). */
  public LockName lockName(String name) {
    return new LockName(
        name, LockKeys.of(settings.keyPrefix + Objects.requireNonNull(name, "name")));
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
      throw lost.lostOrNotHeld(name, true);
    }
    Hold hold = state.hold;
    if (hold.isLost()) {
      throw lost.drop(state, hold);
    }
    if (state.local.getHoldCount() > 1) {
      if (!state.local.unlockOnce()) {
        throw lost.lostOrNotHeld(name, true);
      }
      return;
    }
    if (!lifecycle.isClosed() && handoff.mayHandOff(state, hold)) {
      if (!handoff.handOff(state, hold)) {
        throw lost.lostOrNotHeld(name, true);
      }
      states.exit(state);
      return;
    }
    if (!hold.beginRelease()) {
      throw lost.drop(state, hold);
    }
    Release release;
    try {
      release = releases.releaseWithRetry(hold);
    } catch (RedisLockException e) {
      states.drop(state);
      throw new RedisLockException(
          "lock '"
              + name
              + "' was released in this JVM, but Redis could not confirm the release;"
              + " its key expires within the lease ("
              + settings.leaseMillis
              + " ms)",
          e);
    }
    // Recorded before the local queue moves on, so that the next local holder sees it.
    if (Turns.othersWaited(release, wakeUps.isSubscribed(state.keys.channel()))) {
      turns.giveWay(state.name);
    }
    states.drop(state);
    if (!release.released()) {
      throw new LockLostException(name, LossReporter.NOT_OURS + " before unlock");
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
      throw lost.lostOrNotHeld(name, false);
    }
    Hold hold = state.hold;
    if (!hold.isValid()) {
      throw new LockLostException(name, hold.lostReason());
    }
    exclusive.fencingWanted();
    long token = hold.fencingToken();
    if (token < 0) {
      losses.lose(hold, LossReporter.NOT_OURS);
      throw new LockLostException(name, hold.lostReason());
    }
    return token;
  }

  /** Throws {@link IllegalStateException} once the factory is closed. */
  public void checkOpen() {
    lifecycle.checkOpen();
  }

  /** Number of holds being renewed: for tests that check nothing leaks. */
  public int renewingCount() {
    return renewer.activeCount();
  }

  /** Number of names with local state: for tests that check nothing leaks. */
  public int namesInUse() {
    return states.size();
  }

  /** Number of threads queued locally for {@code name}: for tests. */
  public int queuedThreads(String name) {
    NameState state = states.get(name);
    return state == null ? 0 : state.local.getQueueLength();
  }

  /** Releases after which this factory gave other processes the next turn: for tests. */
  public long turnsGiven() {
    return turns.given();
  }

  /** Number of wake-up channels subscribed: for tests that check nothing leaks. */
  public int subscribedCount() {
    return wakeUps.subscribedCount();
  }

  /**
   * Stops renewals (holds still held are reported lost), wakes every waiter (they throw {@link
   * IllegalStateException}), and closes the clients the backend created.
   */
  @Override
  public void close() {
    if (!lifecycle.close()) {
      return;
    }
    try {
      renewer.close(); // the holds are lost, their local locks revoked
    } finally {
      try {
        states.all().forEach(state -> state.local.wakeQueuedAfterClose());
        wakeUps.close();
      } finally {
        io.shutdownNow();
        backend.close();
      }
    }
  }

  // ---- acquisition ----

  private boolean acquire(LockName name, Mode mode, long timeoutNanos) throws InterruptedException {
    checkOpen();
    if (mode == Mode.INTERRUPTIBLE || mode == Mode.TIMED) {
      if (Thread.interrupted()) {
        throw new InterruptedException();
      }
    }
    long deadline = ticker.read() + timeoutNanos;
    String lostReason = lost.learn(name.name);
    if (lostReason != null) {
      throw new LockLostException(name.name, lostReason);
    }
    NameState current = states.get(name.name);
    if (current != null && current.local.isHeldByCurrentThread()) {
      return reenter(current);
    }
    NameState state = states.enter(name);
    boolean owned = false;
    boolean acquired = false;
    try {
      owned = queueLocally(state, mode, timeoutNanos);
      acquired = owned && (takeHandOff(state) || acquireInRedis(state, mode, deadline));
      return acquired;
    } finally {
      if (!acquired) {
        // A hold published and then lost (the factory closing) was revoked, and exited for us.
        boolean exited = owned && !state.local.unlockAll();
        if (exited) {
          lost.learn(name.name); // nobody held it as far as the caller knows
        }
        handoff.releaseOrphan(state);
        if (!exited) {
          states.exit(state);
        }
      }
    }
  }

  private boolean reenter(NameState state) {
    Hold hold = state.hold;
    if (hold.isLost()) {
      throw lost.drop(state, hold);
    }
    if (!state.local.reenter()) {
      throw lost.lostOrNotHeld(state.name, true);
    }
    return true;
  }

  private static boolean queueLocally(NameState state, Mode mode, long timeoutNanos)
      throws InterruptedException {
    return switch (mode) {
      case ONCE -> state.local.tryLock();
      case TIMED -> state.local.tryLock(timeoutNanos);
      case INTERRUPTIBLE -> {
        state.local.lockInterruptibly();
        yield true;
      }
      case UNINTERRUPTIBLE -> {
        state.local.lock();
        yield true;
      }
    };
  }

  private boolean takeHandOff(NameState state) {
    Hold handed = handoff.take(state);
    return handed != null && lost.take(state, handed);
  }

  private boolean acquireInRedis(NameState state, Mode mode, long deadline)
      throws InterruptedException {
    RedisWait wait = new RedisWait(waiting, state.name, state.keys, exclusive, mode, deadline);
    if (!wait.run()) {
      return false;
    }
    install(state, wait.token(), wait.granted(), wait.attemptStart());
    return true;
  }

  private void install(NameState state, String token, Acquisition granted, long startNanos) {
    Hold hold =
        new Hold(
            exclusive,
            state.name,
            state.keys,
            token,
            granted.fencingToken(),
            granted.grant(),
            startNanos,
            startNanos + validNanos,
            ticker);
    handoff.acquiredInRedis(state);
    hold.takenBy(state.local); // before it is published, so that a loss can revoke it
    state.hold = hold;
    if (!renewer.start(hold)) {
      state.hold = null;
      releases.releaseLater(hold);
      checkOpen();
    }
  }
}
