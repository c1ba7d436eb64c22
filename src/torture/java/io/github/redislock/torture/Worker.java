package io.github.redislock.torture;

import io.github.redislock.LockLostException;
import io.github.redislock.RedisLockException;
import io.github.redislock.RedisLockFactory;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Date;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import redis.clients.jedis.UnifiedJedis;

/**
 * One worker JVM of the torture run (started by {@link WorkerJvm}): threads that lock names of a
 * small set at random, with every lock form, and record each critical section in the history.
 *
 * <p>Arguments, {@code key=value}: {@code id}, {@code spec} (see {@link #factory}), {@code history}
 * (the history server's port), {@code names}, {@code threads}, {@code virtual} ({@code true} to run
 * as many virtual threads besides), {@code seed}, {@code leaseMillis}, {@code
 * commandTimeoutMillis}. It prints {@code ready kinds=...} once its threads run, and on {@code
 * stop} (or the end of stdin) lets its threads finish their section, prints {@code stopped ...} and
 * exits. A thread still in a call {@value #DRAIN_SECONDS} s after {@code stop} is a hang: its stack
 * is printed and recorded.
 *
 * <p>A section: acquire ({@code lock}, {@code lockInterruptibly}, {@code tryLock}, timed {@code
 * tryLock}, sometimes with the interrupt flag already set), take the fencing token, record the
 * start (a fenced write), sometimes re-acquire reentrantly, hold for a while (rarely longer than
 * the lease, writing through the fence every 100 ms while {@code isHeldByCurrentThread()} says the
 * hold is valid, and stopping when it does not, as the guarantees page advises), sometimes take a
 * second name inside (in name order, so that no two threads wait for each other), record the end
 * (the fenced counter write), unlock (sometimes with the interrupt flag set). After every write,
 * {@code isHeldByCurrentThread()} is recorded with the next record: the checker's evidence of
 * whether the holder still believed it held the lock. A helper thread interrupts threads while they
 * are in a lock call, and only then.
 */
public final class Worker {
  static final int DRAIN_SECONDS = 30;

  /** An actor whose sections failed this often stops. */
  static final int MAX_ERRORS = 100;

  /** Timed tryLock: past its deadline by more than this is recorded ({@code C} record). */
  static final long DEADLINE_SLACK_MICROS = 25_000;

  /** The keepers' kind: long holds, which renewal must carry through every fault. */
  private static final TortureKind KEEPER = new TortureKind.KeeperKind();

  private final String id;
  private final Factories factories;
  private final History history;
  private final List<TortureKind> kinds;
  private final int names;
  private final long leaseMillis;
  private final long commandTimeoutMillis;
  private final int sabotagePerMille;
  private final List<Actor> actors = new ArrayList<>();
  private final Stats stats = new Stats();
  private HandleRunner handles;
  private volatile boolean stopping;

  private Worker(
      String id,
      Factories factories,
      History history,
      List<TortureKind> kinds,
      int names,
      long leaseMillis,
      long commandTimeoutMillis,
      int sabotagePerMille) {
    this.id = id;
    this.factories = factories;
    this.history = history;
    this.kinds = kinds;
    this.names = names;
    this.leaseMillis = leaseMillis;
    this.commandTimeoutMillis = commandTimeoutMillis;
    this.sabotagePerMille = sabotagePerMille;
  }

  /**
   * Runs one worker.
   *
   * @param args {@code key=value} arguments, see the class comment
   * @throws Exception when it cannot start
   */
  public static void main(String[] args) throws Exception {
    Map<String, String> a = new HashMap<>();
    for (String arg : args) {
      int eq = arg.indexOf('=');
      a.put(arg.substring(0, eq), arg.substring(eq + 1));
    }
    String id = a.get("id");
    long seed = Long.parseLong(a.get("seed"));
    long lease = Long.parseLong(a.get("leaseMillis"));
    long commandTimeout = Long.parseLong(a.get("commandTimeoutMillis"));
    History history = new History(Integer.parseInt(a.get("history")));
    AtomicLong lost = new AtomicLong();
    Factories factories =
        new Factories(
            a.get("spec"),
            lease,
            commandTimeout,
            e -> {
              lost.incrementAndGet();
              history.record(
                  "L|"
                      + id
                      + "|"
                      + e.lockName()
                      + "|"
                      + e.fencingToken()
                      + "|"
                      + History.nowMicros()
                      + "|"
                      + clean(e.reason()));
            });
    List<TortureKind> kinds = new ArrayList<>();
    for (TortureKind kind : TortureKind.ALL) {
      if (probe(kind, factories.current().locks(), history, id)) {
        kinds.add(kind);
      }
    }
    Worker worker =
        new Worker(
            id,
            factories,
            history,
            kinds,
            Integer.parseInt(a.get("names")),
            lease,
            commandTimeout,
            Integer.parseInt(a.getOrDefault("sabotage", "0")));
    worker.handles =
        new HandleRunner(
            history,
            worker.stats,
            factories,
            lease,
            Long.parseLong(a.getOrDefault("handleMinWaitMillis", "0")));
    int threads = Integer.parseInt(a.get("threads"));
    boolean virtual = Boolean.parseBoolean(a.get("virtual"));
    SplittableRandom seeds = new SplittableRandom(seed);
    for (int t = 0; t < threads; t++) {
      worker.actors.add(worker.new Actor(id + ".t" + t, seeds.split(), false));
    }
    if (virtual) {
      for (int t = 0; t < threads; t++) {
        worker.actors.add(worker.new Actor(id + ".v" + t, seeds.split(), true));
      }
    }
    if (Boolean.parseBoolean(a.getOrDefault("keeper", "false"))) {
      worker.actors.add(worker.new Actor(id + ".k0", seeds.split(), false, true));
    }
    history.record("K|" + id + "|started|" + ProcessHandle.current().pid() + "|" + kindIds(kinds));
    startDaemon("torture-stall-monitor", worker::watchStalls);
    startDaemon("torture-interrupter", () -> worker.interrupt(seeds.split()));
    worker.actors.forEach(Actor::start);
    System.out.println(
        "ready kinds="
            + kindIds(kinds)
            + " java="
            + Runtime.version().feature()
            + (a.get("spec").startsWith("redlock-caching ")
                ? " tracking=" + TrackingClients.mode
                : ""));
    System.out.flush();

    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    for (String line = in.readLine(); line != null && !line.equals("stop"); line = in.readLine()) {
      if (line.equals("close-factory")) {
        worker.closeFactory();
      }
    }
    worker.stopping = true;
    List<String> hung = worker.awaitActors();
    if (hung.isEmpty()) {
      int left = HandleRunner.nothingLeftHeld(factories.current().locks(), lease);
      if (left > 0) {
        history.record(
            "X|"
                + id
                + ".handles|contract|"
                + left
                + " hold(s) still renewed by the factory once every thread stopped (a cancelled,"
                + " interrupted or lost acquisition kept its hold)");
      }
    }
    worker.handles.shutdown();
    String summary = worker.stats.summary() + " lostEvents=" + lost.get() + " hung=" + hung.size();
    history.record("P|" + id + "|" + summary);
    history.close();
    System.out.println("stopped " + summary);
    System.out.flush();
    if (hung.isEmpty()) {
      factories.closeAll();
    }
    System.exit(0);
  }

