package io.github.redislock.soak;

import static org.awaitility.Awaitility.await;

import io.github.redislock.LockLostException;
import io.github.redislock.RedisDistributedLock;
import io.github.redislock.RedisLockException;
import io.github.redislock.RedisLockFactory;
import io.github.redislock.RedisReadWriteLock;
import io.github.redislock.testing.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import org.awaitility.core.ConditionTimeoutException;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.args.ClientType;
import redis.clients.jedis.params.ClientKillParams;

/**
 * The leak soak: factories built and closed, lock objects made and dropped, names locked and
 * released, by several threads at once, with faults in between, so that what the library holds
 * (heap, threads, descriptors, connections, subscriptions, keys) can be compared with a baseline
 * afterwards (see {@link Resources} and {@link #compare}).
 *
 * <p>Two phases. {@link #factoryLifecycles}: each iteration builds a factory, locks one name of a
 * small set (so the threads' factories contend, and wait for each other through Redis) and closes
 * the factory; one in ten closes it while still holding the lock. {@link #lockObjects}: each
 * iteration makes a new lock object of a long-lived factory (two factories, shared by the threads)
 * for one of many names, locks and releases it. A name's kind is fixed by its number: plain lock
 * (reentered now and then, its fencing token read), read-write lock (read or write), fair lock, or
 * a plain lock with a {@link Condition} (awaited briefly or signalled). A quarter of the
 * acquisitions are {@code lock()}, the rest a timed {@code tryLock}.
 *
 * <p>While a phase runs, the calling thread injects faults at evenly spaced points of its progress,
 * in turn: the server killed and restarted (every other time after staying down for longer than the
 * lease), every client connection killed ({@code CLIENT KILL TYPE normal} and {@code pubsub}), and
 * the server paused ({@code SIGSTOP}) for longer than the lease. Lock calls that fail meanwhile are
 * counted, not fatal; a phase that makes no progress for two minutes fails with the workers'
 * stacks.
 */
public final class LeakSoak {

  /** The kinds of lock a name is used as. */
  enum Kind {
    PLAIN,
    READ_WRITE,
    FAIR,
    CONDITION
  }

  /** The faults injected between operations. */
  public enum Fault {
    RESTART,
    CLIENT_KILL,
    PAUSE
  }

  /**
   * The soak's sizes and timings.
   *
   * @param factories factory lifecycles of the first phase
   * @param locks lock objects made, locked and released in the second phase
   * @param names distinct names of the second phase
   * @param threads worker threads of each phase
   * @param faultsPerPhase faults injected while each phase runs
   * @param lease the factories' lease time
   * @param commandTimeout the factories' command timeout
   */
  public record Sizes(
      int factories,
      int locks,
      int names,
      int threads,
      int faultsPerPhase,
      Duration lease,
      Duration commandTimeout) {

    /** Sizes with a lease of 2 s and a command timeout of 500 ms. */
    public static Sizes of(int factories, int locks, int names, int threads, int faults) {
      return new Sizes(
          factories, locks, names, threads, faults, Duration.ofSeconds(2), Duration.ofMillis(500));
    }

    /** The same sizes with another lease, and a command timeout of a quarter of it. */
    public Sizes withLease(Duration newLease) {
      return new Sizes(
          factories, locks, names, threads, faultsPerPhase, newLease, newLease.dividedBy(4));
    }

    /** How long a pause or a delayed restart lasts: longer than the lease. */
    Duration faultWindow() {
      return lease.plus(lease.dividedBy(2));
    }
  }

  /**
   * How far a measurement may be above its baseline and still count as returned to it.
   *
   * @param heapBytes heap
   * @param threads live threads
   * @param fileDescriptors file descriptors
   * @param connections server connections
   */
  public record Tolerance(long heapBytes, int threads, int fileDescriptors, int connections) {}

  /** One line of a comparison with the baseline. */
  public record Row(String resource, String baseline, String now, String tolerance, boolean ok) {}

