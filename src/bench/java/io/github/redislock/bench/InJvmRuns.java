package io.github.redislock.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Lock;
import java.util.function.IntFunction;
import org.HdrHistogram.Histogram;

/**
 * Runs the scenarios that stay in this JVM (uncontended, reentrant, N threads on one key, N threads
 * on own keys) for a fixed time, on daemon threads that start together.
 *
 * <p>Each thread loops until the deadline, then finishes its current operation. A run whose threads
 * are not done 30 s after the deadline is reported as failed and abandoned (its threads are
 * daemons), so one stuck implementation cannot stall the benchmark.
 *
 * <p>Mutual exclusion is checked inside every critical section: an atomic "inside" count must go
 * from 0 to 1, and a plain (non-volatile, non-atomic) counter is incremented; at the end it must
 * equal the number of acquisitions.
 */
final class InJvmRuns {
  private static final Duration GRACE = Duration.ofSeconds(30);

  private InJvmRuns() {}

  /** Runs {@code scenario} (not the two-JVM one) for {@code duration}. */
  static Sample run(
      Implementation impl,
      Scenario scenario,
      LockUnderTest locks,
      int round,
      int threads,
      String key,
      Duration duration) {
    return switch (scenario) {
      case UNCONTENDED, ONE_FROZEN, TWO_FROZEN ->
          run(impl, scenario, locks, round, 1, i -> key, duration);
      case REENTRANT -> run(impl, scenario, locks, round, 1, i -> key, duration);
      case ONE_KEY -> run(impl, scenario, locks, round, threads, i -> key, duration);
      case OWN_KEYS -> run(impl, scenario, locks, round, threads, i -> key + ":" + i, duration);
      case TWO_JVMS -> throw new IllegalArgumentException("runs in child JVMs: see TwoJvmPair");
    };
  }

  private static Sample run(
      Implementation impl,
      Scenario scenario,
      LockUnderTest locks,
      int round,
      int threadCount,
      IntFunction<String> keyOf,
      Duration duration) {
    Exclusion shared = new Exclusion();
    CountDownLatch ready = new CountDownLatch(threadCount);
    CountDownLatch go = new CountDownLatch(1);
    long[] start = new long[1];
    List<Worker> workers = new ArrayList<>();
    for (int i = 0; i < threadCount; i++) {
      Lock lock = locks.newLock(keyOf.apply(i));
      Worker worker = new Worker(scenario, lock, shared, ready, go, start, duration.toNanos());
      workers.add(worker);
      Thread thread = new Thread(worker, "bench-" + impl.id() + "-" + i);
      thread.setDaemon(true);
      worker.thread = thread;
      thread.start();
    }
    try {
      if (!ready.await(GRACE.toSeconds(), TimeUnit.SECONDS)) {
        return Sample.failed(impl, scenario, round, "threads did not start");
      }
      start[0] = System.nanoTime();
      go.countDown();
      long joinDeadline = start[0] + duration.toNanos() + GRACE.toNanos();
      for (Worker worker : workers) {
        long left = TimeUnit.NANOSECONDS.toMillis(joinDeadline - System.nanoTime());
        worker.thread.join(Math.max(1, left));
        if (worker.thread.isAlive()) {
          return Sample.failed(
              impl,
              scenario,
              round,
              "did not finish within " + GRACE.toSeconds() + " s after the deadline");
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Sample.failed(impl, scenario, round, "interrupted");
    }
    Histogram latency = Sample.newHistogram();
    long ops = 0;
    long end = start[0];
    long violations = shared.violations.get();
    String note = "";
    for (Worker worker : workers) {
      latency.add(worker.latency);
      ops += worker.ops;
      end = Math.max(end, worker.finished);
      if (worker.error != null && note.isEmpty()) {
        note = "error: " + worker.error;
      }
      if (scenario != Scenario.ONE_KEY) {
        violations += worker.own.violations.get() + (worker.ops - worker.own.counter);
      }
    }
    if (scenario == Scenario.ONE_KEY) {
      violations += ops - shared.counter;
    }
    if (ops == 0) {
      return Sample.failed(impl, scenario, round, note.isEmpty() ? "no operation completed" : note);
    }
    return new Sample(
        impl, scenario, round, ops, end - start[0], latency, null, violations, List.of(), 0, note);
  }

  /** The state a critical section checks: who is inside, and a plain counter. */
  private static final class Exclusion {
    final AtomicInteger inside = new AtomicInteger();
    final AtomicInteger violations = new AtomicInteger();
    long counter;

    void enter() {
      if (inside.incrementAndGet() != 1) {
        violations.incrementAndGet();
      }
      long seen = counter;
      Thread.onSpinWait();
      counter = seen + 1;
    }

    void exit() {
      inside.decrementAndGet();
    }
  }

  private static final class Worker implements Runnable {
    final Scenario scenario;
    final Lock lock;
    final Exclusion shared;
    final Exclusion own = new Exclusion();
    final CountDownLatch ready;
    final CountDownLatch go;
    final long[] start;
    final long durationNanos;
    final Histogram latency = Sample.newHistogram();
    Thread thread;
    long ops;
    long finished;
    String error;

    Worker(
        Scenario scenario,
        Lock lock,
        Exclusion shared,
        CountDownLatch ready,
        CountDownLatch go,
        long[] start,
        long durationNanos) {
      this.scenario = scenario;
      this.lock = lock;
      this.shared = shared;
      this.ready = ready;
      this.go = go;
      this.start = start;
      this.durationNanos = durationNanos;
    }

    @Override
    public void run() {
      ready.countDown();
      try {
        go.await();
        long deadline = start[0] + durationNanos;
        if (scenario == Scenario.REENTRANT) {
          reentrant(deadline);
        } else {
          loop(deadline, scenario == Scenario.ONE_KEY ? shared : own);
        }
      } catch (InterruptedException e) {
        error = "interrupted";
      } catch (RuntimeException | Error e) {
        error = e.toString();
      }
      finished = System.nanoTime();
    }

    private void loop(long deadline, Exclusion exclusion) {
      boolean waitOnly = scenario == Scenario.ONE_KEY;
      long now = System.nanoTime();
      while (now - deadline < 0) {
        long t0 = now;
        lock.lock();
        long acquired = System.nanoTime();
        try {
          exclusion.enter();
          exclusion.exit();
        } finally {
          lock.unlock();
        }
        now = System.nanoTime();
        latency.recordValue((waitOnly ? acquired : now) - t0);
        ops++;
      }
    }

    private void reentrant(long deadline) {
      lock.lock();
      try {
        long now = System.nanoTime();
        while (now - deadline < 0) {
          long t0 = now;
          lock.lock();
          lock.unlock();
          now = System.nanoTime();
          latency.recordValue(now - t0);
          ops++;
          own.counter++;
        }
      } finally {
        lock.unlock();
      }
    }
  }
}