  /**
   * A factory builder for a deployment spec: {@code standalone URI}, {@code sentinel URI}, {@code
   * cluster URI}, {@code redlock URI,URI,...} or {@code redlock-caching URI,URI,...} (Redlock over
   * clients of the worker's own whose connections track keys, {@link TrackingClients}, made once
   * and kept in {@code owned}: the factory never closes them).
   */
  static RedisLockFactory.Builder factory(
      String spec, long leaseMillis, long commandTimeout, List<UnifiedJedis> owned) {
    int space = spec.indexOf(' ');
    String kind = spec.substring(0, space);
    String uri = spec.substring(space + 1);
    RedisLockFactory.Builder b =
        RedisLockFactory.builder()
            .leaseTime(Duration.ofMillis(leaseMillis))
            .commandTimeout(Duration.ofMillis(commandTimeout));
    return switch (kind) {
      case "standalone" -> b.standalone(uri);
      case "sentinel" -> b.sentinel(uri);
      case "cluster" -> b.cluster(uri);
      case "redlock" -> b.redlock(uri.split(","));
      case "redlock-caching" -> {
        if (owned.isEmpty()) {
          for (String master : uri.split(",")) {
            owned.add(TrackingClients.of(master, commandTimeout));
          }
        }
        yield b.redlockClients(owned);
      }
      default -> throw new IllegalArgumentException("unknown spec " + spec);
    };
  }

  /**
   * Whether a kind works on this factory: its probe name can be locked and unlocked. A kind the
   * factory offers whose probe fails otherwise (Redis failed, or the library did) is run anyway,
   * and the failure recorded as an error of the worker.
   */
  private static boolean probe(
      TortureKind kind, RedisLockFactory locks, History history, String id) {
    if (!kind.available(locks)) {
      return false;
    }
    try {
      TortureKind.Target t =
          kind.target(locks, kind.namePrefix() + "probe", new SplittableRandom(0));
      if (t.lock().tryLock(10, TimeUnit.SECONDS)) {
        t.lock().unlock();
      }
      return true;
    } catch (UnsupportedOperationException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    } catch (RuntimeException e) {
      history.record(
          "X|"
              + id
              + ".probe|error|probing "
              + kind.id()
              + ": "
              + clean(e + " at " + Actor.where(e)));
      return true;
    }
  }

  private static String kindIds(List<TortureKind> kinds) {
    return String.join(",", kinds.stream().map(TortureKind::id).toList());
  }

  private static void startDaemon(String name, Runnable body) {
    Thread t = new Thread(body, name);
    t.setDaemon(true);
    t.start();
  }

  /** Text safe inside a record: no separators, no line breaks. */
  static String clean(String text) {
    return String.valueOf(text).replace('|', '/').replace('\n', ' ').replace('\r', ' ');
  }

  /**
   * The nemesis's {@code factory-close} fault: closes the factory under the threads that use it
   * (some of them waiting in a lock call or an {@code await}), and goes on with a new one; each
   * thread then judges its own call against {@code close()}'s contract. Prints {@code reopened}.
   */
  private void closeFactory() {
    long waiting =
        actors.stream()
            .map(a -> a.call)
            .filter(
                c -> c.startsWith("lock") || c.startsWith("tryLock(t)") || c.startsWith("await"))
            .count();
    Factories.Window w = factories.closeAndReopen();
    long millis = TimeUnit.NANOSECONDS.toMillis(w.endNanos() - w.startNanos());
    history.record("K|" + id + "|factory-closed|" + waiting + " in lock calls|" + millis + " ms");
    stats.count("factory closes");
    System.out.println("reopened waiting=" + waiting + " closeMillis=" + millis);
    System.out.flush();
  }

  /** Records every time this JVM did not run for a while (GC, CPU starvation, SIGSTOP). */
  private void watchStalls() {
    long period = TimeUnit.MILLISECONDS.toNanos(10);
    long threshold = TimeUnit.MILLISECONDS.toNanos(50);
    while (!stopping) {
      long t0 = System.nanoTime();
      LockSupport.parkNanos(period);
      long gap = System.nanoTime() - t0 - period;
      if (gap > threshold) {
        long to = History.nowMicros();
        history.record("G|" + id + "|" + (to - gap / 1000 - period / 1000) + "|" + to);
      }
      sampleLateCalls();
    }
  }