  private static final Duration NO_PROGRESS_LIMIT = Duration.ofMinutes(2);
  private static final Duration PROGRESS_EVERY = Duration.ofSeconds(30);
  private static final long TRY_LOCK_SECONDS = 2;
  private static final int LIFECYCLE_NAMES = 20;
  private static final long MB = 1024 * 1024;

  private final RedisServer server;
  private final Sizes sizes;
  private final Consumer<String> log;

  private final Map<String, LongAdder> outcomes = new ConcurrentHashMap<>();
  private final Map<Fault, AtomicInteger> faults = new EnumMap<>(Fault.class);
  private final List<String> unexpected = new ArrayList<>();
  private final AtomicInteger faultTurn = new AtomicInteger();

  /**
   * A soak against {@code server}.
   *
   * @param server the server the factories use, and the faults hit
   * @param sizes the sizes and timings
   * @param log where progress and faults are printed
   */
  public LeakSoak(RedisServer server, Sizes sizes, Consumer<String> log) {
    this.server = server;
    this.sizes = sizes;
    this.log = log;
    for (Fault fault : Fault.values()) {
      faults.put(fault, new AtomicInteger());
    }
  }

  /** A factory on the soak's server with its lease and command timeout. */
  public RedisLockFactory newFactory() {
    return RedisLockFactory.builder()
        .standalone(server.uri())
        .leaseTime(sizes.lease())
        .commandTimeout(sizes.commandTimeout())
        .build();
  }

  /**
   * Phase one: {@code count} factories built, used for one lock and closed.
   *
   * @param count the number of lifecycles
   * @param faultCount faults injected meanwhile
   */
  public void factoryLifecycles(int count, int faultCount) {
    int threads = sizes.threads();
    runPhase(
        "factory lifecycles",
        count,
        faultCount,
        (worker, i) -> {
          int nameIndex = (int) ((i / threads) % LIFECYCLE_NAMES);
          boolean closeWhileHeld = i % 10 == 5;
          // A hold left to expire blocks its name for a lease: a name of its own, used once.
          String name = (closeWhileHeld ? "soak:orphan:" + i + ":" : "soak:life:") + nameIndex;
          RedisLockFactory factory = newFactory();
          try {
            operate(factory, nameIndex, name, i, closeWhileHeld);
          } finally {
            factory.close();
          }
        });
  }

  /**
   * Phase two: {@code count} lock objects of {@code factories} made, locked and released, for
   * {@code names} names in turn; the threads of a phase work on the same name at about the same
   * time, worker {@code w} with factory {@code w % factories.size()}.
   *
   * @param factories long-lived factories
   * @param count the number of lock objects
   * @param names the number of distinct names
   * @param faultCount faults injected meanwhile
   */
  public void lockObjects(List<RedisLockFactory> factories, int count, int names, int faultCount) {
    int threads = sizes.threads();
    runPhase(
        "lock objects",
        count,
        faultCount,
        (worker, i) -> {
          int nameIndex = (int) ((i / threads) % names);
          RedisLockFactory factory = factories.get(worker % factories.size());
          operate(factory, nameIndex, "soak:lock:" + nameIndex, i, false);
        });
  }

  /** One iteration of a phase, by worker {@code worker}. */
  @FunctionalInterface
  interface Iteration {
    void run(int worker, long i) throws InterruptedException;
  }

