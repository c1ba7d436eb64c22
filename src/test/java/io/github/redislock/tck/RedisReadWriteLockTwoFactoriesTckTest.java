package io.github.redislock.tck;

import io.github.redislock.testing.IntegrationTest;
import io.github.redislock.testing.LeakCheck;
import io.github.redislock.testing.RedisServer;

/**
 * The port of the TCK's {@code ReentrantReadWriteLockTest} on the library's read-write lock, the
 * threads a test starts using a second factory on the same Redis, as another process would.
 */
@IntegrationTest(
    sharedAcrossTests = LeakCheck.Shared.THREADS,
    because = "the factories are made once for the class (Jsr166Case), closed after its last test")
class RedisReadWriteLockTwoFactoriesTckTest extends ReentrantReadWriteLockPort {
  @Override
  protected LockMaker newMaker() {
    return RedisLocks.twoFactories(RedisServer.start());
  }
}