  /**
   * Records the stack of a thread still in a timed call 100 ms after its deadline, once per call:
   * where a deadline overrun, if the checker finds one, was spent.
   */
  private void sampleLateCalls() {
    long now = System.nanoTime();
    for (Actor a : actors) {
      long deadline = a.callDeadline;
      if (deadline != 0 && now - deadline > TimeUnit.MILLISECONDS.toNanos(100)) {
        a.callDeadline = 0;
        StringBuilder stack = new StringBuilder();
        for (StackTraceElement e : a.thread.getStackTrace()) {
          stack.append(" at ").append(e);
        }
        history.record(
            "D|"
                + a.holder
                + "|"
                + clean(a.call)
                + " 100 ms past its deadline|"
                + clean(stack.toString()));
      }
    }
  }

  /** Interrupts a random thread that is in a lock call, every 5 to 60 ms. */
  private void interrupt(SplittableRandom random) {
    while (!stopping) {
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5 + random.nextInt(56)));
      Actor target = actors.get(random.nextInt(actors.size()));
      target.interruptIfInCall();
    }
  }

  /** Waits for the actors to finish; returns the hung ones (printed and recorded). */
  private List<String> awaitActors() throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(DRAIN_SECONDS);
    List<String> hung = new ArrayList<>();
    for (Actor actor : actors) {
      actor.thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
      if (actor.thread.isAlive()) {
        StringBuilder stack = new StringBuilder();
        for (StackTraceElement e : actor.thread.getStackTrace()) {
          stack.append(" at ").append(e);
        }
        String text = actor.holder + " in " + actor.call + " for " + actor.callAge() + " ms";
        System.out.println("hang " + text + stack);
        history.record("X|" + actor.holder + "|hang|" + clean(text + stack));
        hung.add(actor.holder);
        String call = actor.call;
        try {
          System.err.println(
              "hang: "
                  + text
                  + "; the name in Redis: "
                  + factories.current().locks().inspect(call.substring(call.lastIndexOf(' ') + 1)));
        } catch (RuntimeException e) {
          System.err.println("hang: " + text + "; inspect failed: " + e);
        }
      }
    }
    if (!hung.isEmpty()) {
      // For the worker's log: where every thread of the JVM was (the pools' too), and the factory.
      System.err.println("hang: " + factories.current().locks().activity() + "; every thread:");
      Thread.getAllStackTraces()
          .forEach(
              (t, stack) -> {
                System.err.println("\"" + t.getName() + "\" " + t.getState());
                for (StackTraceElement e : stack) {
                  System.err.println("    at " + e);
                }
              });
    }
    return hung;
  }

  /** The ways of acquiring. */
  enum Form {
    LOCK("lock"),
    LOCK_INTERRUPTIBLY("lockInterruptibly"),
    TRY_LOCK("tryLock"),
    TIMED_TRY_LOCK("tryLock(t)");

    final String label;

    Form(String label) {
      this.label = label;
    }
  }

  /** How an acquisition ended. */
  enum Outcome {
    ACQUIRED,
    BUSY,
    INTERRUPTED,
    REDIS_FAILURE,
    LOST,
    FAILED,
    /** The factory was closed under the call: {@link IllegalStateException}. */
    CLOSED
  }

  /** One worker thread, platform or virtual. */
  final class Actor {
    final String holder;
    final SplittableRandom random;
    final Thread thread;

    /** Held while the interrupter interrupts, and while this thread leaves a call. */
    private final ReentrantLock guard = new ReentrantLock();

    private boolean interruptible; // guarded by guard
    private volatile String call = "-";
    private volatile long callStart = System.nanoTime();

    /** The deadline of the timed call under way ({@code System.nanoTime()}), or 0. */
    private volatile long callDeadline;

    private History.Conn conn;

    /** The factory of the section under way: one for the whole section. */
    private Factories.Generation generation;

    /** A keeper: takes only long holds of the keeper's names ({@link TortureKind.KeeperKind}). */
    final boolean keeper;

    /** What this thread lends the operations of {@link HandleKind}. */
    private final HandleRunner.Caller caller =
        new HandleRunner.Caller() {
          @Override
          public String holder() {
            return holder;
          }

          @Override
          public SplittableRandom random() {
            return random;
          }

          @Override
          public void enterCall(String what, boolean interruptible) {
            Actor.this.enterCall(what, interruptible);
          }

          @Override
          public boolean leaveCall() {
            return Actor.this.leaveCall();
          }

          @Override
          public void contract(String what) {
            Actor.this.contract(what);
          }

          @Override
          public void error(Throwable e) {
            if (generation != null && factories.closedUnder(generation, e)) {
              stats.count("closed under a section");
              return;
            }
            history.record("X|" + holder + "|error|" + clean(e + " at " + where(e)));
          }
        };

    Actor(String holder, SplittableRandom random, boolean virtual) {
      this(holder, random, virtual, false);
    }

    Actor(String holder, SplittableRandom random, boolean virtual, boolean keeper) {
      this.holder = holder;
      this.random = random;
      this.keeper = keeper;
      this.thread = virtual ? newVirtualThread(holder, this::run) : new Thread(this::run, holder);
      if (!virtual) {
        thread.setDaemon(true);
      }
    }

    void start() {
      thread.start();
    }

    long callAge() {
      return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - callStart);
    }

    void interruptIfInCall() {
      guard.lock();
      try {
        if (interruptible) {
          thread.interrupt();
          stats.count("interrupts sent");
        }
      } finally {
        guard.unlock();
      }
    }

    private void enterCall(String what, boolean interruptibleByOthers) {
      call = what;
      callStart = System.nanoTime();
      guard.lock();
      try {
        interruptible = interruptibleByOthers;
      } finally {
        guard.unlock();
      }
    }

    /** Leaves a call; returns (and clears) the interrupt flag. */
    private boolean leaveCall() {
      guard.lock();
      try {
        interruptible = false;
        call = "-";
        return Thread.interrupted();
      } finally {
        guard.unlock();
      }
    }

    /**
     * Sections until told to stop. An exception out of a section (the library's, or the history's)
     * is recorded as a violation and the thread goes on, on a new history connection, until it has
     * failed {@value #MAX_ERRORS} times.
     */
    private void run() {
      int errors = 0;
      conn = history.connect();
      try {
        while (!stopping) {
          TortureKind kind = keeper ? KEEPER : kinds.get(random.nextInt(kinds.size()));
          int index = random.nextInt(keeper ? TortureKind.KeeperKind.NAMES : names);
          try {
            attempt(kind, index, 0);
          } catch (RuntimeException e) {
            Thread.interrupted();
            if (generation != null && factories.closedUnder(generation, e)) {
              stats.count("closed under a section");
              LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
              continue;
            }
            history.record("X|" + holder + "|error|" + clean(e + " at " + where(e)));
            if (++errors == MAX_ERRORS) {
              history.record("X|" + holder + "|died|" + MAX_ERRORS + " errors");
              return;
            }
            conn.close();
            conn = history.connect();
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
          }
        }
      } finally {
        conn.close();
      }
    }

    private static String where(Throwable e) {
      StackTraceElement[] stack = e.getStackTrace();
      StringBuilder text = new StringBuilder();
      for (int i = 0; i < Math.min(8, stack.length); i++) {
        text.append(i == 0 ? "" : " < ").append(stack[i]);
      }
      return text.toString();
    }

    /** One acquisition of {@code kind}'s name {@code index}, and its section when it succeeds. */
    private void attempt(TortureKind kind, int index, int depth) {
      String name = kind.name(index);
      if (depth == 0) {
        generation = factories.current();
      }
      if (kind instanceof HandleKind) {
        handles.operate(caller, generation, name);
        return;
      }
      TortureKind.Target target = kind.target(generation.locks(), name, random);
      if (sabotagePerMille > 0 && random.nextInt(1000) < sabotagePerMille) {
        target = Sabotage.of(target);
      }
      Form form;
      long timeoutMillis = 0;
      if (keeper) {
        form = Form.TIMED_TRY_LOCK;
        timeoutMillis = leaseMillis;
      } else if (depth > 0) {
        form = random.nextBoolean() ? Form.TRY_LOCK : Form.TIMED_TRY_LOCK;
        timeoutMillis = random.nextInt(50);
      } else {
        int r = random.nextInt(100);
        form =
            r < 30
                ? Form.LOCK
                : r < 50 ? Form.LOCK_INTERRUPTIBLY : r < 70 ? Form.TRY_LOCK : Form.TIMED_TRY_LOCK;
        int t = random.nextInt(100);
        timeoutMillis =
            t < 5 ? 0 : t < 10 ? -1 : t < 80 ? random.nextInt(100) : 100 + random.nextInt(900);
      }
      boolean selfInterrupt = !keeper && form != Form.TRY_LOCK && random.nextInt(100) < 3;
      Outcome outcome = acquire(target, name, form, timeoutMillis, selfInterrupt, false);
      if (outcome == Outcome.ACQUIRED) {
        section(kind, target, index, name, form.label + (selfInterrupt ? "+intr" : ""), depth);
      } else if (outcome == Outcome.BUSY && form == Form.TRY_LOCK) {
        LockSupport.parkNanos(random.nextLong(TimeUnit.MILLISECONDS.toNanos(2)));
      } else if (outcome == Outcome.REDIS_FAILURE) {
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5 + random.nextInt(20)));
      }
    }

    /**
     * Calls one lock form, with the contract checks that hold whatever Redis does: an interrupt
     * flag set on entry makes {@code lockInterruptibly} and timed {@code tryLock} throw (the flag
     * cleared, no hold kept) and survives {@code lock()} and {@code tryLock()}; {@code lock()} and
     * {@code lockInterruptibly()} never give up on a Redis failure.
     */
    private Outcome acquire(
        TortureKind.Target target,
        String name,
        Form form,
        long timeoutMillis,
        boolean selfInterrupt,
        boolean reentrant) {
      String label = form.label + (reentrant ? "/reentrant" : "");
      enterCall(label + " " + name, !selfInterrupt);
      if (selfInterrupt) {
        Thread.currentThread().interrupt();
      }
      long startUs = History.nowMicros();
      long start = System.nanoTime();
      // A time <= 0 makes one attempt in the caller's thread, as tryLock() does (bounded by the
      // command timeout, not by the 25 ms past the deadline that a positive time gets).
      boolean deadlineBound = form == Form.TIMED_TRY_LOCK && !reentrant && timeoutMillis > 0;
      if (deadlineBound) {
        callDeadline = start + TimeUnit.MILLISECONDS.toNanos(timeoutMillis) | 1;
      }
      Outcome outcome;
      String failure = "";
      boolean flagAfter = false;
      try {
        boolean got =
            switch (form) {
              case LOCK -> {
                target.lock().lock();
                yield true;
              }
              case LOCK_INTERRUPTIBLY -> {
                target.lock().lockInterruptibly();
                yield true;
              }
              case TRY_LOCK -> target.lock().tryLock();
              case TIMED_TRY_LOCK -> target.lock().tryLock(timeoutMillis, TimeUnit.MILLISECONDS);
            };
        flagAfter = Thread.currentThread().isInterrupted();
        outcome = got ? Outcome.ACQUIRED : Outcome.BUSY;
      } catch (InterruptedException e) {
        flagAfter = Thread.currentThread().isInterrupted();
        outcome = Outcome.INTERRUPTED;
      } catch (LockLostException e) {
        outcome = Outcome.LOST;
        failure = e.getMessage();
      } catch (RedisLockException e) {
        noUnexpectedReply(e);
        outcome = Outcome.REDIS_FAILURE;
        failure = e.getMessage();
      } catch (RuntimeException e) {
        outcome = factories.closedUnder(generation, e) ? Outcome.CLOSED : Outcome.FAILED;
        failure = e + " at " + where(e);
      }
      long returned = System.nanoTime();
      callDeadline = 0;
      long elapsed = System.nanoTime() - start;
      long endUs = History.nowMicros();
      leaveCall();
      stats.count(label + " " + outcome.name().toLowerCase(Locale.ROOT));
      stats.max(label + " max ms", TimeUnit.NANOSECONDS.toMillis(elapsed));

      if (selfInterrupt) {
        switch (form) {
          case LOCK, TRY_LOCK -> {
            if (outcome == Outcome.ACQUIRED && !flagAfter) {
              contract(label + " with the interrupt flag set returned without the flag");
            }
          }
          case LOCK_INTERRUPTIBLY, TIMED_TRY_LOCK -> {
            if (!reentrant
                && outcome != Outcome.INTERRUPTED
                && outcome != Outcome.FAILED
                && outcome != Outcome.CLOSED) {
              contract(
                  label
                      + " with the interrupt flag set did not throw InterruptedException: "
                      + outcome);
            }
          }
        }
      }
      if (outcome == Outcome.INTERRUPTED) {
        if (flagAfter && selfInterrupt) {
          contract(label + " threw InterruptedException and left the flag set");
        }
        if (!reentrant && target.heldByCurrentThread().getAsBoolean()) {
          contract(label + " threw InterruptedException but the lock is held");
        }
      }
      if (outcome == Outcome.REDIS_FAILURE
          && (form == Form.LOCK || form == Form.LOCK_INTERRUPTIBLY)) {
        contract(label + " threw RedisLockException: " + failure);
      }
      if (outcome == Outcome.FAILED || (outcome == Outcome.LOST && !reentrant)) {
        contract(label + " threw " + failure);
      }
      if (form == Form.TIMED_TRY_LOCK && !reentrant && timeoutMillis <= 0) {
        stats.max("tryLock(t<=0) max ms", TimeUnit.NANOSECONDS.toMillis(elapsed));
      }
      if (!reentrant
          && (form == Form.LOCK
              || form == Form.LOCK_INTERRUPTIBLY
              || (form == Form.TIMED_TRY_LOCK && timeoutMillis > 0))) {
        closeCheck(
            label + " " + name,
            start,
            returned,
            outcome.name().toLowerCase(Locale.ROOT)
                + (failure.isEmpty() ? "" : " (" + failure + ")"),
            outcome == Outcome.CLOSED || outcome == Outcome.INTERRUPTED,
            outcome == Outcome.REDIS_FAILURE
                || (outcome == Outcome.BUSY
                    && returned - start < TimeUnit.MILLISECONDS.toNanos(timeoutMillis)));
      }
      if (deadlineBound) {
        long overshootUs = (endUs - startUs) - timeoutMillis * 1000;
        stats.max("tryLock(t) overshoot max ms", overshootUs / 1000);
        if (overshootUs > DEADLINE_SLACK_MICROS) {
          history.record(
              "C|"
                  + holder
                  + "|"
                  + name
                  + "|"
                  + label
                  + "|"
                  + startUs
                  + "|"
                  + endUs
                  + "|"
                  + (startUs + timeoutMillis * 1000)
                  + "|"
                  + outcome);
        }
      } else if (!reentrant && elapsed > TimeUnit.SECONDS.toNanos(10)) {
        history.record(
            "C|" + holder + "|" + name + "|" + label + "|" + startUs + "|" + endUs + "|0|"
                + outcome);
      }
      return outcome;
    }

    /**
     * A {@code RedisLockException} caused by a reply of an unexpected shape is a client out of step
     * with its connection (see {@code LockCommand.parse}), not an outage: a contract violation.
     */
    private void noUnexpectedReply(RuntimeException e) {
      for (Throwable t = e; t != null; t = t.getCause()) {
        if (t instanceof ClassCastException
            || t instanceof IndexOutOfBoundsException
            || t instanceof NullPointerException
            || t instanceof NumberFormatException) {
          contract("an unexpected reply: " + e + " at " + where(e));
          return;
        }
      }
    }

    /**
     * {@code close()}'s contract for a call that waits ({@code lock()}, {@code
     * lockInterruptibly()}, a timed {@code tryLock} with a positive time, an {@code await}): one in
     * progress when its factory's {@code close()} began ends with {@link IllegalStateException}
     * ({@code fine} covers that, and the outcomes a race allows), promptly. An acquisition or an
     * await that returned while {@code close()} ran may have won the race; one that returned once
     * it was over did not; a {@link RedisLockException}, or a timeout before the call's deadline
     * ({@code failure}), is never the answer.
     */
    private void closeCheck(
        String what, long callStart, long returned, String outcome, boolean fine, boolean failure) {
      Factories.Window w = factories.window(generation);
      if (w == null || callStart - w.startNanos() >= 0) {
        return; // its factory is open, or was already closing when the call began
      }
      boolean after = w.endNanos() != Long.MAX_VALUE && returned - w.endNanos() > 0;
      long afterMillis = after ? TimeUnit.NANOSECONDS.toMillis(returned - w.endNanos()) : 0;
      stats.count("waiting at close: " + outcome.split(" ")[0]);
      String when =
          after
              ? afterMillis + " ms after close() returned"
              : "while close() ran ("
                  + TimeUnit.NANOSECONDS.toMillis(returned - w.startNanos())
                  + " ms after it began)";
      if (fine) {
        if (afterMillis > TimeUnit.SECONDS.toMillis(5)) {
          contract(what + " was waiting when its factory closed, and ended only " + when);
        }
        return;
      }
      if (after || failure) {
        contract(
            what
                + " was waiting when its factory's close() began, and ended "
                + when
                + " with "
                + outcome
                + ", not IllegalStateException");
      }
    }

    private void contract(String what) {
      stats.count("contract violations");
      history.record("X|" + holder + "|contract|" + clean(what));
    }

    /** The critical section of a hold just acquired. */
    private void section(
        TortureKind kind,
        TortureKind.Target target,
        int index,
        String name,
        String form,
        int depth) {
      long acqUs = History.nowMicros();
      char mode = target.mode();
      long token;
      try {
        token = target.token().getAsLong();
      } catch (LockLostException | RedisLockException e) {
        noUnexpectedReply(e);
        // Lost (or Redis unreachable) before the section began: nothing was written under it.
        stats.count("token " + (e instanceof LockLostException ? "lost" : "unreachable"));
        unlock(target, name, 0, false, acqUs, "before-token");
        return;
      } catch (IllegalStateException e) {
        if (!factories.closedUnder(generation, e)) {
          throw e;
        }
        stats.count("token closed");
        unlock(target, name, 0, false, acqUs, "before-token");
        return;
      }
      boolean released = false;
      try {
        released = hold(kind, target, index, name, form, depth, acqUs, token);
      } finally {
        if (!released) { // the section failed: release as a finally block would
          try {
            target.lock().unlock();
          } catch (RuntimeException e) {
            stats.count("release after a failed section threw");
          }
        }
      }
    }

    /**
     * The section proper, from its start record to its release; returns true once it released (or
     * was told the hold was lost), false if it did not get there.
     */
    private boolean hold(
        TortureKind kind,
        TortureKind.Target target,
        int index,
        String name,
        String form,
        int depth,
        long acqUs,
        long token) {
      char mode = target.mode();
      History.Start start = conn.start(holder, name, mode, token, acqUs, form);
      boolean valid = target.heldByCurrentThread().getAsBoolean();
      boolean toldLost = false;

      if (random.nextInt(100) < 8) {
        toldLost = reenter(target, name);
        valid = target.heldByCurrentThread().getAsBoolean();
      }
      if (!toldLost && depth == 0 && target.condition() != null) {
        int c = random.nextInt(100);
        if (c < 40) {
          signal(target, name);
          valid = target.heldByCurrentThread().getAsBoolean();
        } else if (c < 43) {
          awaitWithFlagSet(target, name, token);
          valid = target.heldByCurrentThread().getAsBoolean();
        } else if (c < 88) {
          // The await ends this section and a new one begins on the hold it re-acquires.
          int holds = 1;
          if (random.nextInt(100) < 20) {
            try {
              target.lock().lock();
              holds = 2;
            } catch (LockLostException e) {
              stats.count("lost told at reentry");
              toldLost = true;
            } catch (IllegalStateException e) {
              if (!factories.closedUnder(generation, e)) {
                throw e;
              }
              stats.count("closed at reentry");
              toldLost = true;
            }
          }
          if (!toldLost) {
            conn.end(holder, name, mode, token, start, valid);
            boolean validAfterEnd = target.heldByCurrentThread().getAsBoolean();
            Awaited awaited = await(target, name, token, holds, validAfterEnd, acqUs);
            if (awaited == null) {
              return true; // the await lost the hold, or did not re-acquire it: recorded
            }
            token = awaited.token();
            acqUs = awaited.acqUs();
            start = conn.start(holder, name, mode, token, acqUs, awaited.form());
            valid = target.heldByCurrentThread().getAsBoolean();
            if (holds == 2) {
              try {
                target.lock().unlock();
              } catch (LockLostException e) {
                stats.count("lost told at inner unlock");
                toldLost = true;
              } catch (RuntimeException e) {
                if (factories.closedUnder(generation, e)) {
                  stats.count("closed at inner unlock");
                  toldLost = true;
                } else {
                  contract("inner unlock after an await threw " + e);
                }
              }
              valid = target.heldByCurrentThread().getAsBoolean();
            }
          }
        }
      }
      int plan = keeper ? 0 : random.nextInt(10_000);
      if (!toldLost) {
        if (plan < 5) { // longer than the lease at times: renewal must carry it
          long holdNanos =
              TimeUnit.MILLISECONDS.toNanos(
                  keeper
                      ? leaseMillis + random.nextLong(2 * leaseMillis + 1)
                      : leaseMillis / 2 + random.nextLong(leaseMillis + 1));
          long until = System.nanoTime() + holdNanos;
          stats.count("long holds");
          while (System.nanoTime() - until < 0) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
            if (!target.heldByCurrentThread().getAsBoolean()) {
              stats.count("long holds cut short: lost");
              valid = false;
              break;
            }
            if (mode != 'r') {
              conn.write(holder, name, mode, token, valid);
            }
            valid = target.heldByCurrentThread().getAsBoolean();
          }
        } else if (plan < 60) {
          LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20 + random.nextInt(180)));
        } else if (plan < 1_000) {
          LockSupport.parkNanos(random.nextLong(TimeUnit.MILLISECONDS.toNanos(5)));
        }
        if (!keeper && depth == 0 && index + 1 < names && random.nextInt(100) < 4) {
          attempt(kind, index + 1 + random.nextInt(names - index - 1), depth + 1);
        }
      }
      conn.end(holder, name, mode, token, start, valid);
      boolean validAfterEnd = target.heldByCurrentThread().getAsBoolean();
      if (toldLost) {
        history.record(
            "U|"
                + holder
                + "|"
                + name
                + "|"
                + token
                + "|0|"
                + History.nowMicros()
                + "|"
                + History.nowMicros()
                + "|lost-at-reentry");
        return true;
      }
      unlock(target, name, token, validAfterEnd, acqUs, "");
      return true;
    }

    /**
     * Signals the section's condition ({@code signal}, or {@code signalAll} in a quarter): a signal
     * that finds the hold lost throws {@link LockLostException}, and the release tells it again.
     */
    private void signal(TortureKind.Target target, String name) {
      boolean all = random.nextInt(4) == 0;
      String label = all ? "signalAll" : "signal";
      enterCall(label + " " + name, false);
      try {
        Condition condition = target.condition().get();
        if (all) {
          condition.signalAll();
        } else {
          condition.signal();
        }
        stats.count(label + " ok");
      } catch (LockLostException e) {
        stats.count(label + " lost");
      } catch (RedisLockException e) {
        noUnexpectedReply(e);
        stats.count(label + " unreachable");
      } catch (RuntimeException e) {
        if (factories.closedUnder(generation, e)) {
          stats.count(label + " closed");
        } else {
          contract(label + " threw " + e + " at " + where(e));
        }
      }
      leaveCall();
    }

    /**
     * An await with the interrupt flag set: it must throw {@link InterruptedException} at once,
     * clear the flag and keep the hold as it was (the same token).
     */
    private void awaitWithFlagSet(TortureKind.Target target, String name, long token) {
      enterCall("await+intr " + name, false);
      Thread.currentThread().interrupt();
      boolean threw = false;
      try {
        target.condition().get().await(random.nextInt(50), TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        threw = true;
      } catch (RuntimeException e) {
        if (factories.closedUnder(generation, e)) {
          leaveCall();
          stats.count("await+intr closed");
          return;
        }
        contract("await with the interrupt flag set threw " + e);
      }
      boolean flag = leaveCall();
      stats.count("await+intr " + (threw ? "threw" : "returned"));
      if (!threw) {
        contract("await with the interrupt flag set did not throw InterruptedException");
      } else if (flag) {
        contract("await threw InterruptedException and left the flag set");
      }
      try {
        if (target.heldByCurrentThread().getAsBoolean() && target.token().getAsLong() != token) {
          contract("await with the interrupt flag set changed the hold's token");
        }
      } catch (RuntimeException e) {
        stats.count("await+intr token after: " + e.getClass().getSimpleName());
      }
    }

    /** A hold re-acquired by an await: its token, when it was taken, and its section's form. */
    private record Awaited(long token, long acqUs, String form) {}

    /**
     * Awaits the section's condition with a timeout ({@code awaitNanos}, {@code await(t, unit)} or
     * {@code awaitUntil}; 0 or negative at times), interruptible by the interrupter, with {@code
     * holds} holds. The section before it has ended; its release is the await ({@code U} record,
     * outcome {@code await}, {@code lost-at-await} or {@code unconfirmed-at-await}). When the await
     * returns (or throws {@link InterruptedException}) the thread must hold the lock again, with
     * its hold count: a new hold, whose token the new section records beside the old one (form
     * {@code await:<how>:<token before>}) for the checker to compare. Returns null when there is no
     * new hold (the await threw; its loss is recorded, and the hold given up).
     */
    private Awaited await(
        TortureKind.Target target,
        String name,
        long tokenBefore,
        int holds,
        boolean validAfterEnd,
        long acqUsBefore) {
      int how = random.nextInt(3);
      int t = random.nextInt(100);
      long timeoutMillis =
          t < 5 ? 0 : t < 10 ? -1 : t < 80 ? random.nextInt(50) : 50 + random.nextInt(250);
      String label = how == 0 ? "awaitNanos" : how == 1 ? "await(t)" : "awaitUntil";
      long startUs = History.nowMicros();
      long started = System.nanoTime();
      enterCall(label + " " + name, true);
      String result;
      String outcome = "await";
      boolean reacquired = false;
      try {
        Condition condition = target.condition().get();
        boolean signalled =
            switch (how) {
              case 0 -> condition.awaitNanos(TimeUnit.MILLISECONDS.toNanos(timeoutMillis)) > 0;
              case 1 -> condition.await(timeoutMillis, TimeUnit.MILLISECONDS);
              default -> condition.awaitUntil(new Date(System.currentTimeMillis() + timeoutMillis));
            };
        result = signalled ? "signalled" : "timeout";
        reacquired = true;
      } catch (InterruptedException e) {
        result = "interrupted";
        reacquired = true;
      } catch (LockLostException e) {
        result = "lost";
        outcome = "lost-at-await";
      } catch (RedisLockException e) {
        noUnexpectedReply(e);
        result = "unreachable";
        outcome = "unconfirmed-at-await";
      } catch (RuntimeException e) {
        if (factories.closedUnder(generation, e)) {
          result = "closed";
          outcome = "closed-at-await";
        } else {
          result = "failed";
          outcome = "failed-at-await";
          contract(label + " threw " + e + " at " + where(e));
        }
      }
      long returned = System.nanoTime();
      leaveCall();
      closeCheck(
          label + " " + name,
          started,
          returned,
          result,
          result.equals("closed") || result.equals("interrupted") || result.equals("lost"),
          result.equals("unreachable")
              || (result.equals("timeout")
                  && returned - started < TimeUnit.MILLISECONDS.toNanos(timeoutMillis)));
      long elapsed = System.nanoTime() - started;
      long endUs = History.nowMicros();
      stats.count(label + " " + result);
      stats.max("await max ms", TimeUnit.NANOSECONDS.toMillis(elapsed));
      if (elapsed > TimeUnit.SECONDS.toNanos(10)) {
        history.record(
            "C|" + holder + "|" + name + "|" + label + "|" + startUs + "|" + endUs + "|0|"
                + result);
      }
      history.record(
          "U|"
              + holder
              + "|"
              + name
              + "|"
              + tokenBefore
              + "|"
              + (validAfterEnd ? 1 : 0)
              + "|"
              + startUs
              + "|"
              + endUs
              + "|"
              + outcome
              + "|"
              + acqUsBefore);
      if (!reacquired) {
        // A lost hold may still be held in the JVM (the loss found before the release): give it
        // up, as a finally block would.
        for (int i = 0; i < holds; i++) {
          try {
            target.lock().unlock();
          } catch (IllegalMonitorStateException | RedisLockException | IllegalStateException e) {
            noUnexpectedReply(e);
            break;
          }
        }
        return null;
      }
      long acqUs = History.nowMicros();
      long token;
      try {
        token = target.token().getAsLong();
      } catch (LockLostException | RedisLockException | IllegalStateException e) {
        if (e instanceof IllegalStateException && !factories.closedUnder(generation, e)) {
          throw e;
        }
        noUnexpectedReply(e);
        stats.count(
            "token after await "
                + (e instanceof LockLostException
                    ? "lost"
                    : e instanceof RedisLockException ? "unreachable" : "closed"));
        for (int i = 0; i < holds; i++) {
          try {
            target.lock().unlock();
          } catch (IllegalMonitorStateException | RedisLockException | IllegalStateException e2) {
            break;
          }
        }
        return null;
      } catch (IllegalMonitorStateException e) {
        contract(label + " returned (" + result + ") and the lock is not held: " + e);
        return null;
      }
      int count = target.holdCount().getAsInt();
      if (count != holds && count != 0) {
        contract("hold count " + count + " after " + label + " with " + holds + " holds");
      }
      if (result.equals("interrupted") && token == tokenBefore) {
        // Interrupted before the await looked at the flag (the interrupter may strike once the
        // call is marked interruptible): it threw at once and kept the hold, as the contract says.
        // The checker accepts the same token for these only; a release without a re-acquisition
        // would still show as an overlap or a decreasing token.
        result = "interrupted-on-entry";
      }
      stats.count(label + " " + result + " (hold)");
      return new Awaited(token, acqUs, "await:" + result + ":" + tokenBefore);
    }

    /** A reentrant acquisition and its release; true if it told us the hold was lost. */
    private boolean reenter(TortureKind.Target target, String name) {
      Form form = Form.values()[random.nextInt(Form.values().length)];
      Outcome outcome = acquire(target, name, form, random.nextInt(20), false, true);
      if (outcome == Outcome.LOST) {
        stats.count("lost told at reentry");
        return true;
      }
      if (outcome == Outcome.CLOSED) {
        stats.count("closed at reentry");
        return true;
      }
      if (outcome != Outcome.ACQUIRED) {
        if (outcome != Outcome.INTERRUPTED) {
          contract("reentrant " + form.label + " while holding: " + outcome);
        }
        return false;
      }
      int count = target.holdCount().getAsInt();
      if (count != 2 && count != 0) {
        contract("hold count " + count + " after a reentrant " + form.label);
      }
      try {
        target.lock().unlock();
      } catch (LockLostException e) {
        stats.count("lost told at inner unlock");
        return true;
      } catch (RuntimeException e) {
        if (factories.closedUnder(generation, e)) {
          stats.count("closed at inner unlock");
          return true;
        }
        contract("inner unlock threw " + e);
      }
      return false;
    }

    private void unlock(
        TortureKind.Target target,
        String name,
        long token,
        boolean validAfterEnd,
        long acqUs,
        String note) {
      boolean withFlag = random.nextInt(100) < 3;
      long startUs = History.nowMicros();
      long start = System.nanoTime();
      enterCall("unlock " + name, false);
      if (withFlag) {
        Thread.currentThread().interrupt();
      }
      String outcome;
      try {
        target.lock().unlock();
        outcome = "ok";
      } catch (LockLostException e) {
        outcome = "lost";
      } catch (RedisLockException e) {
        noUnexpectedReply(e);
        outcome = "unconfirmed";
      } catch (IllegalMonitorStateException e) {
        outcome = "imse";
        contract("unlock threw " + e);
      } catch (RuntimeException e) {
        if (factories.closedUnder(generation, e)) {
          outcome = "closed";
        } else {
          outcome = "failed";
          contract("unlock threw " + e + " at " + where(e));
        }
      }
      long elapsed = System.nanoTime() - start;
      boolean flag = leaveCall();
      if (withFlag && !flag) {
        contract("unlock with the interrupt flag set cleared it");
      }
      long endUs = History.nowMicros();
      stats.count("unlock " + outcome);
      stats.max("unlock max ms", TimeUnit.NANOSECONDS.toMillis(elapsed));
      if (elapsed > TimeUnit.SECONDS.toNanos(10)) {
        history.record(
            "C|" + holder + "|" + name + "|unlock|" + startUs + "|" + endUs + "|0|" + outcome);
      }
      history.record(
          "U|"
              + holder
              + "|"
              + name
              + "|"
              + token
              + "|"
              + (validAfterEnd ? 1 : 0)
              + "|"
              + startUs
              + "|"
              + endUs
              + "|"
              + outcome
              + (note.isEmpty() ? "" : "-" + note)
              + "|"
              + acqUs);
    }
  }

  /** A new unstarted virtual thread (Java 21+), created through reflection: we compile for 17. */
  private static Thread newVirtualThread(String name, Runnable body) {
    try {
      Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
      Class<?> builderType = Class.forName("java.lang.Thread$Builder");
      builder = builderType.getMethod("name", String.class).invoke(builder, name);
      Method unstarted = builderType.getMethod("unstarted", Runnable.class);
      return (Thread) unstarted.invoke(builder, body);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("no virtual threads on Java " + Runtime.version(), e);
    }
  }

  /** Counts and maxima, printed at the end. */
  static final class Stats {
    private final Map<String, LongAdder> counts = new ConcurrentHashMap<>();
    private final Map<String, AtomicLong> maxima = new ConcurrentHashMap<>();

    void count(String what) {
      counts.computeIfAbsent(what, k -> new LongAdder()).increment();
    }

    void max(String what, long value) {
      maxima.computeIfAbsent(what, k -> new AtomicLong()).accumulateAndGet(value, Math::max);
    }

    String summary() {
      Map<String, Long> all = new TreeMap<>();
      counts.forEach((k, v) -> all.put(k, v.sum()));
      maxima.forEach((k, v) -> all.put(k, v.get()));
      List<String> parts = new ArrayList<>();
      all.forEach((k, v) -> parts.add(k.replace(' ', '_') + "=" + v));
      return String.join(" ", parts);
    }
  }
}