  /**
   * Makes a lock object of the name's kind, locks it, uses it and releases it; with {@code
   * closeWhileHeld}, closes the factory before the release.
   */
  private void operate(
      RedisLockFactory factory, int nameIndex, String name, long i, boolean closeWhileHeld)
      throws InterruptedException {
    Kind kind = Kind.values()[nameIndex % Kind.values().length];
    Lock lock;
    RedisDistributedLock plain = null;
    switch (kind) {
      case PLAIN, CONDITION -> {
        plain = factory.getLock(name);
        lock = plain;
      }
      case READ_WRITE -> {
        RedisReadWriteLock readWrite = factory.getReadWriteLock(name);
        lock = i % 2 == 0 ? readWrite.readLock() : readWrite.writeLock();
      }
      case FAIR -> {
        plain = factory.getFairLock(name);
        lock = plain;
      }
      default -> throw new IllegalStateException(kind.toString());
    }
    try {
      if (!acquire(lock, i)) {
        count("not acquired (timed out)");
        return;
      }
      count("acquired " + kind.name().toLowerCase(Locale.ROOT));
      RuntimeException failure = null;
      try {
        use(kind, lock, plain, i);
      } catch (RuntimeException e) {
        failure = e;
        throw e;
      } finally {
        if (closeWhileHeld) {
          factory.close();
          unlockAfterClose(lock);
        } else if (failure != null && plain != null && !plain.isHeldByCurrentThread()) {
          // A failed await releases the lock (RedisCondition's documented behaviour).
          count("released by a failed await");
        } else {
          release(lock, failure);
        }
      }
    } catch (RedisLockException e) {
      count("RedisLockException");
    } catch (LockLostException e) {
      count("LockLostException");
    } catch (RuntimeException e) {
      unexpected(e);
    }
  }

  private static boolean acquire(Lock lock, long i) throws InterruptedException {
    if (i % 4 == 0) {
      lock.lock();
      return true;
    }
    return lock.tryLock(TRY_LOCK_SECONDS, TimeUnit.SECONDS);
  }

  private void use(Kind kind, Lock lock, RedisDistributedLock plain, long i)
      throws InterruptedException {
    if (kind == Kind.PLAIN && i % 3 == 0) {
      plain.lock(); // reentrant: counted in the JVM
      plain.getFencingToken();
      plain.unlock();
    } else if (kind == Kind.CONDITION) {
      Condition condition = lock.newCondition();
      if (i % 2 == 0) {
        if (!condition.await(5, TimeUnit.MILLISECONDS)) {
          count("condition await timed out");
        }
      } else {
        condition.signalAll();
      }
    }
  }

  /** Unlocks; an exception of the unlock carries the one of the use before it, if any. */
  private void release(Lock lock, RuntimeException failure) {
    try {
      lock.unlock();
    } catch (LockLostException e) {
      count("lost before unlock");
    } catch (RuntimeException e) {
      if (failure != null) {
        e.addSuppressed(failure);
      }
      throw e;
    }
  }

  /** The factory was closed under the hold: unlock() reports the hold lost. */
  private void unlockAfterClose(Lock lock) {
    try {
      lock.unlock();
      count("unlock after close returned");
    } catch (IllegalMonitorStateException | IllegalStateException e) {
      count("unlock after close: " + e.getClass().getSimpleName());
    }
  }

  private void count(String outcome) {
    outcomes.computeIfAbsent(outcome, o -> new LongAdder()).increment();
  }

  private void unexpected(RuntimeException e) {
    count("unexpected " + e.getClass().getSimpleName());
    synchronized (unexpected) {
      if (unexpected.size() < 10) {
        java.io.StringWriter trace = new java.io.StringWriter();
        e.printStackTrace(new java.io.PrintWriter(trace));
        unexpected.add(trace.toString());
      }
    }
  }

