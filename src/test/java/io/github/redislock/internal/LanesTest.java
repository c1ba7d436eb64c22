package io.github.redislock.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.redislock.internal.backend.LockKeys;
import io.github.redislock.internal.util.Bulkhead;
import io.github.redislock.testing.RedisInvariants;
import io.github.redislock.testing.Timing;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The lanes of background calls, per node: each node's bound of threads and queued calls, threads
 * started only when the others are busy, idle lanes ending and dropped, close.
 */
class LanesTest {
  private static final String THREADS = "redis-lock-lanes-test";
  private static final int MAX_THREADS = 2;
  private static final int MAX_QUEUED = 3;

  /** Keys starting with "a" live on node a, the others on node b. */
  private static final LockKeys ON_A = LockKeys.of("a-key");

  private static final LockKeys ON_B = LockKeys.of("b-key");

  private final CountDownLatch gate = new CountDownLatch(1);
  private final List<Lanes> made = new ArrayList<>();

  @AfterEach
  void tearDown() {
    gate.countDown();
    made.forEach(Lanes::close);
    RedisInvariants.assertNoThreads(THREADS);
  }

  private Lanes lanes(Duration keepAlive) {
    Lanes lanes =
        new Lanes(
            THREADS,
            keys -> keys.lock().substring(0, 1),
            MAX_THREADS,
            MAX_QUEUED,
            keepAlive.toNanos());
    made.add(lanes);
    return lanes;
  }

  private static void awaitUntil(String what, BooleanSupplier condition) {
    Awaitility.await(what)
        .atMost(Timing.awaitAtMost())
        .pollDelay(Duration.ZERO)
        .pollInterval(Duration.ofMillis(1))
        .until(condition::getAsBoolean);
  }

  /** A call that blocks until the test opens the gate, counting its start. */
  private Runnable stuck(AtomicInteger started) {
    return () -> {
      started.incrementAndGet();
      try {
        gate.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    };
  }

  @Test
  void aStuckNodeTakesItsThreadsAndQueueOnlyThenItsCallsAreRefused() throws Exception {
    Lanes lanes = lanes(Duration.ofSeconds(10));
    AtomicInteger started = new AtomicInteger();
    for (int i = 0; i < MAX_THREADS + MAX_QUEUED; i++) {
      lanes.execute(ON_A, stuck(started));
    }
    awaitUntil("the node's threads busy", () -> started.get() == MAX_THREADS);
    assertThatThrownBy(() -> lanes.execute(ON_A, () -> {}))
        .isInstanceOf(RejectedExecutionException.class)
        .hasMessageContaining("a are busy")
        .hasMessageContaining(MAX_QUEUED + " more calls wait");
    assertThat(lanes.threadsPerNode().get("a")).isEqualTo(MAX_THREADS);

    CountDownLatch ranOnB = new CountDownLatch(1);
    lanes.execute(ON_B, ranOnB::countDown);
    assertThat(ranOnB.await(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS)).isTrue();

    gate.countDown();
    awaitUntil("every queued call ran", () -> started.get() == MAX_THREADS + MAX_QUEUED);
  }

  @Test
  void aThreadStartsOnlyWhenEveryOtherIsBusy() throws Exception {
    Lanes lanes = lanes(Duration.ofSeconds(10));
    for (int i = 0; i < 20; i++) {
      CountDownLatch done = new CountDownLatch(1);
      lanes.execute(ON_A, done::countDown);
      assertThat(done.await(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS)).isTrue();
      awaitUntil("the thread waiting for work again", LanesTest::threadsIdle);
      assertThat(lanes.threadsPerNode().get("a")).isEqualTo(1);
    }
  }

  /** Whether every thread of the lanes waits for work. */
  private static boolean threadsIdle() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.getName().startsWith(THREADS))
        .allMatch(t -> t.getState() == Thread.State.TIMED_WAITING);
  }

  @Test
  void anIdleLaneEndsItsThreadsAndIsDroppedThenMadeAgain() throws Exception {
    Lanes lanes = lanes(Duration.ofMillis(20));
    CountDownLatch first = new CountDownLatch(1);
    lanes.execute(ON_A, first::countDown);
    assertThat(first.await(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS)).isTrue();
    awaitUntil("the idle lane dropped", () -> lanes.threadsPerNode().isEmpty());
    RedisInvariants.assertNoThreads(THREADS);

    CountDownLatch second = new CountDownLatch(1);
    lanes.execute(ON_A, second::countDown);
    assertThat(second.await(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS)).isTrue();
  }

  @Test
  void aQueuedCallTakenOutNeverRuns() {
    Lanes lanes = lanes(Duration.ofSeconds(10));
    AtomicInteger started = new AtomicInteger();
    for (int i = 0; i < MAX_THREADS; i++) {
      lanes.execute(ON_A, stuck(started));
    }
    AtomicInteger ran = new AtomicInteger();
    Runnable queued = ran::incrementAndGet;
    lanes.execute(ON_A, queued);
    lanes.remove(ON_A, queued);
    Runnable marker = ran::decrementAndGet;
    lanes.execute(ON_A, marker);
    gate.countDown();
    awaitUntil("the call queued after it ran", () -> ran.get() == -1);
  }

  @Test
  void closeRefusesCallsAndTellsTheQueuedAndRunningCallsWaitedFor() {
    Lanes lanes = lanes(Duration.ofSeconds(10));
    AtomicInteger started = new AtomicInteger();
    AtomicInteger aborted = new AtomicInteger();
    for (int i = 0; i < MAX_THREADS + MAX_QUEUED; i++) {
      Runnable stuck = stuck(started);
      lanes.execute(
          ON_A,
          new Bulkhead.Abortable() {
            @Override
            public void run() {
              stuck.run();
            }

            @Override
            public void abort() {
              aborted.incrementAndGet();
            }
          });
    }
    awaitUntil("the node's threads busy", () -> started.get() == MAX_THREADS);
    lanes.close();
    assertThat(aborted.get()).isEqualTo(MAX_THREADS + MAX_QUEUED);
    assertThatThrownBy(() -> lanes.execute(ON_B, () -> {}))
        .isInstanceOf(RejectedExecutionException.class)
        .hasMessageContaining("closed");
    gate.countDown();
    RedisInvariants.assertNoThreads(THREADS);
    assertThat(started.get()).as("the dropped calls never ran").isEqualTo(MAX_THREADS);
  }
}
