package io.github.redislock.tck;

import io.github.redislock.testing.IntegrationTest;
import io.github.redislock.testing.RedisServer;

/**
 * The port of the TCK's {@code ReentrantLockTest} on the library's plain and fair locks, the
 * threads a test starts using a second factory on the same Redis, as another process would.
 */
@IntegrationTest
class RedisLockTwoFactoriesTckTest extends ReentrantLockPort {
  @Override
  protected LockMaker newMaker() {
    return RedisLocks.twoFactories(RedisServer.start());
  }
}
