package io.github.redislock.process;

import io.github.redislock.RedisDistributedLock;
import io.github.redislock.RedisLockFactory;
import io.github.redislock.RedisReadWriteLock;
import io.github.redislock.testing.JvmProcess;
import io.github.redislock.testing.Timing;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.LockSupport;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;

/**
 * A {@code main} run in child JVMs by the cross-process condition tests. The first argument picks
 * the mode:
 *
 * <ul>
 *   <li>{@code buffer <redisUri> <lockName> <capacity> <producers> <consumers> <itemsPerProducer>
 *       <totalItems> <jvm> [write <readers>]}: the bounded buffer of {@code Condition}'s Javadoc,
 *       its items in a Redis list ({@link #itemsKey}) shared by every JVM, with the conditions
 *       {@code notFull} and {@code notEmpty} (the first and second {@code newCondition()} of the
 *       lock: the plain lock of the name, or with {@code write} the write lock of the read-write
 *       lock of the name). Prints {@code ready}, waits until the key {@link #goKey} exists, then
 *       runs the producer threads (each puts its items, named by JVM, thread and number) and the
 *       consumer threads (each takes until {@code totalItems} were taken by all JVMs, adding every
 *       item to the set {@link #deliveredKey}). Every critical section checks, in Redis, that
 *       nobody else is inside ({@code INCR} {@link #insideKey} must answer 1) and, with {@code
 *       write}, that no reader is ({@link #readersKey} is 0). With {@code write}, {@code readers}
 *       reader threads read until every item was taken, each read checking that no writer is inside
 *       ({@code INCR} {@link #readersKey}, then {@link #insideKey} must be 0). Prints {@code done
 *       produced=P consumed=C duplicates=D violations=V rechecks=R spurious=S reads=N}: items added
 *       to the set twice, overlaps (of writers, or of a writer and a reader), awaits that returned
 *       with their condition still false (another thread took the item first), the factory's
 *       spurious wake-ups and the reads made; exits 0.
 *   <li>{@code await <redisUri> <lockName> <leaseMillis>}: locks, prints {@code awaiting}, awaits
 *       the lock's first condition, prints {@code woken}, unlocks and exits 0.
 * </ul>
 *
 * <p>Any exception prints its stack trace and exits 1.
 */
public final class ConditionWorker {
  private static final Duration RAW_TIMEOUT = Duration.ofSeconds(5);
  private static final Duration GO_TIMEOUT = Duration.ofSeconds(60);

  /** A reader's pause between two reads, so that readers share the lock with the writers. */
  private static final long READ_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(2);

  private ConditionWorker() {}

  static JvmProcess start(String... args) {
    return JvmProcess.start(ConditionWorker.class, LockWorker.JVM_ARGS, args);
  }

  static String itemsKey(String lockName) {
    return lockName + ":items";
  }

  static String takenKey(String lockName) {
    return lockName + ":taken";
  }

  static String deliveredKey(String lockName) {
    return lockName + ":delivered";
  }

  static String insideKey(String lockName) {
    return lockName + ":inside";
  }

  static String goKey(String lockName) {
    return lockName + ":go";
  }

  static String readersKey(String lockName) {
    return lockName + ":readers";
  }

  /**
   * Entry point.
   *
   * @param args the mode and its arguments (see the class description)
   */
  public static void main(String[] args) {
    int code = 0;
    try {
      switch (args[0]) {
        case "buffer" -> buffer(args);
        case "await" -> awaitOnce(args[1], args[2], Long.parseLong(args[3]));
        default -> throw new IllegalArgumentException("unknown mode: " + args[0]);
      }
    } catch (Throwable t) {
      System.out.println("worker failed: " + t);
      t.printStackTrace(System.out);
      code = 1;
    }
    System.out.flush();
    System.exit(code);
  }

  // ---- buffer ----

