package io.github.redislock.bench;

import java.net.URI;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.LockSupport;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.exceptions.JedisNoScriptException;
import redis.clients.jedis.params.SetParams;
import redis.clients.jedis.util.JedisURIHelper;

/**
 * The raw two-round-trip lock that no Redis lock can beat by much: {@code SET key token NX PX
 * 30000} to acquire (retried after a short jittered pause while the key is busy), one {@code
 * EVALSHA} compare-and-delete to release. No reentrancy, no renewal, no fencing, no wake-ups. Each
 * lock object is used by one thread (the benchmark gives each thread its own).
 *
 * <p>The client is configured as the library configures its own (2 s timeouts, a pool of 64), so
 * that the two differ only by what they do per operation.
 */
final class RawLockFloor implements LockUnderTest {
  private static final String RELEASE =
      "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end"
          + " return 0";
  private static final SetParams ACQUIRE = SetParams.setParams().nx().px(30_000);
  private static final HexFormat HEX = HexFormat.of();

  private final RedisClient client;
  private final String releaseSha;
  private final long backoffNanos;

  RawLockFloor(String uri, int backoffMicros) {
    this.client = client(uri);
    this.releaseSha = client.scriptLoad(RELEASE);
    this.backoffNanos = backoffMicros * 1000L;
  }

  /** A pooled Jedis 8 client as the library builds one: 2 s timeouts, up to 64 connections. */
  static RedisClient client(String uri) {
    int timeout = (int) Duration.ofSeconds(2).toMillis();
    ConnectionPoolConfig pool = new ConnectionPoolConfig();
    pool.setMaxTotal(64);
    pool.setMaxIdle(64);
    pool.setMinIdle(0);
    pool.setJmxEnabled(false);
    return RedisClient.builder()
        .hostAndPort(JedisURIHelper.getHostAndPort(URI.create(uri)))
        .clientConfig(
            DefaultJedisClientConfig.builder()
                .socketTimeoutMillis(timeout)
                .connectionTimeoutMillis(timeout)
                .clientName("bench-floor")
                .build())
        .poolConfig(pool)
        .build();
  }

  @Override
  public Lock newLock(String name) {
    return new RawLock(name);
  }

  @Override
  public void close() {
    client.close();
  }

  private final class RawLock extends FloorLock {
    private final String key;
    private String token;

    RawLock(String key) {
      this.key = key;
    }

    @Override
    public void lock() {
      String candidate = newToken();
      while (!"OK".equals(client.set(key, candidate, ACQUIRE))) {
        pause();
      }
      token = candidate;
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
      String candidate = newToken();
      while (!"OK".equals(client.set(key, candidate, ACQUIRE))) {
        pause();
        if (Thread.interrupted()) {
          throw new InterruptedException();
        }
      }
      token = candidate;
    }

    @Override
    public void unlock() {
      if (token == null) {
        throw new IllegalMonitorStateException("not held: " + key);
      }
      try {
        client.evalsha(releaseSha, List.of(key), List.of(token));
      } catch (JedisNoScriptException e) {
        client.eval(RELEASE, List.of(key), List.of(token));
      } finally {
        token = null;
      }
    }

    private void pause() {
      ThreadLocalRandom random = ThreadLocalRandom.current();
      LockSupport.parkNanos(backoffNanos / 2 + random.nextLong(backoffNanos + 1));
    }

    private String newToken() {
      ThreadLocalRandom random = ThreadLocalRandom.current();
      return HEX.toHexDigits(random.nextLong()) + HEX.toHexDigits(random.nextLong());
    }
  }
}
