package io.github.redislock.internal;

import io.github.redislock.internal.FakeBackend.Call;
import io.github.redislock.internal.FakeBackend.Op;
import io.github.redislock.internal.backend.Acquisition;
import io.github.redislock.internal.backend.LockKeys;
import io.github.redislock.internal.backend.Release;
import io.github.redislock.internal.kind.ExclusiveKind;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.stream.IntStream;
import org.jetbrains.kotlinx.lincheck.Actor;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.ManagedStrategyGuaranteeKt;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Options;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.StressOptions;
import org.jetbrains.lincheck.datastructures.ThreadIdGen;
import org.jetbrains.lincheck.datastructures.Validate;
import org.junit.jupiter.api.Test;

/**
 * Local handoff under Lincheck, in model checking and stress mode: threads of one JVM take and give
 * back one name, passing the Redis hold to the next queued thread ({@link LocalHandoff}), while
 * queued threads give up (interrupted) and the factory closes. What must hold: a handed hold is
 * taken by exactly one thread, or released exactly once when nobody takes it; no hold is both taken
 * and released; none is left behind.
 *
 * <p>The pieces are the engine's own ({@link NameState} with its {@link LocalLock}, {@link
 * LocalHandoff}, {@link Hold}, {@link Releases} over a {@link FakeBackend} and a {@link
 * ManualTicker}); the operations follow the engine's calls to them: an acquisition as {@code
 * Acquisitions.acquire} makes it (queue locally, take a handed hold or acquire in Redis, and on the
 * way out without the lock release an orphan), a release as {@code Mutexes.unlock} makes it (hand
 * off when a thread is queued, else release in Redis), a close as {@code LockEngine.close} does it
 * (every hold, held or handed, marked lost, queued threads woken). Releases run at once, in the
 * releasing thread, so that a thread that owns the local lock with no hold handed to it finds the
 * key free in Redis.
 *
 * <p>Checked: two threads never use a hold at once, and the hold in use holds the key in Redis (not
 * released); {@code unlock()} does not throw what it does not document; and at the end, with nobody
 * queued, each hold was released once, or, after a close, was marked lost (it expires with its
 * lease), and the key holds no hold that nobody will release. Acquisitions after the close throw
 * {@link IllegalStateException}, as the specification ({@link HandoffModel}) says.
 *
 * <p>Scenarios are few and small, to keep {@code mvn test} short; {@value
 * LincheckBudget#SCALE_PROPERTY} multiplies their number (see {@link LincheckBudget}).
 */
class LocalHandoffLincheckTest {
  private static final int THREADS = 3;
  private static final Duration LEASE = Duration.ofSeconds(30);
  private static final LockKeys KEYS = LockKeys.of("handoff-lincheck");

  /** Owner tokens, made in advance: a scenario has at most nine acquisitions. */
  private static final String[] TOKENS =
      IntStream.range(0, THREADS * 3).mapToObj(i -> "rl1:handoff-" + i).toArray(String[]::new);

  @Test
  void aHandedHoldIsTakenOnceOrReleasedOnceUnderModelChecking() {
    check(new ModelCheckingOptions(), 1, 15);
  }

  @Test
  void aHandedHoldIsTakenOnceOrReleasedOnceUnderStress() {
    check(new StressOptions(), 4, 50);
  }

  /**
   * Random scenarios, after three written ones: a handoff to a queued thread that is interrupted
   * while another thread barges in; two queued threads while the factory closes; a holder that
   * hands off twice in a row.
   */
  private static void check(Options<?, ?> options, int scenarios, int invocations) {
    if (options instanceof ModelCheckingOptions modelChecking) {
      // Each call is one step under the fake's monitor, as a Redis command is on the server.
      modelChecking.addGuarantee(
          ManagedStrategyGuaranteeKt.forClasses(FakeBackend.class.getName())
              .allMethods()
              .treatAsAtomic());
    }
    options
        .addCustomScenario(
            Scenarios.parallel(
                List.of(op("lockAndUnlock", 1)),
                List.of(op("lockInterruptiblyAndUnlock", 2)),
                List.of(op("interrupt", 2), op("tryLockAndUnlock", 3))))
        .addCustomScenario(
            Scenarios.parallel(
                List.of(op("lockAndUnlock", 1)),
                List.of(op("lockAndUnlock", 2)),
                List.of(op("close"))))
        .addCustomScenario(
            Scenarios.parallel(
                List.of(op("lockAndUnlock", 1), op("lockAndUnlock", 1)),
                List.of(op("lockInterruptiblyAndUnlock", 2)),
                List.of(op("lockAndUnlock", 3), op("interrupt", 2))))
        .iterations(LincheckBudget.scenarios(scenarios))
        .invocationsPerIteration(LincheckBudget.invocations(invocations))
        .threads(THREADS)
        .actorsPerThread(2)
        .actorsBefore(0)
        .actorsAfter(0)
        .minimizeFailedScenario(false)
        .sequentialSpecification(HandoffModel.class)
        .check(Handoff.class);
  }