  /** The bounded buffer of {@code Condition}'s Javadoc, across processes. */
  private static final class BoundedBuffer {
    final Lock lock;
    final Condition notFull;
    final Condition notEmpty;
    final String name;
    final int capacity;
    final long total;
    final AtomicLong violations = new AtomicLong();
    final AtomicLong rechecks = new AtomicLong();

    BoundedBuffer(Lock lock, String name, int capacity, long total) {
      this.lock = lock;
      this.notFull = lock.newCondition();
      this.notEmpty = lock.newCondition();
      this.name = name;
      this.capacity = capacity;
      this.total = total;
    }

    void put(Jedis jedis, String item) throws InterruptedException {
      lock.lock();
      try {
        for (boolean waited = false; ; waited = true) {
          enter(jedis);
          if (jedis.llen(itemsKey(name)) < capacity) {
            break;
          }
          exit(jedis);
          if (waited) {
            rechecks.incrementAndGet();
          }
          notFull.await();
        }
        try {
          jedis.rpush(itemsKey(name), item);
          notEmpty.signal();
        } finally {
          exit(jedis);
        }
      } finally {
        lock.unlock();
      }
    }

    /** The next item, or {@code null} once every item was taken. */
    String take(Jedis jedis) throws InterruptedException {
      lock.lock();
      try {
        for (boolean waited = false; ; waited = true) {
          enter(jedis);
          if (jedis.llen(itemsKey(name)) > 0) {
            break;
          }
          String taken = jedis.get(takenKey(name));
          exit(jedis);
          if (taken != null && Long.parseLong(taken) >= total) {
            return null;
          }
          if (waited) {
            rechecks.incrementAndGet();
          }
          notEmpty.await();
        }
        try {
          String item = jedis.lpop(itemsKey(name));
          if (jedis.incr(takenKey(name)) == total) {
            notEmpty.signalAll(); // the consumers still waiting end
          }
          notFull.signal();
          return item;
        } finally {
          exit(jedis);
        }
      } finally {
        lock.unlock();
      }
    }

    private void enter(Jedis jedis) {
      if (jedis.incr(insideKey(name)) != 1 || count(jedis, readersKey(name)) != 0) {
        violations.incrementAndGet();
      }
    }

    /** One read under {@code readLock}: no writer may be inside meanwhile. */
    void read(Jedis jedis, Lock readLock) {
      readLock.lock();
      try {
        jedis.incr(readersKey(name));
        if (count(jedis, insideKey(name)) != 0) {
          violations.incrementAndGet();
        }
        jedis.decr(readersKey(name));
      } finally {
        readLock.unlock();
      }
    }

    boolean allTaken(Jedis jedis) {
      return count(jedis, takenKey(name)) >= total;
    }

    private static long count(Jedis jedis, String key) {
      String value = jedis.get(key);
      return value == null ? 0 : Long.parseLong(value);
    }

    private void exit(Jedis jedis) {
      jedis.decr(insideKey(name));
    }
  }

