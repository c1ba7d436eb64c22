package io.github.redislock.bench;

import io.github.redislock.RedisLockFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;
import org.redisson.Redisson;
import org.redisson.api.RReadWriteLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * Read-write locks: this library's {@code RedisReadWriteLock} beside Redisson's {@code
 * RReadWriteLock}, on the same single server, in one run, each cell measured {@code rounds} times
 * with the order of the rows rotated. The cases:
 *
 * <ul>
 *   <li><b>read pair</b>: one thread, a read lock+unlock pair per op; beside it the exclusive
 *       lock's pair (ours: {@code getLock}; Redisson: {@code RLock}), the goal being a read pair at
 *       0.9x the exclusive pair's throughput or better;
 *   <li><b>8 readers</b>: 8 threads of one instance take the read lock of one name (a pair per op),
 *       beside 8 threads on 8 exclusive locks of their own; goal: the readers at 0.8x or better
 *       (they share the name: nothing serialises them). The most readers seen inside at once is
 *       noted;
 *   <li><b>mixed</b>: 8 threads on one name, 9 read pairs to 1 write pair, each thread with its own
 *       lock object; readers beside a writer, or two writers, are counted as violations;
 *   <li><b>writer behind readers</b>: 4 threads take read pairs without pause while one writer,
 *       every 2 ms, takes the write lock: the latency is the writer's wait in {@code lock()}. A
 *       writer not in within the cell (plus 2 s) is counted as starved.
 * </ul>
 *
 * The read pair runs pinned to one CPU with the server, as scenario a does ({@link CpuPinning}).
 * Threads are daemons; a cell whose threads do not finish 30 s after its deadline is reported as
 * failed.
 */
final class ReadWriteRuns {
  private static final int THREADS = 8;
  private static final int WRITER_BEHIND = 4;
  private static final long WRITE_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(2);
  private static final Duration GRACE = Duration.ofSeconds(30);

  /** The cases, in report order. */
  enum Case {
    READ_PAIR("read pair", "1 thread, a lock+unlock pair per op; latency = the pair"),
    READERS("8 readers", "8 threads, one name (or own keys); a pair per op; latency = the pair"),
    MIXED("mixed 9:1", "8 threads, one name, 9 read pairs : 1 write pair; latency = the pair"),
    WRITER_BEHIND(
        "writer behind readers",
        "4 threads reading without pause, 1 writer every 2 ms; latency = the writer's wait");

    final String title;
    final String description;

    Case(String title, String description) {
      this.title = title;
      this.description = description;
    }
  }

  /**
   * One row: an implementation's lock in one case, all rounds merged.
   *
   * @param kase the case
   * @param label the row's name
   * @param ops operations (pairs; for the writer case, the writer's acquisitions)
   * @param nanos time measured
   * @param latency per-operation latency, nanoseconds
   * @param violations exclusion broken (mixed: a reader beside a writer, two writers)
   * @param maxInside the most readers seen inside at once
   * @param starved writer acquisitions not made within the cell and 2 s more
   * @param readerOps in the writer case, the readers' pairs meanwhile
   * @param note errors, empty when none
   */
  record Row(
      Case kase,
      String label,
      long ops,
      long nanos,
      Histogram latency,
      long violations,
      long maxInside,
      long starved,
      long readerOps,
      String note) {
    double opsPerSecond() {
      return nanos == 0 ? 0 : ops * 1e9 / nanos;
    }

    Row plus(Row other) {
      Histogram merged = Sample.newHistogram();
      merged.add(latency);
      merged.add(other.latency);
      return new Row(
          kase,
          label,
          ops + other.ops,
          nanos + other.nanos,
          merged,
          violations + other.violations,
          Math.max(maxInside, other.maxInside),
          starved + other.starved,
          readerOps + other.readerOps,
          note.isEmpty() ? other.note : note);
    }
  }

  /** A lock to measure: how each thread gets its own lock object of a name. */
  private record Contender(String label, Case kase, LockKind kind, Locks locks) {}

  private enum LockKind {
    READ,
    EXCLUSIVE_ONE_NAME,
    EXCLUSIVE_OWN_KEYS,
    MIXED,
    WRITER_BEHIND
  }

  /** Read, write and exclusive locks of one implementation. */
  private interface Locks {
    Lock read(String name);

