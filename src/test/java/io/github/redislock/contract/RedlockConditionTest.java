package io.github.redislock.contract;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.redislock.RedisDistributedLock;
import io.github.redislock.RedisLockFactory;
import io.github.redislock.testing.IntegrationTest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Redlock has no conditions: a single order of awaiters, and a signal that is never lost, need one
 * linearizable copy of the queue, which independent masters do not give (docs/conditions.md).
 */
@IntegrationTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RedlockConditionTest {
  private RedlockDeployment deployment;

  @BeforeAll
  void start() {
    deployment = new RedlockDeployment(3);
  }

  @AfterAll
  void stop() {
    deployment.close();
  }

  @Test
  void newConditionThrowsUnsupportedOperationWithTheReason() {
    try (RedisLockFactory factory = deployment.builder().build()) {
      RedisDistributedLock lock = factory.getLock("redlock:condition");
      assertThatThrownBy(lock::newCondition)
          .isInstanceOf(UnsupportedOperationException.class)
          .hasMessageContaining("Redlock");
      assertThatThrownBy(() -> lock.newCondition("named"))
          .isInstanceOf(UnsupportedOperationException.class);
    }
  }
}