  private static void buffer(String[] args) throws Exception {
    String uri = args[1];
    String name = args[2];
    int capacity = Integer.parseInt(args[3]);
    int producers = Integer.parseInt(args[4]);
    int consumers = Integer.parseInt(args[5]);
    int items = Integer.parseInt(args[6]);
    long total = Long.parseLong(args[7]);
    String jvm = args[8];
    boolean write = args.length > 9 && args[9].equals("write");
    int readers = write ? Integer.parseInt(args[10]) : 0;
    AtomicLong consumed = new AtomicLong();
    AtomicLong reads = new AtomicLong();
    AtomicLong duplicates = new AtomicLong();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    long spurious;
    BoundedBuffer buffer;
    try (RedisLockFactory factory = RedisLockFactory.builder().standalone(uri).build()) {
      RedisReadWriteLock rw = write ? factory.getReadWriteLock(name) : null;
      Lock lock = write ? rw.writeLock() : factory.getLock(name);
      buffer = new BoundedBuffer(lock, name, capacity, total);
      List<Jedis> connections = new ArrayList<>();
      try {
        for (int t = 0; t < producers + consumers + readers; t++) {
          connections.add(connect(uri));
        }
        System.out.println("ready");
        System.out.flush();
        awaitGo(connections.get(0), goKey(name));
        List<Thread> threads = new ArrayList<>();
        for (int t = producers + consumers; t < producers + consumers + readers; t++) {
          Jedis jedis = connections.get(t);
          Thread reader =
              new Thread(
                  () -> {
                    while (failure.get() == null && !buffer.allTaken(jedis)) {
                      run(() -> buffer.read(jedis, rw.readLock()), failure);
                      reads.incrementAndGet();
                      LockSupport.parkNanos(READ_PAUSE_NANOS);
                    }
                  },
                  "reader-" + t);
          threads.add(reader);
          reader.start();
        }
        for (int t = 0; t < producers + consumers; t++) {
          Jedis jedis = connections.get(t);
          int me = t;
          Runnable work =
              t < producers
                  ? () -> {
                    for (int i = 0; i < items; i++) {
                      String item = "j" + jvm + "-p" + me + "-" + i;
                      run(() -> buffer.put(jedis, item), failure);
                    }
                  }
                  : () -> {
                    while (failure.get() == null) {
                      String[] item = new String[1];
                      run(() -> item[0] = buffer.take(jedis), failure);
                      if (item[0] == null) {
                        return;
                      }
                      consumed.incrementAndGet();
                      if (jedis.sadd(deliveredKey(name), item[0]) == 0) {
                        duplicates.incrementAndGet();
                      }
                    }
                  };
          Thread thread = new Thread(work, (t < producers ? "producer-" : "consumer-") + t);
          threads.add(thread);
          thread.start();
        }
        for (Thread thread : threads) {
          thread.join();
        }
      } finally {
        connections.forEach(Jedis::close);
      }
      spurious = factory.activity().spuriousWakeUpCount();
    }
    if (failure.get() != null) {
      throw new IllegalStateException("a buffer thread failed", failure.get());
    }
    System.out.println(
        "done produced="
            + (long) producers * items
            + " consumed="
            + consumed.get()
            + " duplicates="
            + duplicates.get()
            + " violations="
            + buffer.violations.get()
            + " rechecks="
            + buffer.rechecks.get()
            + " spurious="
            + spurious
            + " reads="
            + reads.get());
  }

  private interface Step {
    void run() throws Exception;
  }

  private static void run(Step step, AtomicReference<Throwable> failure) {
    try {
      step.run();
    } catch (Throwable e) {
      failure.compareAndSet(null, e);
      throw new IllegalStateException(e);
    }
  }

  // ---- await ----

  private static void awaitOnce(String uri, String name, long leaseMillis) throws Exception {
    try (RedisLockFactory factory =
        RedisLockFactory.builder()
            .standalone(uri)
            .leaseTime(Duration.ofMillis(leaseMillis))
            .build()) {
      RedisDistributedLock lock = factory.getLock(name);
      Condition condition = lock.newCondition();
      lock.lock();
      try {
        System.out.println("awaiting");
        System.out.flush();
        condition.await();
        System.out.println("woken spurious=" + factory.activity().spuriousWakeUpCount());
      } finally {
        lock.unlock();
      }
    }
  }

  // ---- helpers ----

  private static void awaitGo(Jedis jedis, String goKey) throws InterruptedException {
    long deadline = System.nanoTime() + Timing.scaled(GO_TIMEOUT).toNanos();
    while (!jedis.exists(goKey)) {
      if (System.nanoTime() - deadline > 0) {
        throw new IllegalStateException("no start signal (key " + goKey + ") within " + GO_TIMEOUT);
      }
      TimeUnit.MILLISECONDS.sleep(2);
    }
  }

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