    Lock write(String name);

    Lock exclusive(String name);
  }

  private ReadWriteRuns() {}

  /**
   * Measures every case for this library and Redisson on {@code uri}.
   *
   * @return the rows, in report order
   */
  static List<Row> measure(LocalRedis redis, BenchSettings settings) throws InterruptedException {
    String uri = redis.uris().get(0);
    boolean pin = settings.pinSingleThread() && CpuPinning.available();
    RedisLockFactory ours = RedisLockFactory.builder().standalone(uri).build();
    Config config = new Config();
    config.useSingleServer().setAddress(uri);
    RedissonClient redisson = Redisson.create(config);
    try {
      Locks oursLocks =
          new Locks() {
            @Override
            public Lock read(String name) {
              return ours.getReadWriteLock(name).readLock();
            }

            @Override
            public Lock write(String name) {
              return ours.getReadWriteLock(name).writeLock();
            }

            @Override
            public Lock exclusive(String name) {
              return ours.getLock(name);
            }
          };
      Locks redissonLocks =
          new Locks() {
            @Override
            public Lock read(String name) {
              return redisson.getReadWriteLock(name).readLock();
            }

            @Override
            public Lock write(String name) {
              RReadWriteLock rw = redisson.getReadWriteLock(name);
              return rw.writeLock();
            }

            @Override
            public Lock exclusive(String name) {
              return redisson.getLock(name);
            }
          };
      List<Contender> contenders = contenders(oursLocks, redissonLocks);
      List<Row> merged = new ArrayList<>();
      for (int round = 0; round <= settings.rounds(); round++) {
        List<Contender> order = new ArrayList<>(contenders);
        Collections.rotate(order, -round);
        Duration duration = round == 0 ? settings.warmup() : settings.duration();
        for (Case kase : Case.values()) {
          for (Contender c : order) {
            if (c.kase() != kase) {
              continue;
            }
            // A key per row and round: the libraries keep different types under a lock's key.
            String key =
                "bench:rw:"
                    + kase.name().toLowerCase(Locale.ROOT)
                    + ":"
                    + contenders.indexOf(c)
                    + ":r"
                    + round;
            boolean pinned = pin && kase == Case.READ_PAIR; // as scenario a: see CpuPinning
            if (pinned) {
              CpuPinning.pin(redis.pids());
            }
            Row row;
            try {
              if (round == 0) {
                WarmUp.Outcome warm =
                    WarmUp.untilSteady(
                        () -> run(c, key, duration).opsPerSecond(), settings.warmupMax());
                LockBenchmark.log(
                    String.format(
                        Locale.ROOT,
                        "  rw %-22s %-40s warm-up: %d runs, %s",
                        kase.title,
                        c.label(),
                        warm.runs(),
                        warm.steady() ? "steady" : "not steady by the limit"));
                continue;
              }
              row = run(c, key, duration);
            } finally {
              if (pinned) {
                CpuPinning.unpin(redis.pids());
              }
            }
            LockBenchmark.log(
                String.format(
                    Locale.ROOT,
                    "  rw %-22s %-40s %,10.0f ops/s  p50 %8s µs  p99 %9s µs%s",
                    kase.title,
                    c.label(),
                    row.opsPerSecond(),
                    Histograms.formatMicros(Histograms.micros(row.latency(), 50)),
                    Histograms.formatMicros(Histograms.micros(row.latency(), 99)),
                    row.note().isEmpty() ? "" : "  (" + row.note() + ")"));
            if (round > 0) {
              merge(merged, contenders, row);
            }
          }
        }
      }
      return merged;
    } finally {
      ours.close();
      redisson.shutdown(0, 5, TimeUnit.SECONDS);
    }
  }

