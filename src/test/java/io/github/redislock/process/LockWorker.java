package io.github.redislock.process;

import io.github.redislock.RedisDistributedLock;
import io.github.redislock.RedisLockException;
import io.github.redislock.RedisLockFactory;
import io.github.redislock.testing.JvmProcess;
import io.github.redislock.testing.Timing;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;

/**
 * A {@code main} run in child JVMs by the cross-process tests. The first argument picks the mode:
 *
 * <ul>
 *   <li>{@code count <redisUri> <lockName> <counterKey> <threads> <incrementsPerThread>
 *       [<dataUri>]}: builds a factory (a comma-separated list of URIs means Redlock over those
 *       masters; the counter and checks then live on {@code dataUri}), prints {@code ready}, waits
 *       until the key {@link #goKey(String)} exists, then each thread increments the counter
 *       non-atomically ({@code GET}, then {@code SET value + 1}) under the lock, on its own raw
 *       connection. Each critical section also checks, in Redis, that nobody else is inside ({@code
 *       INCR} {@link #insideKey(String)} must answer 1) and that its fencing token is greater than
 *       the greatest one seen so far under the lock (kept in {@link #fenceKey(String)}). A hold
 *       that gets no fencing token because Redis could not make one binding ({@code
 *       RedisLockException}) writes nothing and the thread tries again; such failures, and unlocks
 *       that Redis could not confirm, are counted as unconfirmed. Prints {@code done violations=N
 *       fencing-violations=M handoffs=H unconfirmed=U}, where a handoff is an acquisition right
 *       after a hold by another JVM, and exits 0.
 *   <li>{@code hold <redisUri> <lockName> <leaseMillis>}: acquires the lock, prints {@code locked
 *       token=T} and blocks until killed.
 *   <li>{@code acquire <redisUri> <lockName> <leaseMillis> <timeoutMillis>}: {@code tryLock} with
 *       the timeout, prints {@code acquired token=T} (then unlocks) or {@code timed-out}, exits 0.
 * </ul>
 *
 * <p>Any exception prints its stack trace and exits 1.
 */
public final class LockWorker {

  /** Options that make a small child JVM start fast on a 2-core machine. */
  static final List<String> JVM_ARGS =
      List.of(
          "-Xmx128m",
          "-XX:TieredStopAtLevel=1",
          "-XX:+UseSerialGC",
          "-Xshare:auto",
          "-D" + Timing.TIME_SCALE_PROPERTY + "=" + Timing.scale());

  private static final Duration RAW_TIMEOUT = Duration.ofSeconds(5);

  /** Redlock masters here share two cores with every JVM of the test: allow them some slack. */
  private static final Duration NODE_TIMEOUT = Timing.scaled(Duration.ofMillis(200));

  /**
   * The lease of Redlock workers: short, so that a test can keep a killed master down for longer
   * than any lease before restarting it, as Redlock requires of masters without persistence.
   */
  static final Duration REDLOCK_LEASE = Timing.scaled(Duration.ofSeconds(2));

  private static final Duration GO_TIMEOUT = Duration.ofSeconds(60);

  private LockWorker() {}

  /**
   * Starts a worker in a new JVM.
   *
   * @param args the worker's arguments, mode first
   * @return the running child; close it
   */
  static JvmProcess start(String... args) {
    return JvmProcess.start(LockWorker.class, JVM_ARGS, args);
  }

  /** The key every critical section {@code INCR}s on entry and {@code DECR}s on exit. */
  static String insideKey(String lockName) {
    return lockName + ":inside";
  }

  /** The key whose existence starts the {@code count} workers. */
  static String goKey(String lockName) {
    return lockName + ":go";
  }

  /** The greatest fencing token seen under the lock by the {@code count} workers. */
  static String fenceKey(String lockName) {
    return lockName + ":fence";
  }

  /** The PID of the JVM whose thread held the lock last, written by the {@code count} workers. */
  static String lastHolderKey(String lockName) {
    return lockName + ":last-holder";
  }

