package io.github.redislock.inspect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.github.redislock.LockInfo;
import io.github.redislock.LockLostEvent;
import io.github.redislock.LockLostException;
import io.github.redislock.RedisDistributedLock;
import io.github.redislock.RedisLockException;
import io.github.redislock.RedisLockFactory;
import io.github.redislock.contract.RedlockDeployment;
import io.github.redislock.testing.IntegrationTest;
import io.github.redislock.testing.RedisServer;
import io.github.redislock.testing.Timing;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import redis.clients.jedis.Jedis;

/**
 * {@code inspect} and {@code forceUnlock} under Redlock over three masters: the majority's view,
 * and a deletion on every master.
 */
@IntegrationTest
class RedlockInspectTest {
  private RedlockDeployment masters;
  private final List<RedisLockFactory> factories = new ArrayList<>();
  private final List<LockLostEvent> lost = new CopyOnWriteArrayList<>();
  private String name;

  @BeforeEach
  void setUp(TestInfo info) {
    masters = new RedlockDeployment(3);
    name = "redlock-inspect:" + info.getTestMethod().orElseThrow().getName();
  }

  @AfterEach
  void tearDown() throws InterruptedException {
    try {
      for (RedisLockFactory factory : factories) {
        factory.close();
      }
    } finally {
      masters.close(); // LeakCheck inspects each server as it stops
    }
  }

  private RedisLockFactory factory(Duration lease) {
    RedisLockFactory factory =
        masters.builder().leaseTime(lease).describeHolders().onLockLost(lost::add).build();
    factories.add(factory);
    return factory;
  }

  private void deleteOn(int master) {
    try (Jedis jedis = masters.servers().get(master).jedis()) {
      jedis.del(name);
    }
  }

  @Test
  void aLockIsHeldWhileAMajorityOfMastersHoldsIt() {
    RedisLockFactory factory = factory(Duration.ofSeconds(30));
    RedisDistributedLock lock = factory.getLock(name);
    lock.lock();
    try {
      long token = lock.getFencingToken();
      LockInfo info = factory.inspect(name);
      assertThat(info.isLocked()).isTrue();
      assertThat(info.remainingLease()).isPresent();
      assertThat(info.fencingCounter()).isEqualTo(token);
      assertThat(info.holder())
          .hasValueSatisfying(
              who -> assertThat(who.pid()).isEqualTo(ProcessHandle.current().pid()));
      deleteOn(0);
      assertThat(factory.inspect(name).isLocked()).as("two of three still hold it").isTrue();
      deleteOn(1);
      LockInfo minority = factory.inspect(name);
      assertThat(minority.isLocked()).as("one of three is no majority").isFalse();
      assertThat(minority.holder()).isEmpty();
      assertThat(minority.fencingCounter()).isEqualTo(token);
    } finally {
      assertThatThrownBy(lock::unlock).isInstanceOf(LockLostException.class);
    }
  }

  @Test
  void forceUnlockDeletesTheLockOnEveryMasterAndTheHolderLearnsIt() {
    RedisDistributedLock lock = factory(Timing.scaled(Duration.ofMillis(900))).getLock(name);
    lock.lock();
    RedisLockFactory operator = factory(Duration.ofSeconds(30));
    assertThat(operator.forceUnlock(name)).isTrue();
    for (RedisServer server : masters.servers()) {
      try (Jedis jedis = server.jedis()) {
        assertThat(jedis.exists(name)).isFalse();
      }
    }
    assertThat(operator.forceUnlock(name)).isFalse();
    await().atMost(Timing.awaitAtMost()).until(() -> !lost.isEmpty());
    assertThatThrownBy(lock::unlock).isInstanceOf(LockLostException.class);
  }

  @Test
  void inspectNeedsAMajorityOfMasters() {
    RedisLockFactory factory = factory(Duration.ofSeconds(30));
    masters.servers().get(0).kill();
    assertThat(factory.inspect(name).isLocked()).isFalse();
    masters.servers().get(1).kill();
    assertThatThrownBy(() -> factory.inspect(name)).isInstanceOf(RedisLockException.class);
    assertThatThrownBy(() -> factory.forceUnlock(name)).isInstanceOf(RedisLockException.class);
  }
}
