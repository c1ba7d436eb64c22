package io.github.redislock.faults;

import static org.awaitility.Awaitility.await;

import io.github.redislock.LockLostException;
import io.github.redislock.RedisDistributedLock;
import io.github.redislock.RedisLockException;
import io.github.redislock.RedisLockFactory;
import io.github.redislock.RedisReadWriteLock;
import io.github.redislock.testing.Fault;
import io.github.redislock.testing.RedisInvariants;
import io.github.redislock.testing.RedisServer;
import io.github.redislock.testing.RespProxy;
import io.github.redislock.testing.Timing;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import org.awaitility.core.ConditionTimeoutException;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/**
 * One run of the hostile-connection tests: two factories on a {@link
 * io.github.redislock.testing.ProxiedDeployment}, two worker threads each, lock one or two names of
 * one kind of lock with every acquisition method while the proxies inject each kind of {@link
 * FaultKind fault} in turn, one stage per kind. Each stage aims its fault at a random command label
 * the proxies saw (or at any command), after a random number of matches, with random parameters,
 * all drawn from the run's seed; under Redlock, at one master.
 *
 * <p>Checked during and after every stage: no two holders at once ({@link Overlaps}); {@code
 * tryLock()} false only while someone held, wanted, or may still have held the name ({@link
 * Claims}); every failure a {@link RedisLockException}, never another exception, and no hold lost;
 * once the faults stop and the proxies have delivered what they held, every name is free again
 * within {@link #CLEANUP_GRACE} for every factory (nothing left behind for nobody). At the end:
 * within one lease, no key of the run is left in Redis but the fencing counter hash ({@code
 * :lock-meta}, which outlives the lease by design, with a TTL); no renewal running, no {@code
 * redis-lock-} thread, no connection of the library through the proxies, no subscription.
 *
 * <p>{@value #ROUNDS_PROPERTY} (default 1) sets how many times each fault kind gets a stage;
 * {@value #SEED_PROPERTY} replays a run (each failure message prints it).
 */
final class HostileRun {
  /** The system property with the number of rounds of stages. */
  static final String ROUNDS_PROPERTY = "redislock.test.hostile.rounds";

  /** The system property with the base seed. */
  static final String SEED_PROPERTY = "redislock.test.hostile.seed";

  /** The system property that prints the report of a run that passed too. */
  static final String VERBOSE_PROPERTY = "redislock.test.hostile.verbose";

  /** The lease of every factory. */
  static final Duration LEASE = Timing.scaled(Duration.ofMillis(1500));

  /** The socket timeout of every client (Redlock: three times the node timeout). */
  static final Duration COMMAND_TIMEOUT = Timing.scaled(Duration.ofMillis(250));

  /** How long after the faults stop every name must be free again. */
  static final Duration CLEANUP_GRACE =
      COMMAND_TIMEOUT.multipliedBy(2).plus(Timing.scaled(Duration.ofMillis(150)));

  private static final long BASE_SEED = Long.getLong(SEED_PROPERTY, new SecureRandom().nextLong());
  private static final int ROUNDS = Integer.getInteger(ROUNDS_PROPERTY, 1);
  private static final String LIBRARY_CLIENTS = "redis-lock";
  private static final int WORKERS_PER_FACTORY = 2;
  private static final Duration LONGEST_DELAY =
      COMMAND_TIMEOUT.plus(Timing.scaled(Duration.ofMillis(250)));

  /** How long an acquisition that did not acquire may still keep its name busy. */
  private static final Duration ABANDONED =
      LONGEST_DELAY
          .plus(COMMAND_TIMEOUT.multipliedBy(2))
          .plus(Timing.scaled(Duration.ofMillis(100)));

  private static final Duration HIT_WAIT = Timing.scaled(Duration.ofMillis(500));
  private static final Duration SETTLE = Timing.scaled(Duration.ofMillis(100));
  private static final int MAX_LISTED = 25;
  private static final Duration NEAR = Duration.ofMillis(300);
  private static final Duration CONNECTIONS_CLOSED = Timing.scaled(Duration.ofSeconds(2));
  private static final int WARM_UP_ACQUISITIONS = 8;
  private static final int MIN_SEEN = 3;

  /** Commands of a connection's set-up: rare, so not aimed at by label (any command may be). */
  private static final java.util.Set<String> SET_UP =
      java.util.Set.of("HELLO", "AUTH", "CLIENT", "SELECT", "SCRIPT", "INFO");