  /**
   * Entry point.
   *
   * @param args the mode and its arguments (see the class description)
   */
  public static void main(String[] args) {
    int code;
    try {
      code = run(args);
    } catch (Throwable t) {
      System.out.println("worker failed: " + t);
      t.printStackTrace(System.out);
      code = 1;
    }
    System.out.flush();
    System.exit(code);
  }

  private static int run(String[] args) throws Exception {
    if (args.length == 0) {
      throw new IllegalArgumentException("usage: LockWorker count|hold|acquire ...");
    }
    switch (args[0]) {
      case "count":
        if (args.length != 7) {
          requireArgs(args, 6);
        }
        count(
            args[1],
            args.length == 7 ? args[6] : args[1],
            args[2],
            args[3],
            Integer.parseInt(args[4]),
            Integer.parseInt(args[5]));
        return 0;
      case "hold":
        requireArgs(args, 4);
        hold(args[1], args[2], Long.parseLong(args[3]));
        return 0;
      case "acquire":
        requireArgs(args, 5);
        acquire(args[1], args[2], Long.parseLong(args[3]), Long.parseLong(args[4]));
        return 0;
      default:
        throw new IllegalArgumentException("unknown mode: " + args[0]);
    }
  }

  private static void requireArgs(String[] args, int count) {
    if (args.length != count) {
      throw new IllegalArgumentException(
          "mode " + args[0] + " takes " + (count - 1) + " arguments, got " + List.of(args));
    }
  }

  // ---- count ----

