package io.github.redislock.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.redislock.LockLostEvent;
import io.github.redislock.internal.engine.LockEngine;
import io.github.redislock.testing.RedisInvariants;
import io.github.redislock.testing.Timing;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A {@link LockEngine} on a {@link FakeBackend} and a {@link ManualTicker}, for the unit tests of
 * the engine's pieces, with the threads a test starts beside it. Registered with
 * {@code @RegisterExtension}: after each test it interrupts and joins those threads (one left
 * waiting by a failed test), closes the engine, and checks that the backend was closed and that no
 * thread of the library is left.
 */
final class EngineFixture implements AfterEachCallback {
  /** The lease of every hold: the renewer ticks every 10 ms. */
  static final Duration LEASE = Duration.ofMillis(60);

  final ManualTicker ticker = new ManualTicker();
  final FakeBackend backend;
  final List<LockLostEvent> lost = new CopyOnWriteArrayList<>();
  final LockEngine engine;
  private final List<Thread> others = new CopyOnWriteArrayList<>();

  private EngineFixture(String keyPrefix, boolean readWrite) {
    FakeBackend fake = new FakeBackend(ticker, LEASE);
    backend = readWrite ? fake.readWrite() : fake;
    engine =
        new LockEngine(
            backend,
            List.of(),
            new Settings(keyPrefix, LEASE, Duration.ofSeconds(1), lost::add, ticker));
  }

  /** An engine of plain locks only: no fair or condition operations. */
  static EngineFixture plain(String keyPrefix) {
    return new EngineFixture(keyPrefix, false);
  }

  /** An engine whose backend also models the read-write scripts. */
  static EngineFixture readWrite(String keyPrefix) {
    return new EngineFixture(keyPrefix, true);
  }

  /** What a thread started by a test runs. */
  interface ThrowingTask {
    void run() throws Exception;
  }

  /** A thread of this JVM that runs {@code task}; what it throws is kept in {@code failure}. */
  Thread start(String threadName, ThrowingTask task, AtomicReference<Throwable> failure) {
    Thread other =
        new Thread(
            () -> {
              try {
                task.run();
              } catch (Throwable t) {
                failure.set(t);
              }
            },
            threadName);
    other.setDaemon(true);
    others.add(other);
    other.start();
    return other;
  }

  /** Waits, polling every millisecond, until {@code condition} holds. */
  static void awaitUntil(BooleanSupplier condition) {
    Awaitility.await()
        .atMost(Timing.awaitAtMost())
        .pollDelay(Duration.ZERO)
        .pollInterval(Duration.ofMillis(1))
        .until(condition::getAsBoolean);
  }

  /**
   * Moves time 10 ms a step until {@code condition} holds: a waiter may read the clock for its
   * pause after any one step, so a single step could leave it parked in a time that never moves.
   */
  void advanceUntil(BooleanSupplier condition) {
    awaitUntil(
        () -> {
          ticker.advance(Duration.ofMillis(10));
          return condition.getAsBoolean();
        });
  }

  /** Waits for {@code thread} to end, and fails if it does not. */
  static void join(Thread thread) throws InterruptedException {
    thread.join(Timing.awaitAtMost().toMillis());
    assertThat(thread.isAlive()).as(thread.getName() + " ended").isFalse();
  }

  /** The names the engine keeps state for. */
  int namesInUse() {
    return engine.activity().namesInUse();
  }

  @Override
  public void afterEach(ExtensionContext context) throws InterruptedException {
    for (Thread other : others) {
      other.interrupt(); // a thread left waiting by a failed test
      other.join(Timing.awaitAtMost().toMillis());
      assertThat(other.isAlive()).as(other.getName()).isFalse();
    }
    engine.close();
    assertThat(backend.isClosed()).isTrue();
    RedisInvariants.assertNoThreads("redis-lock-"); // the renewer and I/O threads end at close
  }
}
