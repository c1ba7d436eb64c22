package io.github.redislock.process;

import io.github.redislock.RedisLockFactory;
import io.github.redislock.RedisReadWriteLock;
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
 * A {@code main} run in child JVMs by the cross-process read-write lock tests. The first argument
 * picks the mode:
 *
 * <ul>
 *   <li>{@code mix <redisUri> <lockName> <readers> <writers> <opsPerThread>}: prints {@code ready},
 *       waits until the key {@link #goKey(String)} exists, then runs reader and writer threads,
 *       each on its own raw connection, {@code opsPerThread} critical sections each. A reader
 *       {@code INCR}s {@link #readersKey(String)} inside the read lock (the answer is the number of
 *       readers inside, in every JVM, which it remembers the greatest of), checks that {@link
 *       #writersKey(String)} is 0, reads the counter twice, and {@code DECR}s. A writer {@code
 *       INCR}s the writers key (it must answer 1), checks that no reader is inside, checks that its
 *       fencing token is greater than the greatest seen ({@link #fenceKey(String)}), increments the
 *       counter non-atomically ({@code GET}, then {@code SET value + 1}) and {@code DECR}s. Prints
 *       {@code done violations=V fencing-violations=F max-readers=M reads=R writes=W} and exits 0.
 *   <li>{@code read-hold <redisUri> <lockName> <leaseMillis>}: takes the read lock, prints {@code
 *       reading} and blocks until killed.
 *   <li>{@code write <redisUri> <lockName> <leaseMillis> <timeoutMillis>}: a timed {@code tryLock}
 *       of the write lock; prints {@code acquired token=T} (then unlocks) or {@code timed-out}.
 * </ul>
 *
 * <p>Any exception prints its stack trace and exits 1.
 */
public final class ReadWriteWorker {
  private static final Duration RAW_TIMEOUT = Duration.ofSeconds(5);
  private static final Duration GO_TIMEOUT = Duration.ofSeconds(60);

  private ReadWriteWorker() {}

  /** Starts a worker in a new JVM; close it. */
  static JvmProcess start(String... args) {
    return JvmProcess.start(ReadWriteWorker.class, LockWorker.JVM_ARGS, args);
  }

  /** The number of readers inside the read lock, in every JVM. */
  static String readersKey(String lockName) {
    return lockName + ":readers-inside";
  }

  /** The number of writers inside the write lock, in every JVM. */
  static String writersKey(String lockName) {
    return lockName + ":writers-inside";
  }

  /** The greatest fencing token seen under the write lock. */
  static String fenceKey(String lockName) {
    return lockName + ":fence";
  }

  /** The key whose existence starts the {@code mix} workers. */
  static String goKey(String lockName) {
    return lockName + ":go";
  }

  /**
   * Entry point.
   *
   * @param args the mode and its arguments (see the class description)
   */
  public static void main(String[] args) {
    int code;
    try {
      run(args);
      code = 0;
    } catch (Throwable t) {
      System.out.println("worker failed: " + t);
      t.printStackTrace(System.out);
      code = 1;
    }
    System.out.flush();
    System.exit(code);
  }

  private static void run(String[] args) throws Exception {
    switch (args.length == 0 ? "" : args[0]) {
      case "mix" -> {
        requireArgs(args, 6);
        mix(
            args[1],
            args[2],
            Integer.parseInt(args[3]),
            Integer.parseInt(args[4]),
            Integer.parseInt(args[5]));
      }
      case "read-hold" -> {
        requireArgs(args, 4);
        readHold(args[1], args[2], Long.parseLong(args[3]));
      }
      case "write" -> {
        requireArgs(args, 5);
        write(args[1], args[2], Long.parseLong(args[3]), Long.parseLong(args[4]));
      }
      default -> throw new IllegalArgumentException("usage: ReadWriteWorker mix|read-hold|write");
    }
  }

  private static void requireArgs(String[] args, int count) {
    if (args.length != count) {
      throw new IllegalArgumentException(
          "mode " + args[0] + " takes " + (count - 1) + " arguments, got " + List.of(args));
    }
  }

  // ---- mix ----

  private static void mix(String uri, String lockName, int readers, int writers, int ops)
      throws Exception {
    String counter = lockName + ":counter";
    AtomicLong violations = new AtomicLong();
    AtomicLong fencingViolations = new AtomicLong();
    AtomicLong maxReaders = new AtomicLong();
    AtomicLong reads = new AtomicLong();
    AtomicLong writes = new AtomicLong();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    try (RedisLockFactory factory = RedisLockFactory.builder().standalone(uri).build()) {
      RedisReadWriteLock rw = factory.getReadWriteLock(lockName);
      List<Jedis> connections = new ArrayList<>();
      try {
        for (int t = 0; t < readers + writers; t++) {
          connections.add(connect(uri));
        }
        System.out.println("ready");
        System.out.flush();
        awaitGo(connections.get(0), goKey(lockName));
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < readers + writers; t++) {
          Jedis jedis = connections.get(t);
          boolean reader = t < readers;
          Runnable op =
              reader
                  ? () -> read(rw, jedis, lockName, counter, violations, maxReaders)
                  : () -> write(rw, jedis, lockName, counter, violations, fencingViolations);
          Thread thread =
              new Thread(
                  () -> {
                    try {
                      for (int i = 0; i < ops; i++) {
                        op.run();
                        (reader ? reads : writes).incrementAndGet();
                      }
                    } catch (Throwable e) {
                      failure.compareAndSet(null, e);
                    }
                  },
                  (reader ? "reader-" : "writer-") + t);
          threads.add(thread);
          thread.start();
        }
        for (Thread thread : threads) {
          thread.join();
        }
      } finally {
        connections.forEach(Jedis::close);
      }
    }
    if (failure.get() != null) {
      throw new IllegalStateException("a thread failed", failure.get());
    }
    System.out.println(
        "done violations="
            + violations.get()
            + " fencing-violations="
            + fencingViolations.get()
            + " max-readers="
            + maxReaders.get()
            + " reads="
            + reads.get()
            + " writes="
            + writes.get());
  }

  private static void read(
      RedisReadWriteLock rw,
      Jedis jedis,
      String lockName,
      String counter,
      AtomicLong violations,
      AtomicLong maxReaders) {
    rw.readLock().lock();
    try {
      long inside = jedis.incr(readersKey(lockName));
      try {
        maxReaders.accumulateAndGet(inside, Math::max);
        if (!isZero(jedis.get(writersKey(lockName)))) {
          violations.incrementAndGet();
        }
        String before = jedis.get(counter); // a reader's work: the value stays put while it reads
        if (before != null && !before.equals(jedis.get(counter))) {
          violations.incrementAndGet();
        }
      } finally {
        jedis.decr(readersKey(lockName));
      }
    } finally {
      rw.readLock().unlock();
    }
  }

  private static void write(
      RedisReadWriteLock rw,
      Jedis jedis,
      String lockName,
      String counter,
      AtomicLong violations,
      AtomicLong fencingViolations) {
    rw.writeLock().lock();
    try {
      long inside = jedis.incr(writersKey(lockName));
      try {
        if (inside != 1 || !isZero(jedis.get(readersKey(lockName)))) {
          violations.incrementAndGet();
        }
        long token = rw.writeLock().getFencingToken();
        String greatest = jedis.get(fenceKey(lockName));
        if (greatest != null && token <= Long.parseLong(greatest)) {
          fencingViolations.incrementAndGet();
        } else {
          jedis.set(fenceKey(lockName), Long.toString(token));
        }
        String value = jedis.get(counter);
        Thread.yield(); // widen the read-modify-write window a little
        jedis.set(counter, Long.toString((value == null ? 0 : Long.parseLong(value)) + 1));
      } finally {
        jedis.decr(writersKey(lockName));
      }
    } finally {
      rw.writeLock().unlock();
    }
  }

  private static boolean isZero(String count) {
    return count == null || count.equals("0");
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

  // ---- read-hold ----

  private static void readHold(String uri, String lockName, long leaseMillis)
      throws InterruptedException {
    RedisLockFactory factory =
        RedisLockFactory.builder()
            .standalone(uri)
            .leaseTime(Duration.ofMillis(leaseMillis))
            .build();
    factory.getReadWriteLock(lockName).readLock().lock();
    System.out.println("reading");
    System.out.flush();
    new CountDownLatch(1).await(); // until killed
  }

  // ---- write ----

  private static void write(String uri, String lockName, long leaseMillis, long timeoutMillis)
      throws InterruptedException {
    try (RedisLockFactory factory =
        RedisLockFactory.builder()
            .standalone(uri)
            .leaseTime(Duration.ofMillis(leaseMillis))
            .build()) {
      RedisReadWriteLock.WriteLock lock = factory.getReadWriteLock(lockName).writeLock();
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