  /** The kinds of lock a run can use. */
  enum LockKind {
    PLAIN,
    FAIR,
    READ_WRITE,
    CONDITION
  }

  /** The kinds of fault, one stage each per round. */
  enum FaultKind {
    /** A RESP3 push frame before or after a reply. */
    PUSH,
    /**
     * A reply delayed, shorter or longer than the socket timeout, or a command delayed (it runs
     * late), shorter than the socket timeout: longer than the timed attempts' waits, so that it
     * lands after its caller gave up. (A command that lands after its sender's socket timeout can
     * run after the clean-up sent on another connection and keep its key for the lease, as
     * docs/redlock.md says; the probe would report it, so that case is not drawn.)
     */
    DELAY,
    /** A reply in pieces of one to three bytes. */
    SPLIT,
    /** A reset after the command ran (its reply lost) or before (it never runs). */
    RESET,
    /** A black hole after the command ran or before. */
    BLACK_HOLE
  }

  /** What a run needs of its deployment. */
  record Setup(
      String deployment,
      Supplier<RedisLockFactory> factories,
      List<RespProxy> proxies,
      List<RedisServer> servers,
      boolean redlock,
      Supplier<List<String>> unproxiedClients,
      Runnable afterFactoriesClosed) {}

  private final Setup setup;
  private final LockKind kind;
  private final long seed;
  private final Random random;
  private final String prefix;
  private final List<String> names;
  private final Map<String, Long> labelsBefore = new HashMap<>();
  private final java.util.Set<String> connectionsBefore = new java.util.HashSet<>();
  private final List<RedisLockFactory> factories = new ArrayList<>();
  private final Overlaps overlaps = new Overlaps();
  private final Claims claims = new Claims();
  private final List<String> problems = Collections.synchronizedList(new ArrayList<>());
  private final List<String> stages = new ArrayList<>();
  private final Map<String, AtomicInteger> items = new ConcurrentHashMap<>();
  private final AtomicLong holdIds = new AtomicLong();
  private final long startNanos = System.nanoTime();
  private final LongAdder acquired = new LongAdder();
  private final LongAdder refused = new LongAdder();
  private final LongAdder redisErrors = new LongAdder();
  private volatile boolean stopped;
  private volatile String stage = "setup";

  private HostileRun(Setup setup, LockKind kind, String test) {
    this.setup = setup;
    this.kind = kind;
    this.seed = BASE_SEED * 31 + test.hashCode();
    this.random = new Random(seed);
    this.prefix = "hostile:" + test + ":";
    this.names = List.of(prefix + "a", prefix + "{b}");
    names.forEach(n -> items.put(n, new AtomicInteger()));
  }

  /**
   * Runs the stages and the checks, and fails with a report naming the seed when one failed.
   *
   * @param setup the deployment
   * @param kind the kind of lock
   * @param test the test's name, part of the lock names and of the seed
   */
  static void run(Setup setup, LockKind kind, String test) {
    new HostileRun(setup, kind, test).run();
  }

