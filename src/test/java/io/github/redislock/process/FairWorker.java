package io.github.redislock.process;

import io.github.redislock.RedisDistributedLock;
import io.github.redislock.RedisLockFactory;
import io.github.redislock.testing.JvmProcess;
import io.github.redislock.testing.Timing;
import java.net.URI;
import java.time.Duration;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;

/**
 * A {@code main} run in child JVMs by {@link FairProcessTest}: {@code <redisUri> <lockName>
 * <leaseMillis> <id>}. It builds a factory with that lease, prints {@code ready}, takes the fair
 * lock with {@code lock()} (queueing behind whoever holds or waits), and under it checks that
 * nobody else is inside ({@code INCR} {@link #insideKey} must answer 1) and appends its id to the
 * list {@link #orderKey}; then it unlocks, prints {@code done id=I violations=V} and exits 0. Any
 * exception prints its stack trace and exits 1.
 */
public final class FairWorker {
  private static final Duration RAW_TIMEOUT = Duration.ofSeconds(5);

  private FairWorker() {}

  /** Starts a worker in a new JVM. */
  static JvmProcess start(String redisUri, String lockName, Duration lease, int id) {
    return JvmProcess.start(
        FairWorker.class,
        LockWorker.JVM_ARGS,
        redisUri,
        lockName,
        Long.toString(lease.toMillis()),
        Integer.toString(id));
  }

  /** The list of ids, in the order the workers acquired. */
  static String orderKey(String lockName) {
    return lockName + ":order";
  }

  /** The key every critical section {@code INCR}s on entry and {@code DECR}s on exit. */
  static String insideKey(String lockName) {
    return lockName + ":inside";
  }

  /**
   * Entry point.
   *
   * @param args see the class description
   */
  public static void main(String[] args) {
    int code = 0;
    try {
      run(args[0], args[1], Duration.ofMillis(Long.parseLong(args[2])), args[3]);
    } catch (Throwable t) {
      System.out.println("worker failed: " + t);
      t.printStackTrace(System.out);
      code = 1;
    }
    System.out.flush();
    System.exit(code);
  }

  private static void run(String uri, String lockName, Duration lease, String id) {
    int violations = 0;
    try (RedisLockFactory factory =
        RedisLockFactory.builder().standalone(uri).leaseTime(lease).build()) {
      RedisDistributedLock lock = factory.getFairLock(lockName);
      System.out.println("ready");
      System.out.flush();
      lock.lock();
      try (Jedis jedis = connect(uri)) {
        if (jedis.incr(insideKey(lockName)) != 1) {
          violations++;
        }
        jedis.rpush(orderKey(lockName), id);
        jedis.decr(insideKey(lockName));
      } finally {
        lock.unlock();
      }
    }
    System.out.println("done id=" + id + " violations=" + violations);
  }

  /** A raw connection, independent of the lock's client. */
  private static Jedis connect(String redisUri) {
    URI uri = URI.create(redisUri);
    int millis = Math.toIntExact(Timing.scaled(RAW_TIMEOUT).toMillis());
    DefaultJedisClientConfig config =
        DefaultJedisClientConfig.builder()
            .connectionTimeoutMillis(millis)
            .socketTimeoutMillis(millis)
            .build();
    return new Jedis(new HostAndPort(uri.getHost(), uri.getPort()), config);
  }
}
