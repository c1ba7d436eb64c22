package io.github.redislock.tck;

import io.github.redislock.testing.IntegrationTest;
import io.github.redislock.testing.RedisServer;

/**
 * The port of the TCK's {@code ReentrantReadWriteLockTest} on the library's read-write lock, every
 * thread of a test using one factory.
 */
@IntegrationTest
class RedisReadWriteLockOneFactoryTckTest extends ReentrantReadWriteLockPort {
  @Override
  protected LockMaker newMaker() {
    return RedisLocks.oneFactory(RedisServer.start());
  }
}