  private static List<Contender> contenders(Locks ours, Locks redisson) {
    List<Contender> list = new ArrayList<>();
    list.add(new Contender("redis-lock read lock", Case.READ_PAIR, LockKind.READ, ours));
    list.add(new Contender("redis-lock lock", Case.READ_PAIR, LockKind.EXCLUSIVE_ONE_NAME, ours));
    list.add(
        new Contender("Redisson RReadWriteLock read", Case.READ_PAIR, LockKind.READ, redisson));
    list.add(
        new Contender("Redisson RLock", Case.READ_PAIR, LockKind.EXCLUSIVE_ONE_NAME, redisson));
    list.add(new Contender("redis-lock read lock, one name", Case.READERS, LockKind.READ, ours));
    list.add(
        new Contender(
            "redis-lock lock, 8 own keys", Case.READERS, LockKind.EXCLUSIVE_OWN_KEYS, ours));
    list.add(
        new Contender(
            "Redisson RReadWriteLock read, one name", Case.READERS, LockKind.READ, redisson));
    list.add(
        new Contender(
            "Redisson RLock, 8 own keys", Case.READERS, LockKind.EXCLUSIVE_OWN_KEYS, redisson));
    list.add(new Contender("redis-lock RedisReadWriteLock", Case.MIXED, LockKind.MIXED, ours));
    list.add(new Contender("Redisson RReadWriteLock", Case.MIXED, LockKind.MIXED, redisson));
    list.add(
        new Contender(
            "redis-lock RedisReadWriteLock", Case.WRITER_BEHIND, LockKind.WRITER_BEHIND, ours));
    list.add(
        new Contender(
            "Redisson RReadWriteLock", Case.WRITER_BEHIND, LockKind.WRITER_BEHIND, redisson));
    return list;
  }

  private static void merge(List<Row> merged, List<Contender> contenders, Row row) {
    for (int i = 0; i < merged.size(); i++) {
      Row existing = merged.get(i);
      if (existing.kase() == row.kase() && existing.label().equals(row.label())) {
        merged.set(i, existing.plus(row));
        return;
      }
    }
    merged.add(row);
    merged.sort(
        (a, b) ->
            Integer.compare(
                indexOf(contenders, a.kase(), a.label()),
                indexOf(contenders, b.kase(), b.label())));
  }

  private static int indexOf(List<Contender> contenders, Case kase, String label) {
    for (int i = 0; i < contenders.size(); i++) {
      if (contenders.get(i).kase() == kase && contenders.get(i).label().equals(label)) {
        return i;
      }
    }
    return contenders.size();
  }

  // ---- one cell ----

  /** What the threads of one cell share. */
  private static final class Shared {
    final AtomicInteger readersInside = new AtomicInteger();
    final AtomicInteger writersInside = new AtomicInteger();
    final AtomicLong violations = new AtomicLong();
    final AtomicLong maxInside = new AtomicLong();
    final AtomicLong starved = new AtomicLong();
    final AtomicLong readerOps = new AtomicLong();

    void read() {
      int inside = readersInside.incrementAndGet();
      maxInside.accumulateAndGet(inside, Math::max);
      if (writersInside.get() != 0) {
        violations.incrementAndGet();
      }
      readersInside.decrementAndGet();
    }

    void write() {
      if (writersInside.incrementAndGet() != 1 || readersInside.get() != 0) {
        violations.incrementAndGet();
      }
      writersInside.decrementAndGet();
    }
  }

