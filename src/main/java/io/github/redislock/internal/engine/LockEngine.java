package io.github.redislock.internal.engine;

import io.github.redislock.internal.Acquisitions;
import io.github.redislock.internal.Hold;
import io.github.redislock.internal.HolderDescriptions;
import io.github.redislock.internal.Holds;
import io.github.redislock.internal.Lanes;
import io.github.redislock.internal.LeaseRenewer;
import io.github.redislock.internal.Lifecycle;
import io.github.redislock.internal.LocalHandoff;
import io.github.redislock.internal.LockNames;
import io.github.redislock.internal.LossReporter;
import io.github.redislock.internal.LostHolds;
import io.github.redislock.internal.Mutexes;
import io.github.redislock.internal.NameRegistry;
import io.github.redislock.internal.ObjectHolds;
import io.github.redislock.internal.Releases;
import io.github.redislock.internal.Settings;
import io.github.redislock.internal.Telemetry;
import io.github.redislock.internal.Timer;
import io.github.redislock.internal.Turns;
import io.github.redislock.internal.Waits;
import io.github.redislock.internal.backend.ConditionQueue;
import io.github.redislock.internal.backend.LockBackend;
import io.github.redislock.internal.backend.LockState;
import io.github.redislock.internal.backend.OrderedOps;
import io.github.redislock.internal.backend.ReadWriteOps;
import io.github.redislock.internal.condition.Conditions;
import io.github.redislock.internal.condition.LockConditions;
import io.github.redislock.internal.kind.ExclusiveKind;
import io.github.redislock.internal.kind.FairKind;
import io.github.redislock.internal.kind.FencedKind;
import io.github.redislock.internal.kind.WriteKind;
import io.github.redislock.internal.util.Threads;
import io.github.redislock.internal.util.Ticker;
import io.github.redislock.internal.wakeup.WakeUpHub;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.UnifiedJedis;

/**
 * One factory's engine: the machinery its locks share (renewal, loss reports, releases, handoff,
 * turns between processes, wake-ups, the background threads), its families of locks, each built
 * with the few pieces it uses, and {@link #close()}. A family ({@link Mutexes}) holds the {@code
 * Lock} operations of one kind of lock: the plain locks of {@code getLock}, and the fair locks of
 * {@code getFairLock}.
 */
