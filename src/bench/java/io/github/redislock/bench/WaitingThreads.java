package io.github.redislock.bench;

import io.github.redislock.testing.RedisServer;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Lock;
import redis.clients.jedis.Jedis;

/**
 * What one instance costs the servers while many of its threads wait for one lock held elsewhere.
 * On fresh servers a first instance (standing for another process) holds the lock; a second,
 * measured instance is created and N of its threads wait in {@code lockInterruptibly()}. After they
 * settle, {@code CLIENT LIST} gives the connections the measured instance opened (those not there
 * before it was created) and how many of them are subscribed, {@code PUBSUB CHANNELS}/{@code
 * NUMSUB} the channels and subscriptions, {@code total_commands_processed} over one second (half in
 * quick mode) the load the waiting puts on Redis, and the JVM's thread count the threads the
 * measured instance added. Then the waiters are interrupted (those that ignore it are counted, and
 * ended by closing the instance) and the holder unlocks.
 */
final class WaitingThreads {
  private static final String KEY = "bench:waited";
  private static final Duration BOUND = Duration.ofSeconds(30);
  private static final Duration INTERRUPT_BOUND = Duration.ofSeconds(5);

  /**
   * The result for one implementation, summed over its servers.
   *
   * @param impl the implementation
   * @param waiters threads waiting
   * @param connections client connections of the measured instance
   * @param subscribedConnections of those, connections in subscribed state
   * @param channels channels with subscribers ({@code PUBSUB CHANNELS})
   * @param subscriptions subscriptions to those channels ({@code PUBSUB NUMSUB}, summed)
   * @param commandsPerSecond commands the servers processed per second while the threads waited
   * @param threadsAdded JVM threads the measured instance started, beyond the waiters
   * @param note remarks, empty when none
   */
  record Result(
      Implementation impl,
      int waiters,
      long connections,
      long subscribedConnections,
      long channels,
      long subscriptions,
      double commandsPerSecond,
      int threadsAdded,
      String note) {}

  private WaitingThreads() {}

  static Result measure(Implementation impl, BenchSettings settings) throws InterruptedException {
    try (LocalRedis redis = LocalRedis.start(impl.nodes());
        LockUnderTest other = impl.create(redis.uris(), settings)) {
      List<Jedis> observers = new ArrayList<>();
      CountDownLatch held = new CountDownLatch(1);
      CountDownLatch release = new CountDownLatch(1);
      Thread holder =
          daemon(
              "bench-holder",
              () -> {
                Lock lock = other.newLock(KEY);
                lock.lock();
                held.countDown();
                try {
                  release.await(BOUND.toMillis() * 4, TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                } finally {
                  lock.unlock();
                }
              });
      try {
        if (!held.await(BOUND.toSeconds(), TimeUnit.SECONDS)) {
          return new Result(impl, 0, 0, 0, 0, 0, 0, 0, "the holder did not acquire");
        }
        Set<Long> before = new HashSet<>();
        for (RedisServer server : redis.servers()) {
          Jedis jedis = server.jedis();
          observers.add(jedis);
          before.addAll(clientIds(jedis));
        }
        int threadsBefore = ManagementFactory.getThreadMXBean().getThreadCount();
        try (LockUnderTest measured = impl.create(redis.uris(), settings)) {
          return measure(
              impl, measured, observers, before, threadsBefore, release, holder, settings);
        }
      } finally {
        release.countDown();
        holder.join(BOUND.toMillis());
        observers.forEach(Jedis::close);
      }
    }
  }

  private static Result measure(
      Implementation impl,
      LockUnderTest locks,
      List<Jedis> observers,
      Set<Long> before,
      int threadsBefore,
      CountDownLatch release,
      Thread holder,
      BenchSettings settings)
      throws InterruptedException {
    AtomicReference<String> error = new AtomicReference<>("");
    int count = settings.waiters();
    List<Thread> waiters = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      waiters.add(
          daemon(
              "bench-waiter-" + i,
              () -> {
                Lock lock = locks.newLock(KEY);
                try {
                  lock.lockInterruptibly();
                  lock.unlock();
                } catch (InterruptedException e) {
                  // expected: the measurement ends by interrupting the waiters
                } catch (RuntimeException e) {
                  if (!causedByInterrupt(e)) {
                    error.compareAndSet("", e.toString());
                  }
                }
              }));
    }
    Thread.sleep(settings.quick() ? 500 : 3000);

    long processedBefore = processed(observers);
    long start = System.nanoTime();
    Thread.sleep(settings.quick() ? 500 : 1000);
    long processedAfter = processed(observers);
    double perSecond =
        (processedAfter - processedBefore - observers.size()) * 1e9 / (System.nanoTime() - start);
    int threadsAdded = ManagementFactory.getThreadMXBean().getThreadCount() - threadsBefore - count;
    long connections = 0;
    long subscribed = 0;
    long channels = 0;
    long subscriptions = 0;
    for (Jedis jedis : observers) {
      for (String client : jedis.clientList().lines().toList()) {
        if (before.contains(field(client, "id"))) {
          continue;
        }
        connections++;
        if (field(client, "sub") + field(client, "psub") + field(client, "ssub") > 0) {
          subscribed++;
        }
      }
      List<String> active = jedis.pubsubChannels();
      channels += active.size();
      if (!active.isEmpty()) {
        subscriptions +=
            jedis.pubsubNumSub(active.toArray(String[]::new)).values().stream()
                .mapToLong(Long::longValue)
                .sum();
      }
    }

    waiters.forEach(Thread::interrupt);
    long ignored = awaitAll(waiters, INTERRUPT_BOUND);
    release.countDown();
    holder.join(BOUND.toMillis());
    String note = error.get();
    if (ignored > 0) {
      note = (note + " " + ignored + " waiters ignored the interrupt (ended by close())").trim();
    }
    return new Result(
        impl,
        count,
        connections,
        subscribed,
        channels,
        subscriptions,
        perSecond,
        threadsAdded,
        note);
  }

  /** Waits (bounded) for the threads to end; returns how many are still alive. */
  private static long awaitAll(List<Thread> threads, Duration bound) throws InterruptedException {
    long deadline = System.nanoTime() + bound.toNanos();
    long alive = 0;
    for (Thread thread : threads) {
      thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
      alive += thread.isAlive() ? 1 : 0;
    }
    return alive;
  }

  private static boolean causedByInterrupt(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof InterruptedException) {
        return true;
      }
    }
    return false;
  }

  private static Set<Long> clientIds(Jedis jedis) {
    Set<Long> ids = new HashSet<>();
    jedis.clientList().lines().forEach(client -> ids.add(field(client, "id")));
    return ids;
  }

  private static long processed(List<Jedis> observers) {
    long total = 0;
    for (Jedis jedis : observers) {
      total += RedisInfo.number(jedis.info("stats"), "total_commands_processed");
    }
    return total;
  }

  /** A numeric field of a {@code CLIENT LIST} line, 0 when absent. */
  private static long field(String client, String name) {
    for (String part : client.split(" ")) {
      if (part.startsWith(name + "=")) {
        return Long.parseLong(part.substring(name.length() + 1));
      }
    }
    return 0;
  }

  private static Thread daemon(String name, Runnable body) {
    Thread thread = new Thread(body, name);
    thread.setDaemon(true);
    thread.start();
    return thread;
  }
}
