package io.github.redislock.examples;

import io.github.redislock.testing.JvmProcess;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import redis.clients.jedis.RedisClient;

/**
 * Several JVMs increment one counter in Redis, non-atomically (GET, then SET value + 1), under one
 * distributed lock; the final count is exact only if no two increments overlapped.
 *
 * <p>Run: {@code mvn -q test-compile exec:java} (see the README). It uses the Redis named by {@code
 * -Dredis.url=...} or {@code REDIS_URL}, else starts its own {@code redis-server}. The numbers of
 * worker JVMs, threads per worker and increments per thread are {@code 3 4 100}, or the program
 * arguments, or the system properties {@code demo.workers}, {@code demo.threads} and {@code
 * demo.increments}. It exits with status 1 if the count is wrong.
 */
public final class Demo {
  private static final Duration WORKER_TIMEOUT = Duration.ofMinutes(5);

  /**
   * The demo's outcome.
   *
   * @param counter the counter's final value
   * @param expected workers × threads × increments
   * @param minFencingToken the lowest fencing token any worker held
   * @param maxFencingToken the highest fencing token any worker held
   * @param elapsed from the start signal to the last worker's end
   */
  public record Result(
      long counter, long expected, long minFencingToken, long maxFencingToken, Duration elapsed) {

    /**
     * Whether no increment was lost.
     *
     * @return {@code counter == expected}
     */
    public boolean isExact() {
      return counter == expected;
    }
  }

  private Demo() {}

  /**
   * Runs the demo.
   *
   * @param redisUri the Redis to use
   * @param workers the number of worker JVMs
   * @param threads the threads per worker
   * @param increments the increments per thread
   * @return the outcome
   * @throws IOException if a worker JVM cannot be started or talked to
   * @throws InterruptedException if interrupted while waiting for the workers
   * @throws IllegalStateException if a worker failed
   */
  public static Result run(String redisUri, int workers, int threads, int increments)
      throws IOException, InterruptedException {
    String run = UUID.randomUUID().toString().substring(0, 8);
    String lockName = "demo:lock:" + run;
    String counterKey = "demo:counter:" + run;
    long expected = (long) workers * threads * increments;
    System.out.printf(
        "%d worker JVMs x %d threads x %d increments (GET, then SET value+1) under"
            + " lock '%s'%n",
        workers, threads, increments, lockName);

    List<Process> processes = new ArrayList<>();
    Thread watchdog = watchdog(processes);
    try (RedisClient redis = RedisClient.create(redisUri)) {
      redis.ping(); // fail here, not in every worker, when Redis is unreachable
      try {
        List<BufferedReader> outputs = new ArrayList<>();
        for (int w = 0; w < workers; w++) {
          Process worker = startWorker(redisUri, lockName, counterKey, threads, increments);
          synchronized (processes) {
            processes.add(worker);
          }
          outputs.add(
              new BufferedReader(
                  new InputStreamReader(worker.getInputStream(), StandardCharsets.UTF_8)));
        }
        for (int w = 0; w < workers; w++) {
          expectLine(w, outputs.get(w), "ready");
        }
        long start = System.nanoTime();
        for (Process worker : processes) {
          try (OutputStream in = worker.getOutputStream()) {
            in.write("go\n".getBytes(StandardCharsets.UTF_8));
          }
        }
        long minToken = Long.MAX_VALUE;
        long maxToken = Long.MIN_VALUE;
        for (int w = 0; w < workers; w++) {
          String[] done = expectLine(w, outputs.get(w), "done").split(" ", -1);
          long min = Long.parseLong(done[2]);
          long max = Long.parseLong(done[3]);
          minToken = Math.min(minToken, min);
          maxToken = Math.max(maxToken, max);
          Process worker = processes.get(w);
          if (!worker.waitFor(WORKER_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
              || worker.exitValue() != 0) {
            throw new IllegalStateException("worker " + (w + 1) + " did not exit cleanly");
          }
          System.out.printf(
              "  worker %d (pid %d): %s increments, fencing tokens %d..%d%n",
              w + 1, worker.pid(), done[1], min, max);
        }
        Duration elapsed = Duration.ofNanos(System.nanoTime() - start);

        String value = redis.get(counterKey);
        Result result =
            new Result(
                value == null ? 0 : Long.parseLong(value), expected, minToken, maxToken, elapsed);
        System.out.printf(
            "counter = %d, expected %d: %s%n",
            result.counter(),
            expected,
            result.isExact() ? "OK" : "WRONG, " + (expected - result.counter()) + " lost");
        System.out.printf(
            "fencing tokens from %d to %d; elapsed %.1f s%n",
            minToken, maxToken, elapsed.toMillis() / 1000.0);
        return result;
      } finally {
        redis.del(counterKey);
      }
    } finally {
      watchdog.interrupt();
      synchronized (processes) {
        processes.forEach(Process::destroyForcibly);
      }
    }
  }

  /**
   * Runs the demo from the command line.
   *
   * @param args optionally {@code workers threads increments}
   * @throws Exception if the demo failed
   */
  public static void main(String[] args) throws Exception {
    int workers = setting(args, 0, "demo.workers", 3);
    int threads = setting(args, 1, "demo.threads", 4);
    int increments = setting(args, 2, "demo.increments", 100);
    boolean exact;
    try (ExampleRedis redis = ExampleRedis.locate()) {
      System.out.println("Redis: " + redis.describe());
      exact = run(redis.uri(), workers, threads, increments).isExact();
    }
    if (!exact) {
      System.exit(1);
    }
  }

  private static Process startWorker(
      String redisUri, String lockName, String counterKey, int threads, int increments)
      throws IOException {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    return new ProcessBuilder(
            java,
            "-cp",
            JvmProcess.classPath(),
            DemoWorker.class.getName(),
            redisUri,
            lockName,
            counterKey,
            Integer.toString(threads),
            Integer.toString(increments))
        .redirectError(ProcessBuilder.Redirect.INHERIT)
        .start();
  }

  /** Reads the worker's output up to the line starting with {@code prefix}, and returns it. */
  private static String expectLine(int worker, BufferedReader output, String prefix)
      throws IOException {
    for (String line = output.readLine(); line != null; line = output.readLine()) {
      if (line.startsWith(prefix)) {
        return line;
      }
    }
    throw new IllegalStateException(
        "worker "
            + (worker + 1)
            + " ended without printing '"
            + prefix
            + "'; see its errors above");
  }

  /** Kills the workers if they have not finished within {@link #WORKER_TIMEOUT}. */
  private static Thread watchdog(List<Process> processes) {
    Thread watchdog =
        new Thread(
            () -> {
              try {
                Thread.sleep(WORKER_TIMEOUT.toMillis());
              } catch (InterruptedException e) {
                return;
              }
              System.err.println(
                  "the workers did not finish within " + WORKER_TIMEOUT + "; killing them");
              synchronized (processes) {
                processes.forEach(Process::destroyForcibly);
              }
            },
            "demo-watchdog");
    watchdog.setDaemon(true);
    watchdog.start();
    return watchdog;
  }

  private static int setting(String[] args, int index, String property, int defaultValue) {
    String value = args.length > index ? args[index] : System.getProperty(property);
    int parsed = value == null ? defaultValue : Integer.parseInt(value.trim());
    if (parsed < 1) {
      throw new IllegalArgumentException(property + " must be at least 1, got " + parsed);
    }
    return parsed;
  }
}