  private static void count(
      String uri, String dataUri, String lockName, String counterKey, int threads, int increments)
      throws InterruptedException {
    String inside = insideKey(lockName);
    String fence = fenceKey(lockName);
    String lastHolder = lastHolderKey(lockName);
    String me = Long.toString(ProcessHandle.current().pid());
    AtomicLong violations = new AtomicLong();
    AtomicLong fencingViolations = new AtomicLong();
    AtomicLong handoffs = new AtomicLong();
    AtomicLong unconfirmed = new AtomicLong();
    AtomicReference<Throwable> failure = new AtomicReference<>();

    try (RedisLockFactory factory = builderFor(uri).build()) {
      RedisDistributedLock lock = factory.getLock(lockName);
      List<Jedis> connections = new ArrayList<>();
      try {
        for (int t = 0; t < threads; t++) {
          connections.add(connect(dataUri));
        }
        System.out.println("ready");
        System.out.flush();
        awaitGo(connections.get(0), goKey(lockName));

        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
          Jedis jedis = connections.get(t);
          Thread worker =
              new Thread(
                  () -> {
                    try {
                      for (int done = 0; done < increments; ) {
                        boolean counted = false;
                        lock.lock();
                        try {
                          long entered = jedis.incr(inside);
                          try {
                            if (entered != 1) {
                              violations.incrementAndGet();
                            }
                            long token = fencingToken(lock, unconfirmed);
                            if (token > 0) {
                              String greatest = jedis.get(fence);
                              if (greatest != null && token <= Long.parseLong(greatest)) {
                                fencingViolations.incrementAndGet();
                              } else {
                                jedis.set(fence, Long.toString(token));
                              }
                              String previous = jedis.setGet(lastHolder, me);
                              if (!me.equals(previous)) {
                                handoffs.incrementAndGet();
                              }
                              String value = jedis.get(counterKey);
                              long next = (value == null ? 0 : Long.parseLong(value)) + 1;
                              Thread.yield(); // widen the read-modify-write window a little
                              jedis.set(counterKey, Long.toString(next));
                              counted = true;
                            }
                          } finally {
                            jedis.decr(inside);
                          }
                        } finally {
                          unlock(lock, unconfirmed);
                        }
                        done += counted ? 1 : 0;
                      }
                    } catch (Throwable e) {
                      failure.compareAndSet(null, e);
                    }
                  },
                  "count-" + t);
          workers.add(worker);
          worker.start();
        }
        for (Thread worker : workers) {
          worker.join();
        }
      } finally {
        connections.forEach(Jedis::close);
      }
    }
    if (failure.get() != null) {
      throw new IllegalStateException("a counting thread failed", failure.get());
    }
    System.out.println(
        "done violations="
            + violations.get()
            + " fencing-violations="
            + fencingViolations.get()
            + " handoffs="
            + handoffs.get()
            + " unconfirmed="
            + unconfirmed.get());
  }

  /**
   * The hold's fencing token, or 0 when Redis could not make one binding: under Redlock, while a
   * master is down, a hold whose majority included it cannot, and its writes must not be made.
   */
  private static long fencingToken(RedisDistributedLock lock, AtomicLong unconfirmed) {
    try {
      return lock.getFencingToken();
    } catch (RedisLockException e) {
      unconfirmed.incrementAndGet();
      return 0;
    }
  }

  /**
   * Unlocks; a release that Redis could not confirm (under Redlock, while a master of the hold's
   * majority is down) is counted: the key expires with its lease.
   */
  private static void unlock(RedisDistributedLock lock, AtomicLong unconfirmed) {
    try {
      lock.unlock();
    } catch (RedisLockException e) {
      unconfirmed.incrementAndGet();
    }
  }

  private static void awaitGo(Jedis jedis, String goKey) throws InterruptedException {
    long deadline = System.nanoTime() + Timing.scaled(GO_TIMEOUT).toNanos();
    while (!jedis.exists(goKey)) {
      if (System.nanoTime() - deadline > 0) {
        throw new IllegalStateException("no start signal (key " + goKey + ") within " + GO_TIMEOUT);
      }
      TimeUnit.MILLISECONDS.sleep(2);
    }
  }

  // ---- hold ----

  private static void hold(String uri, String lockName, long leaseMillis)
      throws InterruptedException {
    RedisLockFactory factory =
        RedisLockFactory.builder()
            .standalone(uri)
            .leaseTime(Duration.ofMillis(leaseMillis))
            .build();
    RedisDistributedLock lock = factory.getLock(lockName);
    lock.lock();
    System.out.println("locked token=" + lock.getFencingToken());
    System.out.flush();
    new CountDownLatch(1).await(); // until killed
  }

  // ---- acquire ----

  private static void acquire(String uri, String lockName, long leaseMillis, long timeoutMillis)
      throws InterruptedException {
    try (RedisLockFactory factory =
        RedisLockFactory.builder()
            .standalone(uri)
            .leaseTime(Duration.ofMillis(leaseMillis))
            .build()) {
      RedisDistributedLock lock = factory.getLock(lockName);
      if (lock.tryLock(timeoutMillis, TimeUnit.MILLISECONDS)) {
        try {
          System.out.println("acquired token=" + lock.getFencingToken());
        } finally {
          lock.unlock();
        }
      } else {
        System.out.println("timed-out");
      }
    }
  }

  // ---- helpers ----

  /**
   * The factory's endpoint: one URI means one server, a comma-separated list means Redlock over
   * those masters.
   */
  private static RedisLockFactory.Builder builderFor(String uris) {
    return uris.contains(",")
        ? RedisLockFactory.builder()
            .redlock(uris.split(","))
            .redlockNodeTimeout(NODE_TIMEOUT)
            .leaseTime(REDLOCK_LEASE)
        : RedisLockFactory.builder().standalone(uris);
  }

  /** A raw connection, independent of the lock's client. */
  private static Jedis connect(String redisUri) {
    URI uri = URI.create(redisUri);
    int millis = Math.toIntExact(Timing.scaled(RAW_TIMEOUT).toMillis());
    DefaultJedisClientConfig config =
        DefaultJedisClientConfig.builder()
            .connectionTimeoutMillis(millis)
            .socketTimeoutMillis(millis)
            .autoNegotiateProtocol(false)
            .build();
    return new Jedis(new HostAndPort(uri.getHost(), uri.getPort()), config);
  }
}
