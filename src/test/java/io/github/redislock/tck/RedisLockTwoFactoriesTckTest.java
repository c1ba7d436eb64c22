package io.github.redislock.tck;

import io.github.redislock.testing.IntegrationTest;
import io.github.redislock.testing.LeakCheck;
import io.github.redislock.testing.RedisServer;

/**
 * The port of the TCK's {@code ReentrantLockTest} on the library's plain and fair locks, the
 * threads a test starts using a second factory on the same Redis, as another process would.
 */
@IntegrationTest(
    sharedAcrossTests = LeakCheck.Shared.THREADS,
    because = "the factories are made once for the class (Jsr166Case), closed after its last test")
class RedisLockTwoFactoriesTckTest extends ReentrantLockPort {
  @Override
  protected LockMaker newMaker() {
    return RedisLocks.twoFactories(RedisServer.start());
  }
}
