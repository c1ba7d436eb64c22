package io.github.redislock.torture;

import io.github.redislock.LockHandle;
import io.github.redislock.LockLostException;
import io.github.redislock.RedisDistributedLock;
import io.github.redislock.RedisLock;
import io.github.redislock.RedisLockException;
import io.github.redislock.RedisLockFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The sections of {@link HandleKind}: holds owned by a {@link LockHandle}, acquired on one thread,
 * used on a second and released on a third. One per worker JVM, shared by its threads.
 *
 * <p>An operation, started by a worker thread on a name: the thread starts the acquisition, in one
 * of these forms (seeded): {@code acquireHoldAsync()} (30%), {@code tryAcquireHoldAsync(wait)}
 * (25%; 0, negative, up to 100 ms or up to 1 s), both with a lease given per call in a fifth of
 * them, the blocking {@code acquireHold()} (10%) and {@code tryAcquireHold(wait)} or {@code
 * tryAcquireHold()} (10%), with a lease at times, and in 5% a thread hold with a lease per call
 * ({@code lockFor(lease)}, {@code tryLock(wait, lease)}), used and unlocked on the worker thread. A
 * tenth of the asynchronous acquisitions are cancelled from another thread after 0 to 30 ms, and a
 * tenth start two holds of the name at once (they queue in the JVM). The stage that receives the
 * handle runs on the section pool: it takes the fencing token (a read hold has none, and must say
 * so), records the section's start through the fenced store, at times sets a new lease ({@code
 * extend}), holds as the other kinds' sections do (rarely longer than the lease, writing through
 * the fence every 100 ms while {@code isHeld()}), and records the end; the next stage, on the
 * release pool, releases ({@code release()}, at times {@code close()} or {@code releaseAfter}) and
 * records the outcome. Leases given per call are three factory leases: longer than any section, so
 * that a hold that runs out is a loss the checker can account for, as for any other hold.
 *
 * <p>Contract checks: a section runs on neither the thread that started the acquisition nor the one
 * that releases; {@code acquireHoldAsync()} and {@code acquireHold()} never fail with {@link
 * RedisLockException}; a timed acquisition is empty only once its time ran out (the checker holds
 * its return to the deadline, as for a timed {@code tryLock}); a handle is not held once released,
 * and a second {@code release()} throws {@link IllegalMonitorStateException}; a future that was
 * pending when its factory's {@code close()} began ends with {@link IllegalStateException}; and,
 * once every worker thread stopped, the factory renews no hold ({@link #nothingLeftHeld}): a
 * cancelled acquisition, an interrupted one or a lost future would leave one renewed for ever.
 */
final class HandleRunner {
  /** An operation not over after this long is a hang. */
  static final long OPERATION_LIMIT_SECONDS = 120;

  /**
   * Marks a timed acquisition's late-return record ({@code C}) when its lock has an entry to take
   * out of Redis as it gives up (a fair queue place, a writer's intent): see {@link
   * Checker#checkLiveness}.
   */
  static final String LEAVES = "@leaves-entry";

  /** What a worker thread lends an operation. */
  interface Caller {
    String holder();

    SplittableRandom random();

    void enterCall(String what, boolean interruptible);

    /** Leaves the call; returns (and clears) the interrupt flag. */
    boolean leaveCall();

    void contract(String what);

    void error(Throwable e);
  }

  private final History history;
  private final Worker.Stats stats;
  private final Factories factories;
  private final long leaseMillis;

  /** A lease given per call is this many factory leases: longer than any section. */
  static final int GIVEN_LEASES = 3;

  private final ExecutorService sections = Executors.newFixedThreadPool(6, named("section"));
  private final ExecutorService releases = Executors.newFixedThreadPool(3, named("release"));
  private final ScheduledExecutorService canceller =
      Executors.newSingleThreadScheduledExecutor(named("cancel"));
  private final ThreadLocal<History.Conn> conns = new ThreadLocal<>();
  private final AtomicLong holds = new AtomicLong();

  /**
   * The least positive wait of a timed acquisition ({@code torture.handleMinWaitMillis}, default 0:
   * waits from 1 ms up, as drawn). A wait of a few milliseconds can run out before the acquisition
   * joins its name's line in the JVM; a run that must leave that race out raises it.
   */
  private final long minWaitMillis;

  HandleRunner(
      History history,
      Worker.Stats stats,
      Factories factories,
      long leaseMillis,
      long minWaitMillis) {
    this.history = history;
    this.stats = stats;
    this.factories = factories;
    this.leaseMillis = leaseMillis;
    this.minWaitMillis = minWaitMillis;
  }

  private static ThreadFactory named(String what) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, "torture-handle-" + what + "-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }

  /** The forms of acquisition. */
  enum Form {
    ASYNC("acquireHoldAsync", true, false),
    TRY_ASYNC("tryAcquireHoldAsync(t)", true, true),
    BLOCKING("acquireHold", false, false),
    TRY_BLOCKING("tryAcquireHold(t)", false, true),
    TRY_ONCE("tryAcquireHold", false, true),
    THREAD_LEASE("lockFor", false, false),
    THREAD_TRY_LEASE("tryLock(t,lease)", false, true);

    final String label;
    final boolean async;
    final boolean timed;

    Form(String label, boolean async, boolean timed) {
      this.label = label;
      this.async = async;
      this.timed = timed;
    }
  }

  /** One operation on {@code name}, on the calling worker thread; returns when it is over. */
  void operate(Caller caller, Factories.Generation generation, String name) {
    SplittableRandom random = caller.random();
    RedisLockFactory locks = generation.locks();
    int r = random.nextInt(100);
    Form form;
    if (r < 40) {
      form = Form.ASYNC;
    } else if (r < 75) {
      form = Form.TRY_ASYNC;
    } else if (r < 85) {
      form = Form.BLOCKING;
    } else if (r < 92) {
      form = Form.TRY_BLOCKING;
    } else if (r < 95) {
      form = Form.TRY_ONCE;
    } else {
      form = Form.THREAD_LEASE;
    }
    if (form == Form.THREAD_LEASE && random.nextBoolean()) {
      form = Form.THREAD_TRY_LEASE;
    }
    int t = random.nextInt(100);
    long waitMillis =
        t < 5 ? 0 : t < 10 ? -1 : t < 80 ? random.nextInt(100) : 100 + random.nextInt(900);
    if (waitMillis > 0 && waitMillis < minWaitMillis) {
      waitMillis = minWaitMillis;
    }
    Duration lease =
        form == Form.THREAD_LEASE || form == Form.THREAD_TRY_LEASE || random.nextInt(5) == 0
            ? Duration.ofMillis(GIVEN_LEASES * leaseMillis)
            : null;
    if (form == Form.THREAD_LEASE || form == Form.THREAD_TRY_LEASE) {
      HandleKind.Choice choice = HandleKind.choose(locks, name, random);
      if (choice.lock() instanceof RedisDistributedLock lock) {
        threadLease(
            caller, generation, name, lock, choice.what().equals("fair"), form, waitMillis, lease);
        return;
      }
      form = Form.ASYNC;
    }
    int count = form.async && random.nextInt(10) == 0 ? 2 : 1;
    List<CompletableFuture<Void>> ops = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      HandleKind.Choice choice = HandleKind.choose(locks, name, random);
      boolean cancel = form.async && random.nextInt(10) == 0;
      ops.add(
          start(caller, generation, name, choice, form, waitMillis, lease, cancel, random.split()));
    }
    caller.enterCall("handle operation " + name, false);
    try {
      CompletableFuture.allOf(ops.toArray(CompletableFuture[]::new))
          .get(OPERATION_LIMIT_SECONDS, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException e) {
      caller.error(e.getCause());
    } catch (TimeoutException e) {
      history.record(
          "X|"
              + caller.holder()
              + "|hang|a "
              + form.label
              + " operation on "
              + name
              + " not over after "
              + OPERATION_LIMIT_SECONDS
              + " s");
    } finally {
      caller.leaveCall();
    }
  }

  /** What the stage after the acquisition sees. */
  private record Acquired(Optional<LockHandle> hold, Throwable failure, long us, long nanos) {}

  /** What the release stage gets. */
  private record Section(
      LockHandle hold, long token, boolean validAfterEnd, long acqUs, String note, Thread ran) {}

  private CompletableFuture<Void> start(
      Caller caller,
      Factories.Generation generation,
      String name,
      HandleKind.Choice choice,
      Form form,
      long waitMillis,
      Duration lease,
      boolean cancel,
      SplittableRandom random) {
    String holder = caller.holder() + "/" + holds.incrementAndGet();
    String label = form.label + (lease != null && form != Form.TRY_ONCE ? "+lease" : "");
    Thread starter = Thread.currentThread();
    long startUs = History.nowMicros();
    long startNanos = System.nanoTime();
    Duration wait = Duration.ofMillis(waitMillis);
    CompletableFuture<?> source;
    try {
      source =
          switch (form) {
            case ASYNC ->
                lease == null
                    ? choice.lock().acquireHoldAsync()
                    : choice.lock().acquireHoldAsync(lease);
            case TRY_ASYNC ->
                lease == null
                    ? choice.lock().tryAcquireHoldAsync(wait)
                    : choice.lock().tryAcquireHoldAsync(wait, lease);
            default -> blocking(caller, choice.lock(), form, wait, lease, name);
          };
    } catch (RuntimeException e) {
      source = CompletableFuture.failedFuture(e);
    }
    long returnedNanos = System.nanoTime();
    // Complete when the call returned: the first attempt runs in the calling thread, and how long
    // the call held it is bounded as tryLock()'s one attempt is, not by the deadline.
    boolean doneAtReturn = source.isDone();
    if (form.async) {
      stats.max(
          "hold " + label + " call max ms",
          TimeUnit.NANOSECONDS.toMillis(returnedNanos - startNanos));
    }
    AtomicBoolean cancelled = new AtomicBoolean();
    if (cancel) {
      CompletableFuture<?> toCancel = source;
      canceller.schedule(
          () -> {
            boolean withdrawn = toCancel.cancel(false);
            cancelled.set(withdrawn);
            stats.count("hold cancel " + (withdrawn ? "withdrew" : "too late"));
          },
          random.nextLong(TimeUnit.MILLISECONDS.toMicros(30) + 1),
          TimeUnit.MICROSECONDS);
    }
    return source
        .handle(
            (value, failure) ->
                new Acquired(asHold(value), failure, History.nowMicros(), System.nanoTime()))
        .thenApplyAsync(
            a ->
                section(
                    caller,
                    generation,
                    holder,
                    name,
                    choice,
                    form,
                    label,
                    waitMillis,
                    startUs,
                    startNanos,
                    cancelled,
                    starter,
                    doneAtReturn,
                    a,
                    random),
            sections)
        .thenAcceptAsync(
            s -> {
              if (s != null) {
                release(caller, generation, holder, name, choice, s, random);
              }
            },
            releases)
        .exceptionally(
            e -> {
              caller.error(
                  e instanceof CompletionException && e.getCause() != null ? e.getCause() : e);
              return null;
            });
  }

  @SuppressWarnings("unchecked")
  private static Optional<LockHandle> asHold(Object value) {
    if (value instanceof LockHandle h) {
      return Optional.of(h);
    }
    return value == null ? Optional.empty() : (Optional<LockHandle>) value;
  }

  /** A blocking form, on the worker thread: its outcome as a completed future. */
  private CompletableFuture<Optional<LockHandle>> blocking(
      Caller caller, RedisLock lock, Form form, Duration wait, Duration lease, String name) {
    caller.enterCall(form.label + " " + name, true);
    try {
      Optional<LockHandle> got =
          switch (form) {
            case BLOCKING ->
                Optional.of(lease == null ? lock.acquireHold() : lock.acquireHold(lease));
            case TRY_BLOCKING ->
                lease == null ? lock.tryAcquireHold(wait) : lock.tryAcquireHold(wait, lease);
            default -> lock.tryAcquireHold();
          };
      return CompletableFuture.completedFuture(got);
    } catch (InterruptedException | RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    } finally {
      caller.leaveCall(); // acquireHold() sets the flag again if interrupted: cleared here
    }
  }

  /** The section, on a thread of the section pool; null when there is nothing to release. */
  private Section section(
      Caller caller,
      Factories.Generation generation,
      String holder,
      String name,
      HandleKind.Choice choice,
      Form form,
      String label,
      long waitMillis,
      long startUs,
      long startNanos,
      AtomicBoolean cancelled,
      Thread starter,
      boolean doneAtReturn,
      Acquired a,
      SplittableRandom random) {
    if (Thread.currentThread() == starter) {
      caller.contract(label + ": the section ran on the thread that started the acquisition");
    }
    String outcome = outcome(caller, generation, form, label, waitMillis, startNanos, a, cancelled);
    stats.count("hold " + label + " " + outcome);
    stats.max("hold " + label + " max ms", TimeUnit.NANOSECONDS.toMillis(a.nanos() - startNanos));
    // A future complete when the call returned may have completed before (the stage that timed
    // it ran once the call returned): its call is held to tryLock()'s bound, below.
    long deadlineUs =
        form.timed && form != Form.TRY_ONCE && waitMillis > 0 && !(form.async && doneAtReturn)
            ? startUs + waitMillis * 1000
            : 0;
    if (deadlineUs > 0 && a.us() - deadlineUs > Worker.DEADLINE_SLACK_MICROS) {
      // A fair waiter or a writer that gives up takes its entry out of Redis before it completes
      // (the exception to the deadline that timed tryLock has): marked for the checker, which
      // has no stack sample of a future to see it by.
      String leaves = choice.mode() == 'w' || choice.what().equals("fair") ? LEAVES : "";
      history.record(
          "C|"
              + holder
              + "|"
              + name
              + "|"
              + label
              + leaves
              + "|"
              + startUs
              + "|"
              + a.us()
              + "|"
              + deadlineUs
              + "|"
              + outcome);
    } else if (deadlineUs == 0 && a.nanos() - startNanos > TimeUnit.SECONDS.toNanos(10)) {
      history.record(
          "C|"
              + holder
              + "|"
              + name
              + "|"
              + (form.timed ? "tryLock:" : "")
              + label
              + "|"
              + startUs
              + "|"
              + a.us()
              + "|0|"
              + outcome);
    }
    if (a.hold().isEmpty()) {
      return null;
    }
    LockHandle hold = a.hold().get();
    char mode = choice.mode();
    long token = 0;
    try {
      if (mode == 'r') {
        if (random.nextInt(10) == 0) {
          try {
            hold.fencingToken();
            caller.contract("a read hold's fencingToken() did not throw");
          } catch (UnsupportedOperationException e) {
            stats.count("hold read token refused");
          }
        }
      } else {
        token = hold.fencingToken();
      }
    } catch (LockLostException | RedisLockException e) {
      stats.count("hold token " + (e instanceof LockLostException ? "lost" : "unreachable"));
      return new Section(hold, 0, false, a.us(), "before-token", Thread.currentThread());
    } catch (IllegalStateException e) {
      if (!factories.closedUnder(generation, e)) {
        throw e;
      }
      stats.count("hold token closed");
      return new Section(hold, 0, false, a.us(), "before-token", Thread.currentThread());
    }
    History.Conn conn = conn();
    String form2 = "hold:" + choice.what() + ":" + label;
    History.Start start;
    try {
      start = conn.start(holder, name, mode, token, a.us(), form2);
      boolean valid = hold.isHeld();
      if (random.nextInt(100) < 5) {
        try {
          boolean extended = hold.extend(Duration.ofMillis(GIVEN_LEASES * leaseMillis));
          stats.count("hold extend " + (extended ? "ok" : "not held"));
        } catch (RedisLockException e) {
          stats.count("hold extend unreachable");
        } catch (IllegalStateException e) {
          if (!factories.closedUnder(generation, e)) {
            throw e;
          }
          stats.count("hold extend closed");
        }
        valid = hold.isHeld();
      }
      int plan = random.nextInt(10_000);
      if (plan < 5) {
        long until =
            System.nanoTime()
                + TimeUnit.MILLISECONDS.toNanos(leaseMillis / 2 + random.nextLong(leaseMillis + 1));
        stats.count("hold long holds");
        while (System.nanoTime() - until < 0) {
          LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
          if (!hold.isHeld()) {
            stats.count("hold long holds cut short: lost");
            valid = false;
            break;
          }
          if (mode != 'r') {
            conn.write(holder, name, mode, token, valid);
          }
          valid = hold.isHeld();
        }
      } else if (plan < 60) {
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20 + random.nextInt(180)));
      } else if (plan < 1_000) {
        LockSupport.parkNanos(random.nextLong(TimeUnit.MILLISECONDS.toNanos(5)));
      }
      conn.end(holder, name, mode, token, start, valid);
    } catch (RuntimeException e) {
      dropConn();
      throw e;
    }
    return new Section(hold, token, hold.isHeld(), a.us(), "", Thread.currentThread());
  }

  /**
   * How an acquisition ended, with the contract checks that hold whatever Redis does; records
   * nothing but the checks.
   */
  private String outcome(
      Caller caller,
      Factories.Generation generation,
      Form form,
      String label,
      long waitMillis,
      long startNanos,
      Acquired a,
      AtomicBoolean cancelled) {
    Throwable e = a.failure();
    while (e instanceof CompletionException && e.getCause() != null) {
      e = e.getCause();
    }
    String outcome;
    boolean fine;
    boolean failure = false;
    if (e == null) {
      outcome = a.hold().isPresent() ? "acquired" : "busy";
      fine = false;
      if (a.hold().isEmpty()) {
        boolean early =
            form != Form.TRY_ONCE
                && waitMillis > 0
                && a.nanos() - startNanos < TimeUnit.MILLISECONDS.toNanos(waitMillis) - 1_000_000;
        if (early) {
          caller.contract(label + " was empty before its time ran out");
        }
        failure = early;
      }
    } else if (e instanceof CancellationException) {
      outcome = "cancelled";
      fine = true;
      if (!cancelled.get()) {
        // The cancel may have been decided after the future completed it: only a completion
        // without any cancel asked for is wrong. The canceller sets the flag after cancel returns.
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
        if (!cancelled.get()) {
          caller.contract(label + " completed with CancellationException and was not cancelled");
        }
      }
    } else if (e instanceof InterruptedException) {
      outcome = "interrupted";
      fine = true;
      if (form != Form.TRY_BLOCKING) {
        caller.contract(label + " threw InterruptedException");
      }
    } else if (e instanceof RedisLockException) {
      outcome = "redis_failure";
      fine = false;
      failure = true;
      if (!form.timed) {
        caller.contract(label + " failed with " + e);
      }
    } else if (factories.closedUnder(generation, e)) {
      outcome = "closed";
      fine = true;
    } else {
      outcome = "failed";
      fine = false;
      caller.contract(label + " failed with " + e);
    }
    if (form == Form.TRY_ONCE || (form.timed && waitMillis <= 0)) {
      return outcome;
    }
    Factories.Window w = factories.window(generation);
    if (w != null && startNanos - w.startNanos() < 0) {
      boolean after = w.endNanos() != Long.MAX_VALUE && a.nanos() - w.endNanos() > 0;
      long afterMillis = after ? TimeUnit.NANOSECONDS.toMillis(a.nanos() - w.endNanos()) : 0;
      stats.count("hold waiting at close: " + outcome);
      if (fine) {
        if (afterMillis > TimeUnit.SECONDS.toMillis(5)) {
          caller.contract(
              label
                  + " was waiting when its factory closed, and ended only "
                  + afterMillis
                  + " ms after close() returned");
        }
      } else if (after || failure) {
        caller.contract(
            label
                + " was waiting when its factory's close() began, and ended "
                + (after ? afterMillis + " ms after close() returned" : "while close() ran")
                + " with "
                + outcome
                + ", not IllegalStateException");
      }
    }
    return outcome;
  }

  /** The release, on a thread of the release pool. */
  private void release(
      Caller caller,
      Factories.Generation generation,
      String holder,
      String name,
      HandleKind.Choice choice,
      Section s,
      SplittableRandom random) {
    if (Thread.currentThread() == s.ran()) {
      caller.contract("a hold was released on the thread that ran its section");
    }
    LockHandle hold = s.hold();
    int how = random.nextInt(100);
    String call = how < 85 ? "release" : how < 92 ? "close" : "releaseAfter";
    long startUs = History.nowMicros();
    long start = System.nanoTime();
    String outcome;
    try {
      switch (call) {
        case "release" -> hold.release();
        case "close" -> hold.close();
        default -> hold.releaseAfter(Duration.ofMillis(random.nextInt(101)));
      }
      outcome = "ok";
    } catch (LockLostException e) {
      outcome = "lost";
    } catch (RedisLockException e) {
      outcome = "unconfirmed";
    } catch (IllegalMonitorStateException e) {
      outcome = "imse";
      caller.contract(call + " threw " + e);
    } catch (RuntimeException e) {
      if (factories.closedUnder(generation, e)) {
        outcome = "closed";
      } else {
        outcome = "failed";
        caller.contract(call + " threw " + e);
      }
    }
    long elapsed = System.nanoTime() - start;
    long endUs = History.nowMicros();
    if (hold.isHeld()) {
      caller.contract("a handle still held after " + call + " (" + outcome + ")");
    }
    if (random.nextInt(20) == 0) {
      try {
        hold.release();
        caller.contract("a second release() after " + call + " (" + outcome + ") did not throw");
      } catch (IllegalMonitorStateException e) {
        stats.count("hold second release refused");
      } catch (RuntimeException e) {
        caller.contract("a second release() after " + call + " threw " + e);
      }
    }
    stats.count("hold " + call + " " + outcome);
    stats.max("hold release max ms", TimeUnit.NANOSECONDS.toMillis(elapsed));
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
            + s.token()
            + "|"
            + (s.validAfterEnd() ? 1 : 0)
            + "|"
            + startUs
            + "|"
            + endUs
            + "|"
            + outcome
            + (s.note().isEmpty() ? "" : "-" + s.note())
            + "|"
            + s.acqUs());
  }

  /**
   * A thread hold with a lease given per call ({@code lockFor}, {@code tryLock(wait, lease)}): not
   * renewed; its section and its release on the worker thread.
   */
  private void threadLease(
      Caller caller,
      Factories.Generation generation,
      String name,
      RedisDistributedLock lock,
      boolean fair,
      Form form,
      long waitMillis,
      Duration lease) {
    String holder = caller.holder();
    String label = form.label;
    caller.enterCall(label + " " + name, true);
    long startUs = History.nowMicros();
    long start = System.nanoTime();
    String outcome;
    boolean got = false;
    try {
      if (form == Form.THREAD_LEASE) {
        lock.lockFor(lease);
        got = true;
      } else {
        got = lock.tryLock(Duration.ofMillis(waitMillis), lease);
      }
      outcome = got ? "acquired" : "busy";
    } catch (InterruptedException e) {
      outcome = "interrupted";
    } catch (RedisLockException e) {
      outcome = "redis_failure";
      if (form == Form.THREAD_LEASE) {
        caller.contract("lockFor threw " + e);
      }
    } catch (RuntimeException e) {
      if (!factories.closedUnder(generation, e)) {
        caller.contract(label + " threw " + e);
        outcome = "failed";
      } else {
        outcome = "closed";
      }
    }
    long endUs = History.nowMicros();
    long elapsed = System.nanoTime() - start;
    caller.leaveCall();
    stats.count("hold " + label + " " + outcome);
    if (form == Form.THREAD_TRY_LEASE && waitMillis > 0) {
      long deadlineUs = startUs + waitMillis * 1000;
      if (endUs - deadlineUs > Worker.DEADLINE_SLACK_MICROS) {
        history.record(
            "C|"
                + holder
                + "|"
                + name
                + "|tryLock(t)+lease"
                // A fair waiter that gives up takes its place out of Redis before it returns.
                + (fair ? LEAVES : "")
                + "|"
                + startUs
                + "|"
                + endUs
                + "|"
                + deadlineUs
                + "|"
                + outcome);
      }
    } else if (elapsed > TimeUnit.SECONDS.toNanos(10)) {
      history.record(
          "C|"
              + holder
              + "|"
              + name
              + "|"
              + (form.timed ? "tryLock:" : "")
              + label
              + "|"
              + startUs
              + "|"
              + endUs
              + "|0|"
              + outcome);
    }
    if (!got) {
      return;
    }
    long acqUs = History.nowMicros();
    long token;
    try {
      token = lock.getFencingToken();
    } catch (LockLostException | RedisLockException | IllegalStateException e) {
      if (e instanceof IllegalStateException && !factories.closedUnder(generation, e)) {
        throw e;
      }
      stats.count("hold thread-lease token failed");
      unlockThread(caller, generation, holder, name, lock, 0, false, acqUs, "before-token");
      return;
    }
    boolean validAfterEnd;
    History.Conn conn = conn();
    try {
      History.Start s =
          conn.start(holder, name, 'x', token, acqUs, "hold:thread:" + label + "+lease");
      boolean valid = lock.isHeldByCurrentThread();
      if (caller.random().nextInt(10) == 0) {
        LockSupport.parkNanos(caller.random().nextLong(TimeUnit.MILLISECONDS.toNanos(5)));
      }
      conn.end(holder, name, 'x', token, s, valid);
      validAfterEnd = lock.isHeldByCurrentThread();
    } catch (RuntimeException e) {
      dropConn();
      try {
        lock.unlock();
      } catch (RuntimeException e2) {
        stats.count("hold thread-lease release after a failed section threw");
      }
      throw e;
    }
    unlockThread(caller, generation, holder, name, lock, token, validAfterEnd, acqUs, "");
  }

  private void unlockThread(
      Caller caller,
      Factories.Generation generation,
      String holder,
      String name,
      RedisDistributedLock lock,
      long token,
      boolean validAfterEnd,
      long acqUs,
      String note) {
    long startUs = History.nowMicros();
    String outcome;
    try {
      lock.unlock();
      outcome = "ok";
    } catch (LockLostException e) {
      outcome = "lost";
    } catch (RedisLockException e) {
      outcome = "unconfirmed";
    } catch (RuntimeException e) {
      if (factories.closedUnder(generation, e)) {
        outcome = "closed";
      } else {
        outcome = "failed";
        caller.contract("unlock of a leased thread hold threw " + e);
      }
    }
    long endUs = History.nowMicros();
    stats.count("hold thread-lease unlock " + outcome);
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

  private History.Conn conn() {
    History.Conn c = conns.get();
    if (c == null) {
      c = history.connect();
      conns.set(c);
    }
    return c;
  }

  private void dropConn() {
    History.Conn c = conns.get();
    conns.remove();
    if (c != null) {
      try {
        c.close();
      } catch (RuntimeException e) {
        // a broken connection: a new one next time
      }
    }
  }

  /**
   * Once every worker thread stopped (every operation over): the factory renews no hold. A hold
   * granted to a cancelled acquisition is released at once, in the background: waits up to two
   * leases for the count to reach 0. Returns the holds still renewed (0 when none).
   */
  static int nothingLeftHeld(RedisLockFactory locks, long leaseMillis) {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(2 * leaseMillis + 1000);
    int left = locks.activity().renewingHoldCount();
    while (left > 0 && System.nanoTime() - deadline < 0) {
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
      left = locks.activity().renewingHoldCount();
    }
    return left;
  }

  /** Stops the pools (the worker is stopping). */
  void shutdown() {
    canceller.shutdownNow();
    sections.shutdown();
    releases.shutdown();
  }
}