  private static Actor op(String name, int... arguments) {
    return Scenarios.op(Handoff.class, name, arguments);
  }

  /** One name of one factory, used by three threads. */
  @Param(name = "thread", gen = IntGen.class, conf = "1:3")
  public static class Handoff {
    private final ManualTicker ticker = new ManualTicker();
    private final FakeBackend backend = new FakeBackend(ticker, LEASE);
    private final ExclusiveKind kind = new ExclusiveKind(backend);
    private final Releases releases =
        new Releases(
            NodeExecutor.of(Runnable::run),
            ticker,
            LEASE.toNanos(),
            new Telemetry(false, null, ticker));
    private final LocalHandoff handoff = new LocalHandoff(ticker, releases, new Lifecycle());
    private final Lifecycle lifecycle = new Lifecycle();
    private final NameState state = new NameState(KEYS.lock(), KEYS, lifecycle, false);

    /** The threads by number, to interrupt them. */
    private final AtomicReferenceArray<Thread> threads = new AtomicReferenceArray<>(THREADS + 2);

    /** Every hold acquired in Redis, in order. */
    private final AtomicReferenceArray<Hold> holds = new AtomicReferenceArray<>(TOKENS.length);

    private final AtomicInteger acquisitions = new AtomicInteger();

    /** The hold a thread is using now. */
    private final AtomicReference<Hold> inUse = new AtomicReference<>();

    /** {@code lock()} then {@code unlock()}. */
    @Operation(blocking = true)
    public void lockAndUnlock(@Param(gen = ThreadIdGen.class) int thread) {
      run(thread, Mode.UNINTERRUPTIBLE);
    }

    /** {@code lockInterruptibly()} then {@code unlock()}; gives up when interrupted. */
    @Operation(blocking = true)
    public void lockInterruptiblyAndUnlock(@Param(gen = ThreadIdGen.class) int thread) {
      run(thread, Mode.INTERRUPTIBLE);
    }

    /**
     * {@code tryLock()}, which may take the lock ahead of queued threads, then {@code unlock()}.
     */
    @Operation
    public void tryLockAndUnlock(@Param(gen = ThreadIdGen.class) int thread) {
      run(thread, Mode.ONCE);
    }

    /** Interrupts a thread (a waiting one gives up; a running one finds its flag set). */
    @Operation(params = "thread")
    public void interrupt(int thread) {
      Thread target = threads.get(thread);
      if (target != null) {
        target.interrupt();
      }
    }

    /**
     * As the factory's close: the name's holds, held and handed off, marked lost (read as {@code
     * NameRegistry.forEachHold} reads them), then the queued threads woken.
     */
    @Operation(runOnce = true)
    public void close() {
      lifecycle.close();
      Hold hold = state.hold;
      Hold handed = state.handoff;
      if (hold != null) {
        hold.markLost("the lock factory was closed");
      }
      if (handed != null) {
        handed.markLost("the lock factory was closed");
      }
      state.local.wakeQueuedAfterClose();
    }

    @Validate
    public void everyHoldTakenOnceOrReleasedOnce() {
      check(!state.local.hasQueuedThreads(), "threads still queued at the end");
      Map<String, Integer> released = new HashMap<>();
      for (Call call : backend.log()) {
        if (call.op() == Op.RELEASE) {
          released.merge(call.token(), 1, Integer::sum);
        }
      }
      Map<String, Hold> byToken = new HashMap<>();
      for (int i = 0; i < holds.length(); i++) {
        Hold hold = holds.get(i);
        if (hold == null) {
          continue;
        }
        byToken.put(hold.token, hold);
        int times = released.getOrDefault(hold.token, 0);
        check(times <= 1, "hold " + hold.token + " released " + times + " times");
        check(
            times == 1 || hold.isLost(),
            "hold " + hold.token + " neither released nor lost at the end: left behind");
      }
      String holder = backend.holder(KEYS.lock());
      check(
          holder == null || byToken.get(holder).isLost(),
          "the key is held at the end by a hold nobody will release: " + holder);
      Hold handed = state.handoff;
      check(
          handed == null || handed.isLost(),
          "a hold still handed off at the end, with nobody queued: " + handed);
    }