  private static Row run(Contender c, String key, Duration duration) throws InterruptedException {
    Shared shared = new Shared();
    int threads =
        switch (c.kind()) {
          case READ, EXCLUSIVE_ONE_NAME -> c.kase() == Case.READ_PAIR ? 1 : THREADS;
          case EXCLUSIVE_OWN_KEYS, MIXED -> THREADS;
          case WRITER_BEHIND -> WRITER_BEHIND + 1;
        };
    CountDownLatch ready = new CountDownLatch(threads);
    CountDownLatch go = new CountDownLatch(1);
    long[] start = new long[1];
    List<Thread> started = new ArrayList<>();
    List<Histogram> latencies = new ArrayList<>();
    AtomicLong ops = new AtomicLong();
    List<String> errors = Collections.synchronizedList(new ArrayList<>());
    for (int i = 0; i < threads; i++) {
      Histogram latency = Sample.newHistogram();
      latencies.add(latency);
      Runnable body = body(c, key, i, shared, latency, ops, start, duration.toNanos());
      Thread thread =
          new Thread(
              () -> {
                ready.countDown();
                try {
                  go.await();
                  body.run();
                } catch (InterruptedException e) {
                  errors.add("interrupted");
                } catch (RuntimeException | Error e) {
                  errors.add(e.toString());
                }
              },
              "bench-rw-" + i);
      thread.setDaemon(true);
      started.add(thread);
      thread.start();
    }
    ready.await();
    start[0] = System.nanoTime();
    go.countDown();
    long joinDeadline = start[0] + duration.toNanos() + GRACE.toNanos();
    for (Thread thread : started) {
      thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(joinDeadline - System.nanoTime())));
      if (thread.isAlive()) {
        errors.add("did not finish within " + GRACE.toSeconds() + " s after the deadline");
        break;
      }
    }
    long nanos = System.nanoTime() - start[0];
    Histogram latency = Sample.newHistogram();
    latencies.forEach(latency::add);
    return new Row(
        c.kase(),
        c.label(),
        errors.isEmpty() ? ops.get() : 0,
        errors.isEmpty() ? nanos : 0,
        latency,
        shared.violations.get(),
        shared.maxInside.get(),
        shared.starved.get(),
        shared.readerOps.get(),
        errors.isEmpty() ? "" : errors.get(0));
  }

  private static Runnable body(
      Contender c,
      String key,
      int index,
      Shared shared,
      Histogram latency,
      AtomicLong ops,
      long[] start,
      long durationNanos) {
    Locks locks = c.locks();
    return switch (c.kind()) {
      case READ -> pairs(locks.read(key), shared::read, latency, ops, start, durationNanos);
      case EXCLUSIVE_ONE_NAME ->
          pairs(locks.exclusive(key), shared::write, latency, ops, start, durationNanos);
      case EXCLUSIVE_OWN_KEYS ->
          pairs(locks.exclusive(key + ":" + index), () -> {}, latency, ops, start, durationNanos);
      case MIXED ->
          mixed(locks.read(key), locks.write(key), shared, latency, ops, start, durationNanos);
      case WRITER_BEHIND ->
          index < WRITER_BEHIND
              ? readerBehind(locks.read(key), shared, start, durationNanos)
              : writerBehind(locks.write(key), shared, latency, ops, start, durationNanos);
    };
  }

  private static Runnable pairs(
      Lock lock,
      Runnable inside,
      Histogram latency,
      AtomicLong ops,
      long[] start,
      long durationNanos) {
    return () -> {
      long deadline = start[0] + durationNanos;
      long now = System.nanoTime();
      long done = 0;
      while (now - deadline < 0) {
        long t0 = now;
        lock.lock();
        try {
          inside.run();
        } finally {
          lock.unlock();
        }
        now = System.nanoTime();
        latency.recordValue(now - t0);
        done++;
      }
      ops.addAndGet(done);
    };
  }

  private static Runnable mixed(
      Lock read,
      Lock write,
      Shared shared,
      Histogram latency,
      AtomicLong ops,
      long[] start,
      long durationNanos) {
    return () -> {
      long deadline = start[0] + durationNanos;
      long now = System.nanoTime();
      long done = 0;
      while (now - deadline < 0) {
        long t0 = now;
        boolean writes = done % 10 == 9;
        Lock lock = writes ? write : read;
        lock.lock();
        try {
          if (writes) {
            shared.write();
          } else {
            shared.read();
          }
        } finally {
          lock.unlock();
        }
        now = System.nanoTime();
        latency.recordValue(now - t0);
        done++;
      }
      ops.addAndGet(done);
    };
  }

  private static Runnable readerBehind(Lock read, Shared shared, long[] start, long durationNanos) {
    return () -> {
      long deadline = start[0] + durationNanos;
      long done = 0;
      while (System.nanoTime() - deadline < 0) {
        read.lock();
        try {
          shared.read();
        } finally {
          read.unlock();
        }
        done++;
      }
      shared.readerOps.addAndGet(done);
    };
  }

  private static Runnable writerBehind(
      Lock write,
      Shared shared,
      Histogram latency,
      AtomicLong ops,
      long[] start,
      long durationNanos) {
    return () -> {
      long deadline = start[0] + durationNanos;
      long patience = TimeUnit.SECONDS.toNanos(2);
      long done = 0;
      LockSupport.parkNanos(WRITE_PAUSE_NANOS); // the readers first
      while (System.nanoTime() - deadline < 0) {
        long t0 = System.nanoTime();
        boolean in;
        try {
          in = write.tryLock(deadline + patience - t0, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
        if (!in) {
          shared.starved.incrementAndGet();
          break;
        }
        try {
          latency.recordValue(System.nanoTime() - t0);
          shared.write();
        } finally {
          write.unlock();
        }
        done++;
        LockSupport.parkNanos(WRITE_PAUSE_NANOS);
      }
      ops.addAndGet(done);
    };
  }

  // ---- the report ----

  /** The report's section: the rows, then the read-write locks' goals as measured. */
  static void render(List<Row> rows, java.util.function.Consumer<String> line) {
    if (rows.isEmpty()) {
      return;
    }
    line.accept("## Read-write locks, beside Redisson's RReadWriteLock");
    line.accept("");
    line.accept(
        "One server, one instance of each library with default settings; each thread asks for its"
            + " own lock object of the name. Rounds merged; the order of the rows rotated each"
            + " round.");
    line.accept("");
    for (Case kase : Case.values()) {
      line.accept("- **" + kase.title + "**: " + kase.description);
    }
    line.accept("");
    line.accept("| case | lock | ops/s | p50 µs | p99 µs | notes |");
    line.accept("|---|---|--:|--:|--:|---|");
    for (Row r : rows) {
      List<String> notes = new ArrayList<>();
      if (r.violations() > 0) {
        notes.add(r.violations() + " exclusion violations");
      }
      if (r.kase() == Case.READERS || r.kase() == Case.MIXED) {
        notes.add("up to " + r.maxInside() + " readers inside at once");
      }
      if (r.kase() == Case.WRITER_BEHIND) {
        notes.add(String.format(Locale.ROOT, "readers: %,d pairs", r.readerOps()));
        notes.add(r.starved() + " writer waits over the cell + 2 s");
      }
      if (!r.note().isEmpty()) {
        notes.add(r.note());
      }
      line.accept(
          String.format(
              Locale.ROOT,
              "| %s | %s | %,.0f | %s | %s | %s |",
              r.kase().title,
              r.label(),
              r.opsPerSecond(),
              Histograms.formatMicros(Histograms.micros(r.latency(), 50)),
              Histograms.formatMicros(Histograms.micros(r.latency(), 99)),
              String.join("; ", notes)));
    }
    line.accept("");
    line.accept("Goals:");
    line.accept("");
    goal(
        line,
        rows,
        Case.READ_PAIR,
        "redis-lock read lock",
        "redis-lock lock",
        0.9,
        "read pair vs our exclusive pair");
    goal(
        line,
        rows,
        Case.READERS,
        "redis-lock read lock, one name",
        "redis-lock lock, 8 own keys",
        0.8,
        "8 readers of one name vs 8 threads on 8 own keys");
    goal(
        line,
        rows,
        Case.READ_PAIR,
        "redis-lock read lock",
        "Redisson RReadWriteLock read",
        3,
        "read pair vs Redisson's");
    goal(
        line,
        rows,
        Case.READERS,
        "redis-lock read lock, one name",
        "Redisson RReadWriteLock read, one name",
        3,
        "8 readers vs Redisson's");
    goal(
        line,
        rows,
        Case.MIXED,
        "redis-lock RedisReadWriteLock",
        "Redisson RReadWriteLock",
        3,
        "mixed 9:1 vs Redisson's");
    line.accept("");
  }

  private static void goal(
      java.util.function.Consumer<String> line,
      List<Row> rows,
      Case kase,
      String ours,
      String other,
      double goal,
      String what) {
    Row a = find(rows, kase, ours);
    Row b = find(rows, kase, other);
    if (a == null || b == null || b.opsPerSecond() == 0) {
      return;
    }
    double ratio = a.opsPerSecond() / b.opsPerSecond();
    line.accept(
        String.format(
            Locale.ROOT,
            "- %s: %.2fx (goal >= %sx): %s",
            what,
            ratio,
            goal == Math.rint(goal) ? Long.toString((long) goal) : Double.toString(goal),
            ratio >= goal ? "met" : "**missed**"));
  }

  private static Row find(List<Row> rows, Case kase, String label) {
    return rows.stream()
        .filter(r -> r.kase() == kase && r.label().equals(label))
        .findFirst()
        .orElse(null);
  }
}