  private void run() {
    System.out.println(
        "Hostile connections: "
            + setup.deployment()
            + ", "
            + kind
            + " locks, -D"
            + SEED_PROPERTY
            + "="
            + BASE_SEED
            + " -D"
            + ROUNDS_PROPERTY
            + "="
            + ROUNDS);
    try {
      labelsBefore.putAll(labelCounts(setup.proxies()));
      setup.proxies().forEach(p -> p.connections().forEach(c -> connectionsBefore.add(id(p, c))));
      List<String> before = keysOf("");
      if (!before.isEmpty()) {
        problem("keys of the run's names were there before it started: " + before);
      }
      for (int i = 0; i < 2; i++) {
        factories.add(setup.factories().get());
      }
      warmUp();
      for (int round = 0; round < ROUNDS; round++) {
        for (FaultKind fault : FaultKind.values()) {
          stage(round, fault);
        }
      }
      stage = "end";
      checkNoOrphans();
    } catch (RuntimeException | Error e) {
      problem("the run itself failed: " + stackTrace(e));
    } finally {
      closeAndCheckLeaks();
    }
    if (!problems.isEmpty()) {
      throw new AssertionError(report());
    }
    if (Boolean.getBoolean(VERBOSE_PROPERTY)) {
      System.out.println(report());
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Stages

  private void stage(int round, FaultKind faultKind) {
    stage = "round " + round + " " + faultKind;
    List<RespProxy> targets =
        setup.redlock()
            ? List.of(setup.proxies().get(random.nextInt(setup.proxies().size())))
            : setup.proxies();
    Recipe recipe = Recipe.draw(faultKind, random, labelsSeen(targets), names);
    long stageStart = System.nanoTime();
    long stageSeed = random.nextLong();
    long faultsFrom = System.nanoTime();
    ExecutorService workers = startWorkers(stageSeed);
    Fault fault = recipe.build();
    String fallback = "";
    try {
      inject(targets, fault);
      if (!hit(fault, 1, HIT_WAIT)) {
        setup.proxies().forEach(RespProxy::clearFaults);
        Fault missed = fault;
        recipe = recipe.onAnyCommand();
        fault = recipe.build();
        fallback = missed + " hit nothing; then ";
        inject(targets, fault);
        // Any command of the library matches now: on a loaded machine the workers may send none
        // for a while (another test JVM has the cores), so only a long silence is a problem.
        if (!hit(fault, 1, Timing.awaitAtMost())) {
          problem(
              fault
                  + " never hit in "
                  + Timing.awaitAtMost().toMillis()
                  + " ms: the workload sent no command of the library; "
                  + workerStacks());
        }
      }
      letRun();
      stopWorkers(workers);
    } finally {
      if (!workers.isShutdown()) {
        stopWorkers(workers);
      }
      setup.proxies().forEach(RespProxy::clearFaults);
    }
    stages.add(ms(stageStart) + " " + describeStage(fallback, fault));
    awaitQuietProxies();
    claims.takeUnexplained().forEach(this::unexplained);
    probe(faultsFrom);
  }

  /**
   * Runs the workload without faults until it has acquired a few times, so that its connections are
   * open and the first stage has the library's commands to aim at; checks that every connection
   * goes through a proxy.
   */
  private void warmUp() {
    stage = "warm-up";
    ExecutorService workers = startWorkers(random.nextLong());
    try {
      await("the workload acquires without faults")
          .atMost(Timing.awaitAtMost())
          .pollInterval(Duration.ofMillis(5))
          .until(() -> acquired.sum() >= WARM_UP_ACQUISITIONS);
      checkProxied();
    } finally {
      stopWorkers(workers);
    }
    awaitQuietProxies();
    claims.takeUnexplained().forEach(this::unexplained);
  }

  private boolean hit(Fault fault, int hits, Duration within) {
    try {
      await()
          .atMost(within)
          .pollDelay(Duration.ZERO)
          .pollInterval(Duration.ofMillis(5))
          .until(() -> fault.hitCount() >= hits);
      return true;
    } catch (ConditionTimeoutException e) {
      return false;
    }
  }

  /** Lets the workers run on after the hits, while the faults work. */
  private void letRun() {
    await("the workers keep running")
        .during(SETTLE)
        .atMost(SETTLE.plus(Timing.awaitAtMost()))
        .until(() -> !stopped);
  }

  private void unexplained(Claims.Refusal r) {
    problem(
        "tryLock() returned false with nobody holding or wanting "
            + r.name()
            + (kind == LockKind.READ_WRITE ? (r.shared() ? " (read)" : " (write)") : "")
            + ": "
            + r.who()
            + " until "
            + ms(r.toNanos())
            + "; the claims on it within "
            + NEAR.toMillis()
            + " ms: "
            + claims
                .near(r.name(), r.fromNanos() - NEAR.toNanos(), r.toNanos() + NEAR.toNanos())
                .stream()
                .map(
                    c ->
                        c.what()
                            + " ["
                            + ms(c.fromNanos())
                            + ", "
                            + ms(c.toNanos())
                            + "]"
                            + (c.shared() ? " shared" : ""))
                .toList());
  }

  private void inject(List<RespProxy> targets, Fault fault) {
    targets.forEach(p -> p.inject(fault));
  }

  private String describeStage(String fallback, Fault fault) {
    List<String> hits = fault.hits();
    return stage
        + ": "
        + fallback
        + fault
        + ", hits: "
        + (hits.isEmpty() ? "none" : String.join("; ", hits))
        + " [so far: "
        + acquired.sum()
        + " acquired, "
        + refused.sum()
        + " refused, "
        + redisErrors.sum()
        + " RedisLockException]";
  }

  /**
   * The command labels the library sent through {@code proxies} in this run, each once, sorted: a
   * less frequent command (a renewal, a condition's signal) is aimed at as often as the frequent
   * ones; one seen fewer than {@value #MIN_SEEN} times (sent once at a start, or at a close) is
   * left out, as it would likely not come again within the stage.
   */
  private List<String> labelsSeen(List<RespProxy> proxies) {
    java.util.TreeSet<String> labels = new java.util.TreeSet<>();
    labelCounts(proxies)
        .forEach(
            (label, n) -> {
              if (!SET_UP.contains(label) && n - labelsBefore.getOrDefault(label, 0L) >= MIN_SEEN) {
                labels.add(label);
              }
            });
    return List.copyOf(labels);
  }

  private static Map<String, Long> labelCounts(List<RespProxy> proxies) {
    Map<String, Long> counts = new HashMap<>();
    proxies.forEach(
        p -> p.commandsSeen(LIBRARY_CLIENTS).forEach((l, n) -> counts.merge(l, n, Long::sum)));
    return counts;
  }

  private void checkProxied() {
    List<String> unproxied = setup.unproxiedClients().get();
    if (!unproxied.isEmpty()) {
      problem(
          "client connections that bypass the proxies: "
              + unproxied
              + " DEBUG "
              + setup.proxies().stream()
                  .map(p -> p.serverSidePorts() + " " + p.connections())
                  .toList());
    }
  }

  private void awaitQuietProxies() {
    try {
      await("the proxies deliver what they held")
          .atMost(Timing.awaitAtMost())
          .pollInterval(Duration.ofMillis(10))
          .until(() -> setup.proxies().stream().allMatch(RespProxy::isQuiet));
    } catch (ConditionTimeoutException e) {
      problem("a proxy kept holding a reply: " + e.getMessage());
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Workers

  private ExecutorService startWorkers(long stageSeed) {
    stopped = false;
    int count = factories.size() * WORKERS_PER_FACTORY;
    AtomicInteger threadIds = new AtomicInteger();
    ExecutorService workers =
        Executors.newFixedThreadPool(
            count,
            r -> {
              Thread t = new Thread(r, "hostile-worker-" + threadIds.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
    for (int i = 0; i < count; i++) {
      int index = i;
      RedisLockFactory factory = factories.get(i / WORKERS_PER_FACTORY);
      Random r = new Random(stageSeed + i);
      workers.execute(() -> work(index, factory, r));
    }
    return workers;
  }

  private void stopWorkers(ExecutorService workers) {
    stopped = true;
    workers.shutdown();
    try {
      if (!workers.awaitTermination(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS)) {
        problem("the workers did not stop: " + workerStacks());
        workers.shutdownNow();
        workers.awaitTermination(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  private void work(int index, RedisLockFactory factory, Random r) {
    String who = "worker " + index + " of factory " + (char) ('A' + index / WORKERS_PER_FACTORY);
    Map<String, RedisDistributedLock> conditionLocks = new HashMap<>();
    Map<String, Condition> conditions = new HashMap<>();
    try {
      while (!stopped) {
        String name = names.get(r.nextInt(names.size()));
        boolean shared = kind == LockKind.READ_WRITE && r.nextInt(5) < 3;
        Lock lock;
        if (kind == LockKind.CONDITION) {
          lock = conditionLocks.computeIfAbsent(name, factory::getLock);
          conditions.computeIfAbsent(name, n -> conditionLocks.get(n).newCondition());
        } else {
          lock = lockOf(factory, name, shared);
        }
        Acquisition a = acquire(lock, name, shared, who, r);
        if (a == null) {
          continue;
        }
        Overlaps.Holder h = holder(who, a.how(), a.endNanos(), shared);
        overlaps.enter(name, h);
        if (kind == LockKind.CONDITION) {
          h = useCondition((RedisDistributedLock) lock, conditions.get(name), name, h, who, r);
          if (h == null) {
            claims.claim(
                new Claims.Claim(
                    name, false, a.startNanos(), now() + LEASE.toNanos(), who + " failed await"));
            continue; // an await failed and released the lock
          }
        } else {
          hold(r);
        }
        overlaps.exit(name, h);
        release(lock, name, shared, who, a, h);
      }
    } catch (RuntimeException | Error e) {
      problem(who + " died: " + stackTrace(e));
    }
  }

  private Lock lockOf(RedisLockFactory factory, String name, boolean shared) {
    return switch (kind) {
      case PLAIN, CONDITION -> factory.getLock(name);
      case FAIR -> factory.getFairLock(name);
      case READ_WRITE -> {
        RedisReadWriteLock rw = factory.getReadWriteLock(name);
        yield shared ? rw.readLock() : rw.writeLock();
      }
    };
  }

  /** One acquisition that acquired: how, and when its call started and ended. */
  private record Acquisition(String how, long startNanos, long endNanos) {}

  private Acquisition acquire(Lock lock, String name, boolean shared, String who, Random r) {
    int dice = r.nextInt(20);
    long waitMillis = Timing.scaled(Duration.ofMillis(10 + r.nextInt(140))).toMillis();
    String how =
        dice < 7
            ? "tryLock()"
            : dice < 15
                ? "tryLock(" + waitMillis + " ms)"
                : dice < 18 ? "lock()" : "lockInterruptibly()";
    long start = now();
    boolean got = false;
    Throwable failure = null;
    try {
      if (dice < 7) {
        got = lock.tryLock();
      } else if (dice < 15) {
        got = lock.tryLock(waitMillis, TimeUnit.MILLISECONDS);
      } else if (dice < 18) {
        lock.lock();
        got = true;
      } else {
        lock.lockInterruptibly();
        got = true;
      }
    } catch (RedisLockException e) {
      failure = e;
      redisErrors.increment();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      failure = e;
      problem(who + ": " + how + " on " + name + " was interrupted, though nobody interrupts");
    } catch (RuntimeException | Error e) {
      failure = e;
      problem(
          who
              + ": "
              + how
              + " on "
              + name
              + " threw, other than RedisLockException: "
              + stackTrace(e));
    }
    long end = now();
    if (got) {
      acquired.increment();
      return new Acquisition(how, start, end);
    }
    String what = who + " " + how + (failure == null ? " false" : " threw") + " at " + ms(start);
    boolean refusal = failure == null && dice < 7;
    if (refusal) {
      refused.increment();
      claims.refusal(new Claims.Refusal(name, shared, factoryOf(who), start, end, what));
    }
    if (!refusal || setup.redlock()) {
      // Its attempt may still acquire and be released in the background, or, after a failure,
      // leave its key for the lease. Under Redlock a refused tryLock() may have taken a minority.
      long slack = (failure == null ? ABANDONED : LEASE.plus(ABANDONED)).toNanos();
      claims.claim(new Claims.Claim(name, shared, start, end + slack, what));
    }
    return null;
  }

  /** The factory a worker's calls go through, as its description names it. */
  private static String factoryOf(String who) {
    return who.substring(who.lastIndexOf(' ') + 1);
  }

  private void hold(Random r) {
    if (r.nextInt(150) == 0) {
      LockSupport.parkNanos(LEASE.toNanos() * 4 / 10); // long enough for a renewal
    } else {
      LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(r.nextInt(1500)));
    }
  }

  private void release(
      Lock lock, String name, boolean shared, String who, Acquisition a, Overlaps.Holder h) {
    long slack = 0;
    try {
      lock.unlock();
    } catch (LockLostException e) {
      overlaps.lost(h.id());
      problem(
          who
              + ": the hold of "
              + name
              + " taken by "
              + a.how()
              + " at "
              + ms(a.startNanos())
              + " was lost: "
              + e);
    } catch (RedisLockException e) {
      redisErrors.increment();
      slack = LEASE.toNanos(); // its key may stay for the lease
    } catch (RuntimeException | Error e) {
      problem(
          who
              + ": unlock() of "
              + name
              + " threw, other than RedisLockException: "
              + stackTrace(e));
    }
    claims.claim(
        new Claims.Claim(name, shared, a.startNanos(), now() + slack, who + " held by " + a.how()));
  }

  /**
   * Produces an item and signals, or takes one, awaiting it a little; returns the holder after the
   * awaits, or null when an await ended without the lock.
   */
  private Overlaps.Holder useCondition(
      RedisDistributedLock lock,
      Condition condition,
      String name,
      Overlaps.Holder h,
      String who,
      Random r) {
    AtomicInteger count = items.get(name);
    if (r.nextBoolean()) {
      count.set(count.get() + 1);
      try {
        if (r.nextInt(4) == 0) {
          condition.signalAll();
        } else {
          condition.signal();
        }
      } catch (RedisLockException e) {
        redisErrors.increment();
      } catch (RuntimeException | Error e) {
        problem(
            who
                + ": signal on "
                + name
                + " threw, other than RedisLockException: "
                + stackTrace(e));
      }
      return h;
    }
    Overlaps.Holder current = h;
    for (int waits = 0; count.get() == 0 && waits < 2 && !stopped; waits++) {
      overlaps.exit(name, current);
      long start = now();
      long slack = 0;
      try {
        condition.await(
            Timing.scaled(Duration.ofMillis(20 + r.nextInt(80))).toMillis(), TimeUnit.MILLISECONDS);
      } catch (RedisLockException e) {
        redisErrors.increment();
        slack = LEASE.toNanos();
      } catch (LockLostException e) {
        problem(who + ": await on " + name + " found its hold lost: " + e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        problem(who + ": await on " + name + " was interrupted, though nobody interrupts");
      } catch (RuntimeException | Error e) {
        problem(
            who + ": await on " + name + " threw, other than RedisLockException: " + stackTrace(e));
      }
      long end = now();
      claims.claim(new Claims.Claim(name, false, start, end + slack, who + " awaiting"));
      if (!lock.isHeldByCurrentThread()) {
        return null;
      }
      current = holder(who, "await", end, false);
      overlaps.enter(name, current);
    }
    int left = count.get();
    if (left > 0) {
      count.set(left - 1);
    }
    return current;
  }

  private Overlaps.Holder holder(String who, String how, long atNanos, boolean shared) {
    return new Overlaps.Holder(
        holdIds.incrementAndGet(), who + " by " + how + " at " + ms(atNanos), shared);
  }

  // ---------------------------------------------------------------------------------------------
  // Checks after a stage and at the end

  /** Every name is free for every factory again, soon after the faults ended. */
  private void probe(long faultsFromNanos) {
    for (String name : names) {
      for (int f = 0; f < factories.size(); f++) {
        RedisLockFactory factory = factories.get(f);
        try {
          await()
              .atMost(CLEANUP_GRACE)
              .pollDelay(Duration.ZERO)
              .pollInterval(Duration.ofMillis(20))
              .until(() -> lockable(factory, name));
        } catch (ConditionTimeoutException e) {
          problem(
              "after "
                  + stage
                  + " (faults from "
                  + ms(faultsFromNanos)
                  + "), "
                  + name
                  + " stayed unavailable to factory "
                  + (char) ('A' + f)
                  + " for "
                  + CLEANUP_GRACE.toMillis()
                  + " ms after the faults ended and the proxies were quiet, with nobody holding or"
                  + " wanting it; in Redis: "
                  + keysOf(name));
          try {
            await().atMost(LEASE.plus(CLEANUP_GRACE)).until(() -> lockable(factory, name));
          } catch (ConditionTimeoutException stillNot) {
            problem(name + " stayed unavailable for a lease more: " + keysOf(name));
          }
        }
      }
    }
  }

  private boolean lockable(RedisLockFactory factory, String name) {
    try {
      return switch (kind) {
        case PLAIN, CONDITION -> lockable(factory.getLock(name));
        case FAIR -> lockable(factory.getFairLock(name));
        case READ_WRITE -> {
          RedisReadWriteLock rw = factory.getReadWriteLock(name);
          yield lockable(rw.readLock()) && lockable(rw.writeLock());
        }
      };
    } catch (RedisLockException e) {
      return false;
    }
  }

  private boolean lockable(Lock lock) {
    if (!lock.tryLock()) {
      return false;
    }
    try {
      lock.unlock();
    } catch (LockLostException e) {
      problem("the probe's own hold, just taken by tryLock(), was lost at its unlock(): " + e);
      return false;
    }
    return true;
  }

  /** Within a lease, no key of the run is left but the fencing counter hash, with a TTL. */
  private void checkNoOrphans() {
    try {
      await("no key of the run left but counter hashes that expire")
          .atMost(LEASE.plus(CLEANUP_GRACE))
          .pollInterval(Duration.ofMillis(50))
          .until(() -> orphans().isEmpty());
    } catch (ConditionTimeoutException e) {
      problem("keys left a lease after the run: " + orphans());
    }
  }

  /**
   * The keys of the run but those that outlive a lease by design, with a TTL: the fencing counter
   * hash, and a fair lock's leases ({@code :lock-ft}) or a read-write lock's writer intents ({@code
   * :lock-wi}) when they hold only bars (see docs/fair.md and docs/read-write.md: the key lives on
   * until a script drops its ended bars, or expires).
   */
  private List<String> orphans() {
    List<String> left = new ArrayList<>();
    for (String key : keysOf("")) {
      boolean expires = !key.contains("pttl -1");
      boolean byDesign =
          key.contains(":lock-meta ")
              || ((key.contains(":lock-ft ") || key.contains(":lock-wi "))
                  && key.contains("bars only"));
      if (!(byDesign && expires)) {
        left.add(key);
      }
    }
    return left;
  }

  /** The run's keys containing {@code part}, on every server, with their type and TTL. */
  private List<String> keysOf(String part) {
    List<String> found = new ArrayList<>();
    for (RedisServer server : setup.servers()) {
      try (Jedis j = server.jedis()) {
        ScanParams params =
            new ScanParams().match("*" + prefix.replace("{", "\\{") + "*").count(1000);
        String cursor = ScanParams.SCAN_POINTER_START;
        do {
          ScanResult<String> page = j.scan(cursor, params);
          for (String key : page.getResult()) {
            if (key.contains(part)) {
              String type = j.type(key);
              found.add(
                  key
                      + " ("
                      + type
                      + ", pttl "
                      + j.pttl(key)
                      + ("string".equals(type) ? ", value " + j.get(key) : "")
                      + ("zset".equals(type) ? ", " + members(j, key) : "")
                      + ") on "
                      + server);
            }
          }
          cursor = page.getCursor();
        } while (!ScanParams.SCAN_POINTER_START.equals(cursor));
      } catch (RuntimeException e) {
        found.add("(cannot scan " + server + ": " + e + ")");
      }
    }
    return found;
  }

  /** A sorted set's members and scores, and "bars only" when every score is negative. */
  private static String members(Jedis j, String key) {
    List<redis.clients.jedis.resps.Tuple> all = j.zrangeWithScores(key, 0, MAX_LISTED);
    boolean barsOnly = all.stream().allMatch(t -> t.getScore() < 0);
    return all.stream().map(t -> t.getElement() + "=" + (long) t.getScore()).toList()
        + (barsOnly ? " bars only" : "");
  }

  private void closeAndCheckLeaks() {
    stopped = true;
    for (RedisLockFactory factory : factories) {
      int renewing = factory.activity().renewingHoldCount();
      if (renewing != 0) {
        problem("a factory still renews " + renewing + " hold(s) after the run");
      }
      factory.close();
    }
    setup.afterFactoriesClosed().run();
    try {
      RedisInvariants.assertNoThreads("redis-lock-");
    } catch (ConditionTimeoutException e) {
      problem("threads left: " + e.getMessage());
    }
    try {
      // A connection being opened as the factory closed is named only once its HELLO passed: it
      // must stay closed a while too.
      await("the library's connections through the proxies are closed")
          .atMost(CONNECTIONS_CLOSED.plus(NEAR))
          .during(NEAR)
          .pollInterval(Duration.ofMillis(20))
          .until(() -> libraryConnections().isEmpty());
    } catch (ConditionTimeoutException e) {
      problem(
          "connections of the library left open after its factories closed (opened in this run): "
              + libraryConnections());
    }
    for (RedisServer server : setup.servers()) {
      try (Jedis j = server.jedis()) {
        RedisInvariants.assertNoSubscriptions(j);
      } catch (ConditionTimeoutException e) {
        problem("subscriptions left on " + server + ": " + e.getMessage());
      }
    }
  }

  private List<String> libraryConnections() {
    List<String> open = new ArrayList<>();
    for (RespProxy p : setup.proxies()) {
      for (RespProxy.ConnectionInfo c : p.connections()) {
        if (c.clientName() != null
            && c.clientName().startsWith(LIBRARY_CLIENTS)
            && !connectionsBefore.contains(id(p, c))) {
          open.add(p.label() + " " + c);
        }
      }
    }
    return open;
  }

  private static String id(RespProxy p, RespProxy.ConnectionInfo c) {
    return p.label() + " c" + c.id();
  }

  // ---------------------------------------------------------------------------------------------
  // Reporting

  private void problem(String what) {
    problems.add("[" + stage + ", at " + ms(now()) + "] " + what);
  }

  private String report() {
    List<Overlaps.Overlap> real = overlaps.overlapsNotExcused();
    StringBuilder b = new StringBuilder();
    b.append("Hostile connections: ")
        .append(setup.deployment())
        .append(", ")
        .append(kind)
        .append(" locks. Replay with -D")
        .append(SEED_PROPERTY)
        .append('=')
        .append(BASE_SEED)
        .append(" -D")
        .append(ROUNDS_PROPERTY)
        .append('=')
        .append(ROUNDS)
        .append(" (this test's seed ")
        .append(seed)
        .append(")\n");
    b.append(problems.size()).append(" problem(s):\n");
    synchronized (problems) {
      problems.stream().limit(MAX_LISTED).forEach(p -> b.append("  - ").append(p).append('\n'));
    }
    if (!real.isEmpty()) {
      b.append(real.size()).append(" overlap(s), two holders at once:\n");
      real.stream()
          .limit(MAX_LISTED)
          .forEach(
              o ->
                  b.append("  - at ")
                      .append(ms(o.atNanos()))
                      .append(": ")
                      .append(o.entering().who())
                      .append(" while ")
                      .append(o.present().stream().map(Overlaps.Holder::who).toList())
                      .append('\n'));
    }
    b.append("stages:\n");
    stages.forEach(s -> b.append("  - ").append(s).append('\n'));
    return b.toString();
  }

  private String ms(long nanos) {
    return TimeUnit.NANOSECONDS.toMillis(nanos - startNanos) + " ms";
  }

  private static long now() {
    return System.nanoTime();
  }

  private static String stackTrace(Throwable t) {
    StringWriter w = new StringWriter();
    t.printStackTrace(new PrintWriter(w));
    String trace = w.toString();
    return trace.length() <= 4000 ? trace : trace.substring(0, 4000) + "...";
  }

  private static String workerStacks() {
    StringBuilder b = new StringBuilder();
    Thread.getAllStackTraces()
        .forEach(
            (t, stack) -> {
              if (t.getName().startsWith("hostile-worker-")) {
                b.append('\n').append(t.getName()).append(' ').append(t.getState());
                for (StackTraceElement e : stack) {
                  b.append("\n    at ").append(e);
                }
              }
            });
    return b.toString();
  }

  /** A fault drawn for a stage, which can be built again aimed at any command. */
  private record Recipe(
      FaultKind kind,
      String label,
      int after,
      int times,
      int variant,
      Duration delay,
      int piece,
      String pushedKey) {

    static Recipe draw(FaultKind kind, Random r, List<String> labels, List<String> names) {
      String label =
          labels.isEmpty() || r.nextInt(3) == 0 ? null : labels.get(r.nextInt(labels.size()));
      int times =
          switch (kind) {
            case PUSH, SPLIT -> 1 + r.nextInt(3);
            case DELAY -> 1 + r.nextInt(3);
            case RESET, BLACK_HOLE -> 1;
          };
      int variant = r.nextInt(2);
      Duration delay =
          r.nextBoolean() || (kind == FaultKind.DELAY && variant == 1)
              ? Timing.scaled(Duration.ofMillis(50 + r.nextInt(100)))
              : COMMAND_TIMEOUT.plus(Timing.scaled(Duration.ofMillis(100 + r.nextInt(150))));
      return new Recipe(
          kind,
          label,
          r.nextInt(6),
          times,
          variant,
          delay,
          1 + r.nextInt(3),
          names.get(r.nextInt(names.size())));
    }

    Recipe onAnyCommand() {
      return new Recipe(kind, null, after, times, variant, delay, piece, pushedKey);
    }

    Fault build() {
      Fault f = (label == null ? Fault.onAnyCommand() : Fault.on(label)).ofClients(LIBRARY_CLIENTS);
      f.after(after).times(times);
      return switch (kind) {
        case PUSH ->
            variant == 0
                ? f.pushBeforeReply(Fault.invalidation(pushedKey))
                : f.pushAfterReply(Fault.invalidation(pushedKey));
        case DELAY -> variant == 0 ? f.delayReply(delay) : f.delayCommand(delay);
        case SPLIT -> f.splitReply(piece);
        case RESET -> variant == 0 ? f.loseReply() : f.resetBeforeCommand();
        case BLACK_HOLE -> variant == 0 ? f.blackHoleAfterCommand() : f.blackHoleBeforeCommand();
      };
    }
  }
}
