package io.github.redislock.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.redislock.LockLostEvent;
import io.github.redislock.internal.FakeBackend.Op;
import io.github.redislock.internal.engine.LockEngine;
import io.github.redislock.testing.RedisInvariants;
import io.github.redislock.testing.Timing;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The engine's background Redis calls on a fake backend whose keys live on two nodes: a node that
 * stops answering holds up its own work only. A hold on another node is renewed, and a renewal is
 * never queued behind attempts, whatever is stuck.
 */
class NodeIsolationTest {
  private static final Duration LEASE = Duration.ofMillis(60); // the renewer ticks every 10 ms
  private static final String PREFIX = "isolation:";

  /** More stuck calls than the engine has threads for one node, or had for all nodes. */
  private static final int STUCK = 40;

  private final ManualTicker ticker = new ManualTicker();
  private final FakeBackend backend = new FakeBackend(ticker, LEASE);
  private final List<LockLostEvent> lost = new CopyOnWriteArrayList<>();
  private final LockEngine engine;
  private final Mutexes locks;
  private final List<Thread> callers = new ArrayList<>();
  private final List<LockName> held = new ArrayList<>();
  private CountDownLatch thaw;

  NodeIsolationTest() {
    // Names with "frozen" live on node A, every other name on node B.
    backend.nodes(key -> key.contains("frozen") ? "A" : "B");
    engine =
        new LockEngine(
            backend,
            List.of(),
            new Settings(PREFIX, LEASE, Duration.ofSeconds(1), lost::add, ticker));
    locks = engine.exclusive();
  }

  @AfterEach
  void tearDown() throws InterruptedException {
    if (thaw != null) {
      thaw.countDown();
    }
    held.forEach(locks::unlock);
    engine.close(); // the callers still waiting throw
    for (Thread caller : callers) {
      caller.join(Timing.awaitAtMost().toMillis());
      assertThat(caller.isAlive()).isFalse();
    }
    RedisInvariants.assertNoThreads("redis-lock-");
  }

  private static void awaitUntil(String what, BooleanSupplier condition) {
    Awaitility.await(what)
        .atMost(Timing.scaled(Duration.ofSeconds(5)))
        .pollDelay(Duration.ZERO)
        .pollInterval(Duration.ofMillis(1))
        .until(condition::getAsBoolean);
  }

  /** Takes the lock of {@code name} in this thread; the test releases it at the end. */
  private void hold(String name) {
    LockName lockName = locks.lockName(name);
    locks.lock(lockName);
    held.add(lockName);
  }

  /**
   * A thread that tries the lock of {@code name} with a timeout short enough to run its attempt in
   * the background, until the factory closes.
   */
  private void tryInTheBackground(String name) {
    LockName lockName = locks.lockName(name);
    Thread caller =
        new Thread(
            () -> {
              try {
                if (locks.tryLock(lockName, TimeUnit.SECONDS.toNanos(1))) {
                  locks.unlock(lockName);
                }
              } catch (RuntimeException | InterruptedException e) {
                // Redis unavailable, or the factory closed: the test looks at renewals only
              }
            },
            "isolation-caller");
    caller.setDaemon(true);
    callers.add(caller);
    caller.start();
  }

  /** Whether the key of {@code name} was extended in Redis. */
  private boolean extended(String name) {
    return backend.log().stream()
        .anyMatch(call -> call.op() == Op.EXTEND && call.key().equals(PREFIX + name));
  }

  @Test
  void aFrozenNodeDelaysNoRenewalOfAHoldOnAnotherNode() {
    for (int i = 0; i < STUCK; i++) {
      hold("frozen-held-" + i);
    }
    thaw = backend.freeze("A");
    ticker.advance(LEASE.toNanos() / 3); // every hold on A is due for renewal
    for (int i = 0; i < STUCK; i++) {
      tryInTheBackground("frozen-tried-" + i);
    }
    awaitUntil("calls stuck on the frozen node", () -> backend.blocked() >= 4);

    hold("healthy");
    ticker.advance(LEASE.toNanos() / 3); // the hold on B is due
    awaitUntil("the renewal of the hold on the healthy node", () -> extended("healthy"));
    assertThat(lost).isEmpty();
    assertThat(locks.isHeldByCurrentThread(locks.lockName("healthy"))).isTrue();
  }

  @Test
  void attemptsStuckOnANodeDelayNoRenewalOfAHoldOnIt() {
    backend.nodes(key -> FakeBackend.ONE_NODE);
    hold("held");
    thaw = backend.freeze(FakeBackend.ONE_NODE, Op.TRY_ACQUIRE);
    for (int i = 0; i < STUCK; i++) {
      tryInTheBackground("tried-" + i);
    }
    awaitUntil("attempts stuck on the node", () -> backend.blocked() >= 4);

    ticker.advance(LEASE.toNanos() / 3);
    awaitUntil("the renewal of the hold", () -> extended("held"));
    assertThat(lost).isEmpty();
  }
}
