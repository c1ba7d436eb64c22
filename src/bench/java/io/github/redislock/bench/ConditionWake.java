package io.github.redislock.bench;

import io.github.redislock.RedisDistributedLock;
import io.github.redislock.RedisLockFactory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;
import redis.clients.jedis.JedisPubSub;
import redis.clients.jedis.RedisClient;

/**
 * A {@code Condition}'s signal-to-wake latency across JVMs, beside the round trip it is measured
 * against ({@code PING}), on a fresh server. A child JVM ({@link Awaiter}) holds the lock and
 * awaits the lock's first condition in a loop, announcing each round in a memory-mapped file shared
 * with this JVM before its await; this JVM, round after round, waits for the announcement, locks
 * (which succeeds only once the child awaits: the await releases the lock), lets the child's thread
 * settle into its wait ({@link #SETTLE_NANOS}), notes the time in the file, signals and unlocks.
 * The child, its {@code await} returned (the lock held again), records now minus that time: signal,
 * unlock, the wake-up and the re-acquisition. Redisson has no distributed {@code Condition} (its
 * {@code RLock.newCondition()} throws), so there is no row to compare with. Its scenario id is
 * {@code condition}: {@code -Dbench.scenarios=condition} runs it alone.
 */
final class ConditionWake {
  private static final VarHandle LONGS =
      MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.nativeOrder());
  private static final int ROUND = 0;
  private static final int SIGNALLED_AT = 8;
  private static final int AWAITING = 16;
  private static final int FLOOR_AWAITING = 24;
  private static final int SIZE = 32;
  private static final String FLOOR_CHANNEL = "bench:condition:floor";
  private static final Duration TIMEOUT = Duration.ofMinutes(2);
  private static final String NAME = "bench:condition";

  /**
   * How long the signaller, holding the lock, waits before it signals: the lock is free for it the
   * moment the child's await releases it, while the child's thread is still finishing that call on
   * its way to park. Signalling then measured the tail of the child's await competing with the
   * signal for the machine's two CPUs (p50 some 20 µs more), where the floor's rounds publish to a
   * thread that parked already. So both measure the wake of a thread that waits.
   */
  private static final long SETTLE_NANOS = 200_000;

  /**
   * What was measured.
   *
   * @param rounds the signals measured (after the warm-up ones)
   * @param ping the {@code PING} round trips, from this JVM
   * @param wake signal to the awaiter's return from {@code await}, across JVMs
   * @param signal the signaller's {@code signal()} call alone
   * @param unlocked the signaller's {@code signal()} and {@code unlock()}
   * @param floorSubscriber a {@code PUBLISH} from this JVM to the child's Jedis subscriber thread
   * @param floorWoken the same, to a thread of the child that its subscriber thread unparks
   * @param spurious the awaiter's spurious wake-ups
   * @param note remarks, empty when none
   */
  record Result(
      int rounds,
      Histogram ping,
      Histogram wake,
      Histogram signal,
      Histogram unlocked,
      Histogram floorSubscriber,
      Histogram floorWoken,
      long spurious,
      String note) {

    double ratio() {
      return Histograms.micros(wake, 50) / Histograms.micros(ping, 50);
    }

    /** The floor's own p50 in PING p50s: what no cross-JVM wake-up on this machine goes under. */
    double floorRatio() {
      return Histograms.micros(floorWoken, 50) / Histograms.micros(ping, 50);
    }
  }

  private ConditionWake() {}

  static Result measure(BenchSettings settings) throws InterruptedException {
    int warmup = settings.quick() ? 200 : 1000;
    int rounds = settings.quick() ? 300 : 3000;
    Path file;
    try {
      file = Files.createTempFile("condition-bench-", ".shared");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    MappedByteBuffer shared = map(file);
    try (LocalRedis redis = LocalRedis.start(1);
        ChildJvm child =
            ChildJvm.start(
                Awaiter.class,
                List.of("-Xmx256m", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"),
                List.of(
                    redis.uris().get(0),
                    file.toString(),
                    Integer.toString(warmup),
                    Integer.toString(rounds)));
        RedisLockFactory factory =
            RedisLockFactory.builder().standalone(redis.uris().get(0)).build()) {
      Histogram ping = ping(redis.uris().get(0), warmup, rounds);
      child.await("floor-ready", TIMEOUT);
      publishFloor(redis.uris().get(0), shared, warmup, rounds);
      String[] floor = child.await("floor", TIMEOUT).split(" ");
      child.await("ready", TIMEOUT);
      RedisDistributedLock lock = factory.getLock(NAME);
      Condition condition = lock.newCondition();
      Histogram signal = Sample.newHistogram();
      Histogram unlocked = Sample.newHistogram();
      for (int round = 1; round <= warmup + rounds; round++) {
        // Once the child announced the round it holds the lock until its await releases it, so
        // this lock() cannot barge in before the child awaits (and signal nobody).
        while ((long) LONGS.getVolatile(shared, AWAITING) < round) {
          LockSupport.parkNanos(10_000);
        }
        lock.lock();
        for (long settling = System.nanoTime(); System.nanoTime() - settling < SETTLE_NANOS; ) {
          Thread.onSpinWait();
        }
        long start = System.nanoTime();
        try {
          LONGS.setVolatile(shared, SIGNALLED_AT, start);
          LONGS.setVolatile(shared, ROUND, (long) round);
          condition.signal();
          if (round > warmup) {
            signal.recordValue(System.nanoTime() - start);
          }
        } finally {
          lock.unlock();
        }
        if (round > warmup) {
          unlocked.recordValue(System.nanoTime() - start);
        }
      }
      String[] result = child.await("result", TIMEOUT).split(" ");
      child.awaitExit(TIMEOUT);
      long spurious = Long.parseLong(result[2]);
      return new Result(
          rounds,
          ping,
          Histograms.decode(result[1]),
          signal,
          unlocked,
          Histograms.decode(floor[2]),
          Histograms.decode(floor[1]),
          spurious,
          spurious == 0 ? "" : spurious + " spurious wake-ups");
    } finally {
      try {
        Files.deleteIfExists(file);
      } catch (IOException e) {
        file.toFile().deleteOnExit();
      }
    }
  }

  /**
   * The floor of a wake-up across JVMs: each round, once the child's thread waits, notes the time
   * and publishes the round's number on a channel the child subscribes to with plain Jedis.
   */
  private static void publishFloor(String uri, MappedByteBuffer shared, int warmup, int rounds) {
    try (RedisClient client = RawLockFloor.client(uri)) {
      for (long round = 1; round <= warmup + rounds; round++) {
        while ((long) LONGS.getVolatile(shared, FLOOR_AWAITING) < round) {
          LockSupport.parkNanos(10_000);
        }
        LONGS.setVolatile(shared, SIGNALLED_AT, System.nanoTime());
        client.publish(FLOOR_CHANNEL, Long.toString(round));
      }
    }
  }

  private static Histogram ping(String uri, int warmup, int rounds) {
    Histogram ping = Sample.newHistogram();
    try (RedisClient client = RawLockFloor.client(uri)) {
      for (int i = 0; i < warmup + rounds; i++) {
        long start = System.nanoTime();
        client.ping();
        if (i >= warmup) {
          ping.recordValue(System.nanoTime() - start);
        }
      }
    }
    return ping;
  }

  private static MappedByteBuffer map(Path file) {
    try (FileChannel channel =
        FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      return channel.map(FileChannel.MapMode.READ_WRITE, 0, SIZE);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot map " + file, e);
    }
  }

  /**
   * The awaiting JVM: {@code uri sharedFile warmupRounds rounds}. Locks, prints {@code ready},
   * awaits each round's signal, and prints {@code result <histogram> <spurious wake-ups>}.
   */
  static final class Awaiter {
    private Awaiter() {}

    public static void main(String[] args) throws Exception {
      int warmup = Integer.parseInt(args[2]);
      int rounds = Integer.parseInt(args[3]);
      MappedByteBuffer shared = map(Path.of(args[1]));
      floor(args[0], shared, warmup, rounds);
      Histogram wake = Sample.newHistogram();
      long spurious;
      try (RedisLockFactory factory = RedisLockFactory.builder().standalone(args[0]).build()) {
        RedisDistributedLock lock = factory.getLock(NAME);
        Condition condition = lock.newCondition();
        lock.lock();
        try {
          System.out.println("ready");
          System.out.flush();
          for (long round = 1; round <= warmup + rounds; round++) {
            LONGS.setVolatile(shared, AWAITING, round);
            while ((long) LONGS.getVolatile(shared, ROUND) < round) {
              condition.await();
            }
            long woken = System.nanoTime();
            if (round > warmup) {
              wake.recordValue(woken - (long) LONGS.getVolatile(shared, SIGNALLED_AT));
            }
          }
        } finally {
          lock.unlock();
        }
        spurious = factory.activity().spuriousWakeUpCount();
      }
      System.out.println("result " + Histograms.encode(wake) + " " + spurious);
      System.out.flush();
      System.exit(0);
    }

    /**
     * The floor's rounds: a Jedis subscriber thread, woken by each message, records its delay and
     * unparks the main thread, which records its own; prints {@code floor <woken> <subscriber>}.
     */
    private static void floor(String uri, MappedByteBuffer shared, int warmup, int rounds)
        throws InterruptedException {
      Histogram subscriber = Sample.newHistogram();
      Histogram woken = Sample.newHistogram();
      Thread main = Thread.currentThread();
      AtomicLong heard = new AtomicLong();
      CountDownLatch subscribed = new CountDownLatch(1);
      JedisPubSub listener =
          new JedisPubSub() {
            @Override
            public void onSubscribe(String channel, int count) {
              subscribed.countDown();
            }

            @Override
            public void onMessage(String channel, String message) {
              long now = System.nanoTime();
              long round = Long.parseLong(message);
              if (round > warmup) {
                subscriber.recordValue(now - (long) LONGS.getVolatile(shared, SIGNALLED_AT));
              }
              heard.set(round);
              LockSupport.unpark(main);
            }
          };
      try (RedisClient client = RawLockFloor.client(uri)) {
        Thread thread = new Thread(() -> client.subscribe(listener, FLOOR_CHANNEL), "floor-sub");
        thread.setDaemon(true);
        thread.start();
        subscribed.await();
        System.out.println("floor-ready");
        System.out.flush();
        for (long round = 1; round <= warmup + rounds; round++) {
          LONGS.setVolatile(shared, FLOOR_AWAITING, round);
          while (heard.get() < round) {
            LockSupport.park();
          }
          if (round > warmup) {
            woken.recordValue(System.nanoTime() - (long) LONGS.getVolatile(shared, SIGNALLED_AT));
          }
        }
        listener.unsubscribe();
        thread.join();
      }
      System.out.println("floor " + Histograms.encode(woken) + " " + Histograms.encode(subscriber));
      System.out.flush();
    }
  }
}