  /**
   * Runs {@code body} for iterations 0 to {@code total - 1}, shared among the worker threads,
   * injecting {@code faultCount} faults at evenly spaced points of the progress; returns when every
   * iteration is done and the workers have ended.
   */
  private void runPhase(String phase, long total, int faultCount, Iteration body) {
    AtomicLong next = new AtomicLong();
    AtomicLong done = new AtomicLong();
    AtomicInteger threadNumber = new AtomicInteger();
    ExecutorService workers =
        Executors.newFixedThreadPool(
            sizes.threads(),
            task -> new Thread(task, "soak-worker-" + threadNumber.getAndIncrement()));
    List<Future<?>> running = new ArrayList<>();
    for (int w = 0; w < sizes.threads(); w++) {
      int worker = w;
      running.add(
          workers.submit(
              () -> {
                long i;
                while ((i = next.getAndIncrement()) < total) {
                  body.run(worker, i);
                  done.incrementAndGet();
                }
                return null;
              }));
    }
    workers.shutdown();
    long started = System.nanoTime();
    Progress progress = new Progress(phase, total, done, started);
    try {
      for (int k = 1; k <= faultCount; k++) {
        if (!progress.awaitDone(total * k / (faultCount + 1), running)) {
          break;
        }
        inject(Fault.values()[faultTurn.getAndIncrement() % Fault.values().length]);
      }
      progress.awaitDone(total, running);
      for (Future<?> worker : running) {
        worker.get();
      }
      if (!workers.awaitTermination(1, TimeUnit.MINUTES)) {
        throw new IllegalStateException(phase + ": workers did not end");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(phase + " interrupted", e);
    } catch (java.util.concurrent.ExecutionException e) {
      throw new IllegalStateException(phase + ": a worker failed", e.getCause());
    } finally {
      workers.shutdownNow();
      if (server.isPaused()) {
        server.resume();
      }
    }
    double seconds = (System.nanoTime() - started) / 1e9;
    log.accept(
        String.format(
            Locale.ROOT,
            "%s: %,d done in %.1f s (%,.0f per second)",
            phase,
            total,
            seconds,
            total / seconds));
  }

  /** Watches a phase's progress: prints it now and then, and fails it when it stops moving. */
  private final class Progress {
    private final String phase;
    private final long total;
    private final AtomicLong done;
    private final long started;
    private long lastDone = -1;
    private long lastMoved = System.nanoTime();
    private long lastPrinted = System.nanoTime();

    Progress(String phase, long total, AtomicLong done, long started) {
      this.phase = phase;
      this.total = total;
      this.done = done;
      this.started = started;
    }

    /** Waits until {@code target} iterations are done; false if the workers ended before. */
    boolean awaitDone(long target, List<Future<?>> workers) {
      while (done.get() < target) {
        if (workers.stream().allMatch(Future::isDone)) {
          return false;
        }
        long now = System.nanoTime();
        long current = done.get();
        if (current != lastDone) {
          lastDone = current;
          lastMoved = now;
        } else if (now - lastMoved > NO_PROGRESS_LIMIT.toNanos()) {
          throw new IllegalStateException(
              phase + ": no progress for " + NO_PROGRESS_LIMIT + "; workers:\n" + workerStacks());
        }
        if (now - lastPrinted > PROGRESS_EVERY.toNanos()) {
          lastPrinted = now;
          double seconds = (now - started) / 1e9;
          log.accept(
              String.format(
                  Locale.ROOT,
                  "%s: %,d of %,d after %.0f s (%,.0f per second)",
                  phase,
                  current,
                  total,
                  seconds,
                  current / seconds));
        }
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5)); // a poll, not a synchronization
      }
      return true;
    }
  }

  private static String workerStacks() {
    StringBuilder out = new StringBuilder();
    Thread.getAllStackTraces()
        .forEach(
            (thread, stack) -> {
              if (thread.getName().startsWith("soak-worker-")
                  || thread.getName().startsWith(Resources.LIBRARY_THREAD_PREFIX)) {
                out.append(thread.getName()).append(' ').append(thread.getState()).append('\n');
                for (StackTraceElement frame : stack) {
                  out.append("    at ").append(frame).append('\n');
                }
              }
            });
    return out.toString();
  }

  /**
   * Injects one fault and heals it.
   *
   * @param fault the fault
   */
  public void inject(Fault fault) {
    int number = faults.get(fault).incrementAndGet();
    long window = sizes.faultWindow().toMillis();
    switch (fault) {
      case RESTART -> {
        if (number % 2 == 0) {
          log.accept("fault: redis-server killed, restarted after " + window + " ms");
          server.kill();
          pauseFor(window);
        } else {
          log.accept("fault: redis-server killed and restarted at once");
        }
        server.restart();
      }
      case CLIENT_KILL -> {
        try (Jedis admin = server.jedis()) {
          long killed =
              admin.clientKill(
                  ClientKillParams.clientKillParams()
                      .type(ClientType.NORMAL)
                      .skipMe(ClientKillParams.SkipMe.YES));
          killed += admin.clientKill(ClientKillParams.clientKillParams().type(ClientType.PUBSUB));
          log.accept("fault: CLIENT KILL of " + killed + " connection(s)");
        }
      }
      case PAUSE -> {
        log.accept("fault: redis-server paused (SIGSTOP) for " + window + " ms");
        server.pause();
        try {
          pauseFor(window);
        } finally {
          server.resume();
        }
      }
      default -> throw new IllegalStateException(fault.toString());
    }
  }

  /** The fault window itself: a duration of the schedule, not a wait for anything. */
  private static void pauseFor(long millis) {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
    long left;
    while ((left = deadline - System.nanoTime()) > 0) {
      LockSupport.parkNanos(left);
    }
  }

  /** The faults injected so far, by kind. */
  public Map<Fault, Integer> faults() {
    Map<Fault, Integer> copy = new EnumMap<>(Fault.class);
    faults.forEach((fault, n) -> copy.put(fault, n.get()));
    return copy;
  }

  /** How the operations ended so far, by outcome. */
  public Map<String, Long> outcomes() {
    Map<String, Long> copy = new java.util.TreeMap<>();
    outcomes.forEach((outcome, n) -> copy.put(outcome, n.sum()));
    return copy;
  }

  /** The first few exceptions no lock call should throw, even under faults. */
  public List<String> unexpected() {
    synchronized (unexpected) {
      return List.copyOf(unexpected);
    }
  }

  /**
   * What the long-lived {@code factories} still keep, which must be nothing once every lock is
   * released: holds renewed, names with local state, wake-up channels subscribed.
   *
   * @param factories the factories of {@link #lockObjects}
   * @return a description of what each keeps, empty when none keeps anything
   */
  public static List<String> factoryState(List<RedisLockFactory> factories) {
    List<String> kept = new ArrayList<>();
    for (int f = 0; f < factories.size(); f++) {
      RedisLockFactory factory = factories.get(f);
      int renewing = factory.activity().renewingHoldCount();
      int names = factory.activity().namesInUseCount();
      int channels = factory.activity().subscribedChannelCount();
      if (renewing + names + channels != 0) {
        kept.add(
            "factory "
                + f
                + ": "
                + renewing
                + " renewing, "
                + names
                + " names in use, "
                + channels
                + " channels subscribed");
      }
    }
    return kept;
  }

  /**
   * Waits (at most {@code atMost}) until the library is idle (no {@code redis-lock-*} thread, no
   * connection of the library, no subscription), collects the garbage and measures: the baseline to
   * return to.
   *
   * @param server the server
   * @param atMost the bound of the wait
   * @return the measurement
   * @throws IllegalStateException if the library does not become idle in time
   */
  public static Resources baseline(RedisServer server, Duration atMost) {
    Resources[] last = {null};
    try {
      await("the library idle")
          .atMost(atMost)
          .pollDelay(Duration.ZERO)
          .pollInterval(Duration.ofMillis(200))
          .pollInSameThread()
          .until(
              () -> {
                Resources now = Resources.measure(server);
                last[0] = now;
                return now.libraryThreads().isEmpty()
                    && now.libraryConnections() == 0
                    && now.subscriptions() == 0;
              });
    } catch (ConditionTimeoutException e) {
      throw new IllegalStateException("the library did not become idle: " + last[0], e);
    }
    long heap = Resources.collectGarbage();
    return Resources.measure(server).withHeap(heap);
  }

  /**
   * Waits (at most {@code atMost}) until the long-lived {@code factories} keep nothing (see {@link
   * #factoryState}).
   *
   * @param factories the factories
   * @param atMost the bound of the wait
   * @return what they still keep at the end of the wait: empty when nothing
   */
  public static List<String> awaitFactoriesIdle(List<RedisLockFactory> factories, Duration atMost) {
    List<List<String>> last = new ArrayList<>(List.of(factoryState(factories)));
    try {
      await("the factories idle")
          .atMost(atMost)
          .pollDelay(Duration.ZERO)
          .pollInterval(Duration.ofMillis(50))
          .pollInSameThread()
          .until(
              () -> {
                last.set(0, factoryState(factories));
                return last.get(0).isEmpty();
              });
    } catch (ConditionTimeoutException e) {
      // reported by the caller
    }
    return last.get(0);
  }

  /**
   * Waits (at most {@code atMost}) until no {@code redis-lock-wakeups} thread runs, and measures
   * (without collecting garbage): a connection still subscribed then has nobody reading it.
   *
   * @param server the server
   * @param atMost the bound of the wait
   * @return the measurement, at the end of the wait if it timed out
   */
  public static Resources awaitNoWakeUpThread(RedisServer server, Duration atMost) {
    Resources[] last = {Resources.measure(server)};
    try {
      await("no wake-up thread")
          .atMost(atMost)
          .pollDelay(Duration.ZERO)
          .pollInterval(Duration.ofMillis(50))
          .pollInSameThread()
          .until(
              () -> {
                last[0] = Resources.measure(server);
                return last[0].libraryThreads().stream()
                    .noneMatch(t -> t.startsWith(Resources.LIBRARY_THREAD_PREFIX + "wakeups"));
              });
    } catch (ConditionTimeoutException e) {
      // reported by the caller
    }
    return last[0];
  }

  /**
   * Waits (at most {@code atMost}) until every resource is back within {@code tolerance} of {@code
   * baseline}, with the keys too when {@code keys} is set (the fencing counters and condition keys
   * of a lock outlive its last use by a minute), then collects the garbage (again while the heap is
   * above its tolerance, within the same bound) and measures.
   *
   * @param server the server
   * @param baseline the measurement to return to
   * @param tolerance how far above it counts as returned
   * @param keys whether to wait for the keys too
   * @param atMost the bound of the wait
   * @return the measurement, whether or not everything returned in time
   */
  public static Resources settle(
      RedisServer server, Resources baseline, Tolerance tolerance, boolean keys, Duration atMost) {
    long deadline = System.nanoTime() + atMost.toNanos();
    Resources[] last = {Resources.measure(server)};
    try {
      await("resources back at their baseline")
          .atMost(atMost)
          .pollDelay(Duration.ZERO)
          .pollInterval(Duration.ofMillis(200))
          .pollInSameThread()
          .until(
              () -> {
                last[0] = Resources.measure(server);
                return compare(baseline, last[0], tolerance, keys).stream()
                    .filter(row -> !row.resource().startsWith("heap"))
                    .allMatch(Row::ok);
              });
    } catch (ConditionTimeoutException e) {
      return last[0].withHeap(Resources.collectGarbage()); // reported as it is
    }
    long heap = Resources.collectGarbage();
    while (heap > baseline.heapBytes() + tolerance.heapBytes() && System.nanoTime() < deadline) {
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(500)); // a poll, not a synchronization
      heap = Resources.collectGarbage();
    }
    return Resources.measure(server).withHeap(heap);
  }

  /**
   * Compares a measurement with its baseline, one row per resource.
   *
   * @param baseline the baseline
   * @param now the measurement
   * @param tolerance how far above the baseline counts as returned
   * @param keys whether the keys must be back at their baseline count ({@code DBSIZE}); keys
   *     without a TTL are never allowed
   * @return the rows
   */
  public static List<Row> compare(
      Resources baseline, Resources now, Tolerance tolerance, boolean keys) {
    List<Row> rows = new ArrayList<>();
    rows.add(
        new Row(
            "heap after GC (MB)",
            mb(baseline.heapBytes()),
            mb(now.heapBytes()),
            "+" + tolerance.heapBytes() / MB + " MB",
            now.heapBytes() <= baseline.heapBytes() + tolerance.heapBytes()));
    rows.add(atMost("live threads", baseline.threads(), now.threads(), tolerance.threads()));
    rows.add(
        new Row(
            "redis-lock-* threads",
            Integer.toString(baseline.libraryThreads().size()),
            now.libraryThreads().size()
                + (now.libraryThreads().isEmpty() ? "" : " " + now.libraryThreads()),
            "+0",
            now.libraryThreads().size() <= baseline.libraryThreads().size()));
    boolean descriptorsOk =
        now.fileDescriptors() <= baseline.fileDescriptors() + tolerance.fileDescriptors();
    List<String> newDescriptors = new ArrayList<>(now.descriptorTargets());
    baseline.descriptorTargets().forEach(newDescriptors::remove);
    List<String> goneDescriptors = new ArrayList<>(baseline.descriptorTargets());
    now.descriptorTargets().forEach(goneDescriptors::remove);
    rows.add(
        new Row(
            "file descriptors (/proc/self/fd)",
            Integer.toString(baseline.fileDescriptors()),
            now.fileDescriptors()
                + (descriptorsOk
                    ? ""
                    : " new: "
                        + Descriptors.describe(newDescriptors)
                        + " gone: "
                        + goneDescriptors),
            "+" + tolerance.fileDescriptors(),
            descriptorsOk));
    boolean connectionsOk = now.connections() <= baseline.connections() + tolerance.connections();
    rows.add(
        new Row(
            "connections (CLIENT LIST)",
            Long.toString(baseline.connections()),
            now.connections() + (connectionsOk ? "" : " " + now.clients()),
            "+" + tolerance.connections(),
            connectionsOk));
    rows.add(
        atMost(
            "  of them the library's (name=redis-lock)",
            baseline.libraryConnections(),
            now.libraryConnections(),
            tolerance.connections()));
    rows.add(
        atMost(
            "subscriptions (CHANNELS+NUMPAT+SHARDCHANNELS)",
            baseline.subscribedChannels()
                + baseline.subscribedPatterns()
                + baseline.subscribedShardChannels(),
            now.subscribedChannels() + now.subscribedPatterns() + now.subscribedShardChannels(),
            0));
    rows.add(
        atMost(
            "CLIENT LIST sub+psub+ssub",
            baseline.clientSubscriptions(),
            now.clientSubscriptions(),
            0));
    if (keys) {
      rows.add(atMost("keys (DBSIZE)", baseline.keys(), now.keys(), 0));
    } else {
      rows.add(
          new Row(
              "keys (DBSIZE), all expiring",
              Long.toString(baseline.keys()),
              now.keys() + " (longest PTTL " + now.longestTtlMillis() + " ms)",
              "not awaited",
              true));
    }
    rows.add(
        new Row(
            "keys without TTL",
            Integer.toString(baseline.keysWithoutTtl().size()),
            now.keysWithoutTtl().size()
                + (now.keysWithoutTtl().isEmpty() ? "" : " " + now.keysWithoutTtl()),
            "0",
            now.keysWithoutTtl().isEmpty()));
    return rows;
  }

  private static Row atMost(String resource, long baseline, long now, long tolerance) {
    return new Row(
        resource,
        Long.toString(baseline),
        Long.toString(now),
        "+" + tolerance,
        now <= baseline + tolerance);
  }

  private static String mb(long bytes) {
    return String.format(Locale.ROOT, "%.1f", bytes / (double) MB);
  }
}
