package io.github.redislock.bench;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import org.HdrHistogram.Histogram;

/**
 * One of the two JVMs of the cross-process scenario (started by {@link TwoJvmPair}).
 *
 * <p>Arguments: {@code implId jvmIndex threads warmupMillis sharedFile uri...}. It creates the
 * implementation, warms it up (its threads on a key of its own), prints {@code ready}, then serves
 * commands from stdin: {@code go key millis} runs its threads on the shared key for that long and
 * prints {@code result ops elapsedNanos waitHistogram handoffHistogram error}; {@code exit} or the
 * end of stdin closes the implementation and exits. A watchdog halts the JVM when a run is still
 * going two minutes after its end, or when no command came for an hour. For a baseline row its
 * class path holds the baseline's jar in place of the current classes ({@link Baseline}).
 */
public final class TwoJvmChild {
  private static final long IDLE_LIMIT_NANOS = TimeUnit.HOURS.toNanos(1);
  private static final long OVERRUN_NANOS = TimeUnit.MINUTES.toNanos(2);

  /** When the watchdog halts this JVM, in {@code System.nanoTime()}. */
  private static volatile long haltAt = System.nanoTime() + IDLE_LIMIT_NANOS;

  private TwoJvmChild() {}

  /**
   * Runs one child.
   *
   * @param args see the class comment
   * @throws Exception if anything fails; the parent reports it
   */
  public static void main(String[] args) throws Exception {
    Implementation impl = Implementation.byId(args[0]);
    int jvm = Integer.parseInt(args[1]);
    int threads = Integer.parseInt(args[2]);
    long warmupMillis = Long.parseLong(args[3]);
    Path sharedFile = Path.of(args[4]);
    List<String> uris = List.of(Arrays.copyOfRange(args, 5, args.length));
    startWatchdog();
    Baseline.installInChild();

    try (LockUnderTest locks = impl.create(uris, BenchSettings.fromSystemProperties());
        SharedRegion region = SharedRegion.map(sharedFile)) {
      run(locks, null, jvm, threads, "bench:warm:" + impl.keyTag() + ":" + jvm, warmupMillis);
      System.out.println("ready");
      System.out.flush();
      BufferedReader in =
          new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        String[] command = line.split(" ");
        if (!command[0].equals("go")) {
          break;
        }
        long millis = Long.parseLong(command[2]);
        haltAt = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis) + OVERRUN_NANOS;
        System.out.println(run(locks, region, jvm, threads, command[1], millis));
        System.out.flush();
        haltAt = System.nanoTime() + IDLE_LIMIT_NANOS;
      }
    }
    System.exit(0); // client libraries may leave non-daemon threads behind
  }

  /** Runs the threads; with a region, returns the result line. */
  private static String run(
      LockUnderTest locks, SharedRegion region, int jvm, int threads, String key, long millis)
      throws InterruptedException {
    CountDownLatch go = new CountDownLatch(1);
    long[] start = new long[1];
    List<Thread> running = new ArrayList<>();
    long[] ops = new long[threads];
    long[] finished = new long[threads];
    String[] errors = new String[threads];
    Histogram[] waits = new Histogram[threads];
    Histogram[] handoffs = new Histogram[threads];
    for (int t = 0; t < threads; t++) {
      int index = t;
      Lock lock = locks.newLock(key);
      waits[t] = Sample.newHistogram();
      handoffs[t] = Sample.newHistogram();
      Thread thread =
          new Thread(
              () -> {
                try {
                  go.await();
                  long deadline = start[0] + TimeUnit.MILLISECONDS.toNanos(millis);
                  long holder = jvm * 1000L + index + 1;
                  while (System.nanoTime() - deadline < 0) {
                    long t0 = System.nanoTime();
                    lock.lock();
                    long t1 = System.nanoTime();
                    try {
                      if (region != null) {
                        long handoff = region.enter(holder, t1);
                        if (handoff >= 0) {
                          handoffs[index].recordValue(handoff);
                        }
                        region.exit();
                      }
                    } finally {
                      lock.unlock();
                    }
                    waits[index].recordValue(t1 - t0);
                    ops[index]++;
                  }
                } catch (InterruptedException | RuntimeException e) {
                  errors[index] = e.toString();
                }
                finished[index] = System.nanoTime();
              },
              "bench-jvm" + jvm + "-" + t);
      thread.setDaemon(true);
      thread.start();
      running.add(thread);
    }
    start[0] = System.nanoTime();
    go.countDown();
    for (Thread thread : running) {
      thread.join();
    }
    Histogram wait = Sample.newHistogram();
    Histogram handoff = Sample.newHistogram();
    long total = 0;
    long end = start[0];
    String error = "-";
    for (int t = 0; t < threads; t++) {
      wait.add(waits[t]);
      handoff.add(handoffs[t]);
      total += ops[t];
      end = Math.max(end, finished[t]);
      if (errors[t] != null && error.equals("-")) {
        error = Base64.getEncoder().encodeToString(errors[t].getBytes(StandardCharsets.UTF_8));
      }
    }
    return "result "
        + total
        + " "
        + (end - start[0])
        + " "
        + Histograms.encode(wait)
        + " "
        + Histograms.encode(handoff)
        + " "
        + error;
  }

  private static void startWatchdog() {
    Thread watchdog =
        new Thread(
            () -> {
              try {
                while (System.nanoTime() - haltAt < 0) {
                  Thread.sleep(1000);
                }
                System.err.println("TwoJvmChild: overran its run or sat idle too long; halting");
                Runtime.getRuntime().halt(3);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            },
            "bench-child-watchdog");
    watchdog.setDaemon(true);
    watchdog.start();
  }
}