    private void run(int thread, Mode mode) {
      threads.set(thread, Thread.currentThread());
      try {
        Hold hold = acquire(mode);
        if (hold != null) {
          use(hold);
          try {
            unlock(hold);
          } catch (IllegalStateException e) {
            throw new AssertionError("unlock() threw " + e, e);
          }
        }
      } catch (InterruptedException e) {
        // gave up waiting, as an interrupted lockInterruptibly() does
      } finally {
        Thread.interrupted(); // an interrupt aimed at this operation ends with it
      }
    }

    /** As {@code Acquisitions.acquire}, for a thread that does not hold the name yet. */
    private Hold acquire(Mode mode) throws InterruptedException {
      lifecycle.checkOpen();
      if (mode == Mode.INTERRUPTIBLE && Thread.interrupted()) {
        throw new InterruptedException();
      }
      boolean owned = false;
      Hold hold = null;
      try {
        switch (mode) {
          case ONCE -> owned = state.local.tryLock();
          case INTERRUPTIBLE -> {
            state.local.lockInterruptibly();
            owned = true;
          }
          default -> {
            state.local.lock();
            owned = true;
          }
        }
        if (owned) {
          hold = takeHandOff();
          if (hold == null) {
            hold = acquireInRedis();
          }
        }
        return hold;
      } finally {
        if (hold == null) {
          if (owned) {
            state.local.unlockAll();
          }
          handoff.releaseOrphan(state);
        }
      }
    }

    /**
     * As {@code Acquisitions.takeHandOff} and {@code LostHolds.take}: for the taker a new hold,
     * with its own maximum hold time (none here) counted from now.
     */
    private Hold takeHandOff() {
      Hold handed = handoff.take(state);
      if (handed == null) {
        return null;
      }
      handed.limitTo(ticker.read(), 0);
      handed.takenBy(state.local);
      if (handed.isLost()) {
        return null;
      }
      state.hold = handed;
      return handed;
    }

    /**
     * The owner of the local lock, with no hold handed to it, acquires in Redis: the key must be
     * free, unless the factory was closed (then its calls fail).
     */
    private Hold acquireInRedis() {
      lifecycle.checkOpen();
      int acquisition = acquisitions.getAndIncrement();
      String token = TOKENS[acquisition];
      Acquisition granted = kind.tryAcquire(KEYS, token, false);
      if (!granted.acquired()) {
        lifecycle.checkOpen();
        throw new AssertionError(
            "the owner of the local lock, with no hold handed to it, found the key held by "
                + backend.holder(KEYS.lock()));
      }
      long now = ticker.read();
      Hold hold =
          new Hold(
              kind, null, state.name, KEYS, token, 0, null, now, now + LEASE.toNanos(), ticker);
      holds.set(acquisition, hold);
      handoff.acquiredInRedis(state);
      hold.takenBy(state.local);
      state.hold = hold;
      return hold;
    }

    /** The owner uses the hold: nobody else does, and it still holds the key in Redis. */
    private void use(Hold hold) {
      check(inUse.compareAndSet(null, hold), "two threads use a hold at once");
      check(
          hold.token.equals(backend.holder(KEYS.lock())),
          "the hold in use does not hold the key (released?): " + backend.holder(KEYS.lock()));
      check(inUse.compareAndSet(hold, null), "another thread used the hold meanwhile");
    }

    /** As {@code Mutexes.unlock} of a hold count of one, with no signals to send. */
    private void unlock(Hold hold) {
      if (hold.isLost()) {
        state.local.unlockAll(); // LostHolds.drop: LockLostException
        return;
      }
      if (!lifecycle.isClosed() && handoff.mayHandOff(state, hold)) {
        check(handoff.handOff(state, hold), "handOff found the local lock revoked");
        return;
      }
      if (!hold.beginRelease()) {
        state.local.unlockAll(); // lost meanwhile: LockLostException
        return;
      }
      Release release = releases.releaseWithRetry(hold);
      state.local.unlockAll();
      check(release.released(), "the release did not find the hold's key");
    }

    private static void check(boolean condition, String violation) {
      if (!condition) {
        throw new AssertionError(violation);
      }
    }
  }

  /**
   * What the operations answer one at a time: nothing, or {@link IllegalStateException} for an
   * acquisition once the factory is closed.
   */
  public static class HandoffModel {
    private boolean closed;

    public void lockAndUnlock(int thread) {
      acquire();
    }

    public void lockInterruptiblyAndUnlock(int thread) {
      acquire();
    }

    public void tryLockAndUnlock(int thread) {
      acquire();
    }

    public void interrupt(int thread) {}

    public void close() {
      closed = true;
    }

    private void acquire() {
      if (closed) {
        throw new IllegalStateException("closed");
      }
    }
  }
}
