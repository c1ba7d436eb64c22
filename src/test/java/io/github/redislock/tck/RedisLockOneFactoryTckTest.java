package io.github.redislock.tck;

import io.github.redislock.testing.IntegrationTest;
import io.github.redislock.testing.RedisServer;

/**
 * The port of the TCK's {@code ReentrantLockTest} on the library's plain and fair locks, every
 * thread of a test using one factory.
 */
@IntegrationTest
class RedisLockOneFactoryTckTest extends ReentrantLockPort {
  @Override
  protected LockMaker newMaker() {
    return RedisLocks.oneFactory(RedisServer.start());
  }
}
