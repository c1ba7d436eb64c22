package io.github.redislock.contract;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.redislock.RedisLockFactory;
import io.github.redislock.testing.IntegrationTest;
import org.junit.jupiter.api.Test;

/**
 * Read-write locks are refused under Redlock, with a clear exception that points at the argument
 * (docs/read-write.md), and the refusal leaves the factory usable.
 */
@IntegrationTest
class RedlockReadWriteLockTest {
  @Test
  void getReadWriteLockIsRefusedUnderRedlock() {
    try (RedlockDeployment deployment = new RedlockDeployment(3);
        RedisLockFactory factory = deployment.builder().build()) {
      assertThatThrownBy(() -> factory.getReadWriteLock("rw"))
          .isInstanceOf(UnsupportedOperationException.class)
          .hasMessageContaining("docs/read-write.md");
      assertThatThrownBy(() -> factory.getReadWriteLock(null))
          .isInstanceOf(NullPointerException.class);
      var lock = factory.getLock("rw");
      lock.lock();
      lock.unlock();
    }
  }
}
