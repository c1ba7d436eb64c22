package io.github.redislock.bench;

import java.util.concurrent.locks.Lock;
import redis.clients.jedis.RedisClient;

/**
 * The floor of one round trip: {@code lock()} is one {@code PING} on a Jedis 8 {@code RedisClient},
 * {@code unlock()} does nothing. Not a lock (it excludes nobody): it runs only where exclusion is
 * not checked.
 */
final class PingFloor implements LockUnderTest {
  private final RedisClient client;

  PingFloor(String uri) {
    this.client = RawLockFloor.client(uri);
  }

  @Override
  public Lock newLock(String name) {
    return new FloorLock() {
      @Override
      public void lock() {
        client.ping();
      }

      @Override
      public void lockInterruptibly() {
        client.ping();
      }

      @Override
      public void unlock() {}
    };
  }

  @Override
  public void close() {
    client.close();
  }
}