public final class LockEngine implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(LockEngine.class);

  /*
   * Bulkheads. Renewals, timed attempts and clean-ups are calls to the node that serves their key
   * (LockBackend.nodeOf), on threads of that node: one node that stops answering holds up only its
   * own calls, and a renewal never waits behind an attempt. Each node serving a held or awaited
   * lock has up to ATTEMPT_THREADS_PER_NODE threads for attempts and clean-ups, with up to
   * ATTEMPTS_QUEUED_PER_NODE more calls waiting (beyond, an attempt fails as if Redis had, and a
   * clean-up leaves the key to its lease), and up to RENEWAL_THREADS_PER_NODE threads for renewals,
   * behind which at most one renewal per hold of the node waits. Threads start only when every
   * other one of their node is busy, and end after LANE_KEEP_ALIVE_SECONDS idle; a node's lanes go
   * with its last thread. Other bookkeeping (leaving a fair queue, withdrawing a writer's intent,
   * conditions, wake-up subscriptions' checks) runs on the factory's background threads.
   */

  /** The most threads for timed attempts and clean-ups of one node. */
  static final int ATTEMPT_THREADS_PER_NODE = 16;

  /** The most attempts and clean-ups of one node that wait for one of its threads. */
  static final int ATTEMPTS_QUEUED_PER_NODE = 256;

  /** The most threads for renewals of one node. */
  static final int RENEWAL_THREADS_PER_NODE = 8;

  /** How long a node's idle thread waits for work before it ends. */
  static final long LANE_KEEP_ALIVE_SECONDS = 10;

  /** How long {@link #close} waits for background calls still running before it closes clients. */
  static final long CLOSE_WAIT_MILLIS = 1000;

  /** The most threads for the factory's other background calls (its bookkeeping). */
  static final int MAX_BACKGROUND_THREADS = 16;

  private final LockBackend backend;
  private final Lifecycle lifecycle = new Lifecycle();
  private final ExecutorService io;
  private final Lanes attempts;
  private final Lanes renewals;
  private final Settings settings;
  private final Telemetry telemetry;
  private final LossReporter losses;
  private final Releases releases;
  private final LocalHandoff handoff;
  private final Turns turns;
  private final WakeUpHub wakeUps;
  private final LeaseRenewer renewer;
  private final Holds holds;
  private final Waits waits;
  private final LockNames names;
  private final Mutexes exclusive;
  private final LockConditions exclusiveConditions;
  private final Timer timer = new Timer();
  private final ObjectHolds.Machinery machinery;

  /** The fair locks, made at the first {@link #fair()} call: Redlock has none. */
  private volatile Mutexes fair;

  /** The fair locks' conditions, made with them. */
  private volatile LockConditions fairConditions;

  /** The read-write locks, made at the first {@link #readWrite()} call: Redlock has none. */
  private volatile ReadWriteFamily readWrite;

  /**
   * An engine on {@code backend}.
   *
   * @param backend the Redis operations of the deployment
   * @param wakeUpSources the clients whose pub/sub channels carry the backend's wake-ups
   * @param settings the factory's settings
   */
  public LockEngine(
      LockBackend backend, List<? extends UnifiedJedis> wakeUpSources, Settings settings) {
    this.backend = backend;
    this.settings = settings;
    Ticker ticker = settings.ticker;
    long validNanos = settings.leaseNanos - backend.safetyMarginNanos();
    this.io = Threads.boundedPool("redis-lock-background", MAX_BACKGROUND_THREADS);
    long keepAlive = TimeUnit.SECONDS.toNanos(LANE_KEEP_ALIVE_SECONDS);
    this.attempts =
        new Lanes(
            "redis-lock-io",
            backend::nodeOf,
            ATTEMPT_THREADS_PER_NODE,
            ATTEMPTS_QUEUED_PER_NODE,
            keepAlive);
    // Behind a node's renewal threads wait at most one renewal per hold of the node.
    this.renewals =
        new Lanes(
            "redis-lock-renewal",
            backend::nodeOf,
            RENEWAL_THREADS_PER_NODE,
            Integer.MAX_VALUE,
            keepAlive);
    this.telemetry = new Telemetry(settings.recordStats, settings.statsSink, ticker);
    this.losses =
        new LossReporter(
            event -> {
              telemetry.lost(event);
              settings.onLockLost.accept(event);
            },
            Hold::revokeLocally);
    this.releases = new Releases(attempts, ticker, settings.leaseNanos, telemetry);
    this.handoff = new LocalHandoff(ticker, releases, lifecycle);
    this.wakeUps = new WakeUpHub(wakeUpSources, io, ticker);
    this.turns = new Turns(ticker, wakeUps);
    HolderDescriptions holders = new HolderDescriptions(backend, settings.describeHolders);
    this.renewer =
        new LeaseRenewer(
            settings.leaseNanos,
            validNanos,
            losses,
            renewals,
            this::forEachHold,
            ticker,
            new LeaseRenewer.Renewals() {
              @Override
              public void renewed(Hold hold) {
                telemetry.renewed(hold);
                holders.renewed(hold);
              }

              @Override
              public void failed(Hold hold, RuntimeException e) {
                telemetry.renewalFailed(hold, e);
              }
            });
    this.names = new LockNames(settings.keyPrefix, backend, lifecycle);
    this.holds =
        new Holds(
            ticker,
            validNanos,
            settings.maxHoldNanos,
            renewer,
            releases,
            lifecycle,
            holders,
            backend.safetyMarginNanos() > 0);
    this.waits =
        new Waits(
            wakeUps,
            turns,
            releases,
            lifecycle,
            ticker,
            settings.slowCallNanos(),
            validNanos,
            attempts);
    holds.reportGivenLeasesOn(timer, losses);
    this.machinery =
        new ObjectHolds.Machinery(
            holds, wakeUps, losses, telemetry, attempts, timer, settings.slowCallNanos());
    this.exclusive = family(new Mutexes.Policy(new ExclusiveKind(backend), true, false));
    this.exclusiveConditions = conditions(exclusive, ConditionQueue.Kind.PLAIN);
  }

  /** A family of locks of {@code policy}, on the machinery of this engine. */
  private Mutexes family(Mutexes.Policy policy) {
    NameRegistry states = new NameRegistry(lifecycle, policy.firstComeFirstServed());
    LostHolds lost = new LostHolds(states);
    FencedKind kind = policy.kind();
    ObjectHolds handles = ObjectHolds.exclusive(machinery, kind);
    Acquisitions acquisitions =
        new Acquisitions(
            kind, states, lost, holds, waits, handoff, turns, telemetry, handles::leasedKind);
    return new Mutexes(
        policy, names, states, lost, acquisitions, releases, handoff, turns, losses, handles);
  }

  /**
   * The conditions of {@code family}, whose shared state is made at the first {@code newCondition}:
   * where the deployment has none (Redlock), that call throws.
   */
  private LockConditions conditions(Mutexes family, ConditionQueue.Kind kind) {
    return new LockConditions(
        () ->
            new Conditions(
                family,
                kind,
                OrderedOps.conditionQueue(backend.orderedOps()),
                settings.leaseNanos,
                io,
                wakeUps,
                releases,
                losses,
                lifecycle,
                settings.ticker));
  }

  /** The plain locks: {@code RedisLockFactory.getLock}. */
  public Mutexes exclusive() {
    return exclusive;
  }

  /** The conditions of the plain locks. */
  public LockConditions exclusiveConditions() {
    return exclusiveConditions;
  }

  /**
   * The fair locks: {@code RedisLockFactory.getFairLock}.
   *
   * @throws UnsupportedOperationException where the deployment has none (Redlock)
   */
  public Mutexes fair() {
    Mutexes family = fair;
    if (family == null) {
      synchronized (this) {
        family = fair;
        if (family == null) {
          FairKind kind = new FairKind(backend, io, settings.leaseNanos);
          family = family(new Mutexes.Policy(kind, false, true));
          fairConditions = conditions(family, ConditionQueue.Kind.FAIR);
          fair = family;
        }
      }
    }
    return family;
  }

  /**
   * The conditions of the fair locks.
   *
   * @throws UnsupportedOperationException where the deployment has no fair locks (Redlock)
   */
  public LockConditions fairConditions() {
    fair();
    return fairConditions;
  }

  /**
   * The read-write locks: {@code RedisLockFactory.getReadWriteLock}.
   *
   * @throws UnsupportedOperationException where the deployment has none (Redlock)
   */
  public ReadWriteFamily readWrite() {
    ReadWriteFamily family = readWrite;
    if (family == null) {
      synchronized (this) {
        family = readWrite;
        if (family == null) {
          WriteKind kind = new WriteKind(backend, io, settings.leaseNanos);
          ReadWriteOps ops = OrderedOps.readWriteOps(backend.orderedOps());
          Mutexes writes = family(new Mutexes.Policy(kind, false, false));
          family =
              new ReadWriteFamily(
                  writes,
                  conditions(writes, ConditionQueue.Kind.WRITE),
                  writes.shares(ops, lifecycle),
                  ObjectHolds.shared(machinery, ops));
          readWrite = family;
        }
      }
    }
    return family;
  }

  /**
   * A snapshot of the lock key of {@code name} (the key prefix applied), without taking the lock.
   *
   * @throws IllegalStateException if the factory is closed
   */
  public LockState inspect(String name) {
    lifecycle.checkOpen();
    return backend.inspect(exclusive.lockName(name).keys);
  }

  /**
   * Deletes the lock of {@code name} whoever holds it, and wakes its waiters.
   *
   * @return whether a key was deleted
   * @throws IllegalStateException if the factory is closed
   */
  public boolean forceUnlock(String name) {
    lifecycle.checkOpen();
    boolean deleted = backend.forceUnlock(exclusive.lockName(name).keys);
    log.warn("forceUnlock('{}'): {}", name, deleted ? "deleted" : "nothing to delete");
    return deleted;
  }

  /** The statistics so far: all zero unless the factory records them. */
  public Telemetry.Counts stats() {
    return telemetry.counts();
  }

  /** Throws {@link IllegalStateException} once the factory is closed. */
  public void checkOpen() {
    lifecycle.checkOpen();
  }

  /** Every hold of every family: what the renewer renews. */
  private void forEachHold(Consumer<Hold> action) {
    exclusive.forEachHold(action);
    Mutexes fairLocks = fair;
    if (fairLocks != null) {
      fairLocks.forEachHold(action);
    }
    ReadWriteFamily readWriteLocks = readWrite;
    if (readWriteLocks != null) {
      readWriteLocks.forEachHold(action);
    }
  }

  /**
   * What the factory is doing now: its holds being renewed, the names in use, the wake-up channels
   * subscribed, the background threads of each Redis node; and two counts since it was built.
   *
   * @param renewingHolds holds held and renewed (lost ones left out)
   * @param namesInUse distinct names some thread of this JVM holds or waits to acquire, in any
   *     family
   * @param subscribedChannels wake-up channels subscribed or being subscribed
   * @param threadsPerNode each node with background threads (its lanes' threads), and how many
   * @param turnsGiven releases after which this JVM gave way to other processes ({@link Turns})
   * @param spuriousWakeUps awaits on conditions woken without a signal they could see
   */
  public record Activity(
      int renewingHolds,
      int namesInUse,
      int subscribedChannels,
      Map<String, Integer> threadsPerNode,
      long turnsGiven,
      long spuriousWakeUps) {}

  /** The most threads of one node's lanes: for timed attempts and clean-ups, and for renewals. */
  public static final int MAX_THREADS_PER_NODE =
      ATTEMPT_THREADS_PER_NODE + RENEWAL_THREADS_PER_NODE;

  /**
   * What the factory is doing now. Each figure is read on its own, without stopping the threads
   * that change it: an estimate while they run. Allowed after {@link #close}.
   */
  public Activity activity() {
    Set<String> names = new HashSet<>();
    exclusive.namesInUse(names);
    Mutexes fairLocks = fair;
    if (fairLocks != null) {
      fairLocks.namesInUse(names);
    }
    ReadWriteFamily readWriteLocks = readWrite;
    if (readWriteLocks != null) {
      readWriteLocks.namesInUse(names);
    }
    Map<String, Integer> threads = new HashMap<>(attempts.threadsPerNode());
    renewals.threadsPerNode().forEach((node, count) -> threads.merge(node, count, Integer::sum));
    threads.values().removeIf(count -> count == 0);
    return new Activity(
        renewer.activeCount(),
        names.size(),
        wakeUps.subscribedCount(),
        threads,
        turns.given(),
        spuriousWakeUps());
  }

  /** Awaits on the conditions of every family woken without a signal they could see. */
  private long spuriousWakeUps() {
    long count = exclusiveConditions.spuriousWakeUps();
    LockConditions fairLocks = fairConditions;
    if (fairLocks != null) {
      count += fairLocks.spuriousWakeUps();
    }
    ReadWriteFamily readWriteLocks = readWrite;
    if (readWriteLocks != null) {
      count += readWriteLocks.spuriousWakeUps();
    }
    return count;
  }

  /**
   * Waits up to {@value #CLOSE_WAIT_MILLIS} ms for the background calls still running to end: one
   * that ran on after the clients closed could make a client open a connection again (a Cluster
   * client sets up a node's pool anew), which nobody would close.
   */
  private void awaitBackgroundCalls() {
    long deadline = Ticker.SYSTEM.read() + TimeUnit.MILLISECONDS.toNanos(CLOSE_WAIT_MILLIS);
    try {
      attempts.awaitEnd(deadline);
      renewals.awaitEnd(deadline);
      io.awaitTermination(Math.max(0, deadline - Ticker.SYSTEM.read()), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Stops renewals (holds still held are reported lost, their local locks revoked), wakes every
   * waiter (they throw {@link IllegalStateException}), and closes the clients the backend created.
   * Every step runs, whatever the one before it threw.
   */
  @Override
  public void close() {
    if (!lifecycle.close()) {
      return;
    }
    try {
      renewer.close();
    } finally {
      try {
        exclusive.wakeQueuedAfterClose();
        exclusiveConditions.close();
        Mutexes fairLocks = fair;
        if (fairLocks != null) {
          fairLocks.wakeQueuedAfterClose();
          fairConditions.close();
        }
        ReadWriteFamily readWriteLocks = readWrite;
        if (readWriteLocks != null) {
          readWriteLocks.wakeQueuedAfterClose();
        }
        wakeUps.close();
      } finally {
        timer.close();
        attempts.close(); // timed attempts' callers stop waiting
        renewals.close();
        io.shutdownNow();
        awaitBackgroundCalls();
        backend.close();
      }
    }
  }
}
