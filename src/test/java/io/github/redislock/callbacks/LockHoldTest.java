package io.github.redislock.callbacks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.redislock.LockHold;
import io.github.redislock.RedisDistributedLock;
import io.github.redislock.RedisLockFactory;
import io.github.redislock.RedisReadWriteLock;
import io.github.redislock.testing.IntegrationTest;
import io.github.redislock.testing.RedisInvariants;
import io.github.redislock.testing.RedisServerExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.Jedis;

/**
 * {@code acquire()} and {@code tryAcquire(Duration)}: a {@link LockHold} is the lock held, closed
 * once by the thread that took it; its fencing token is the lock's.
 */
@IntegrationTest
class LockHoldTest {
  @RegisterExtension static final RedisServerExtension redis = new RedisServerExtension();
  private final List<RedisLockFactory> factories = new ArrayList<>();
  private ExecutorService threads;
  private String name;

  @BeforeEach
  void setUp(TestInfo info) {
    name = "hold:" + info.getTestMethod().orElseThrow().getName();
    threads = Executors.newCachedThreadPool();
  }

  @AfterEach
  void tearDown() throws InterruptedException {
    RedisInvariants.closeAfterTest(redis.server(), threads, factories, name);
  }

  private RedisLockFactory factory() {
    RedisLockFactory factory = RedisLockFactory.builder().standalone(redis.server().uri()).build();
    factories.add(factory);
    return factory;
  }

  private boolean keyExists() {
    try (Jedis jedis = redis.server().jedis()) {
      return jedis.exists(name);
    }
  }

  @Test
  void aHoldIsTheLockHeldUntilItIsClosed() {
    RedisDistributedLock lock = factory().getLock(name);
    try (LockHold hold = lock.acquire()) {
      assertThat(hold).isNotNull();
      assertThat(lock.isHeldByCurrentThread()).isTrue();
      assertThat(keyExists()).isTrue();
    }
    assertThat(lock.isHeldByCurrentThread()).isFalse();
    assertThat(keyExists()).isFalse();
  }

  @Test
  void theFencingTokenIsTheLocksAndGrowsFromHoldToHold() {
    RedisDistributedLock lock = factory().getLock(name);
    long first;
    try (LockHold hold = lock.acquire()) {
      first = hold.fencingToken();
      assertThat(first).isPositive().isEqualTo(lock.getFencingToken());
    }
    try (LockHold hold = lock.acquire()) {
      assertThat(hold.fencingToken()).isGreaterThan(first);
    }
  }

  @Test
  void nestedHoldsCountReentrantly() {
    RedisDistributedLock lock = factory().getLock(name);
    try (LockHold outer = lock.acquire()) {
      try (LockHold inner = lock.acquire()) {
        assertThat(lock.getHoldCount()).isEqualTo(2);
      }
      assertThat(lock.getHoldCount()).isOne();
    }
    assertThat(lock.getHoldCount()).isZero();
  }

  @Test
  void closingAHoldTwiceReleasesItOnce() {
    RedisDistributedLock lock = factory().getLock(name);
    lock.lock();
    LockHold hold = lock.acquire();
    hold.close();
    hold.close();
    assertThat(lock.getHoldCount()).as("the outer lock() is still held").isOne();
    lock.unlock();
  }

  @Test
  void aHoldClosedByAnotherThreadThrowsAndStaysHeld() throws Exception {
    RedisDistributedLock lock = factory().getLock(name);
    try (LockHold hold = lock.acquire()) {
      Throwable thrown =
          threads
              .submit(
                  () -> {
                    try {
                      hold.close();
                      return null;
                    } catch (Throwable e) {
                      return e;
                    }
                  })
              .get();
      assertThat(thrown).isExactlyInstanceOf(IllegalMonitorStateException.class);
      assertThat(lock.isHeldByCurrentThread()).isTrue();
      assertThat(keyExists()).isTrue();
    }
    assertThat(keyExists()).isFalse();
  }

  @Test
  void aClosedHoldHasNoFencingToken() {
    RedisDistributedLock lock = factory().getLock(name);
    LockHold hold = lock.acquire();
    hold.close();
    assertThatThrownBy(hold::fencingToken).isInstanceOf(IllegalMonitorStateException.class);
  }

  @Test
  void tryAcquireIsEmptyWhileAnotherProcessHoldsTheLock() throws Exception {
    RedisDistributedLock lock = factory().getLock(name);
    RedisDistributedLock held = factory().getLock(name);
    held.lock();
    try {
      assertThat(lock.tryAcquire(Duration.ofMillis(50))).isEmpty();
      assertThat(lock.tryAcquire(Duration.ZERO)).isEmpty();
      assertThat(lock.isHeldByCurrentThread()).isFalse();
    } finally {
      held.unlock();
    }
  }

  @Test
  void tryAcquireHoldsAFreeLock() throws Exception {
    RedisDistributedLock lock = factory().getLock(name);
    Optional<LockHold> maybe = lock.tryAcquire(Duration.ofSeconds(1));
    assertThat(maybe).isPresent();
    try (LockHold hold = maybe.get()) {
      assertThat(lock.isHeldByCurrentThread()).isTrue();
      assertThat(hold.fencingToken()).isPositive();
    }
    assertThat(keyExists()).isFalse();
  }

  @Test
  void theFairLockAndTheWriteLockGiveHoldsWithFencingTokens() throws Exception {
    RedisLockFactory factory = factory();
    RedisDistributedLock fair = factory.getFairLock(name);
    try (LockHold hold = fair.acquire()) {
      assertThat(hold.fencingToken()).isEqualTo(fair.getFencingToken());
    }
    RedisReadWriteLock rw = factory.getReadWriteLock(name);
    try (LockHold hold = rw.writeLock().acquire()) {
      assertThat(rw.isWriteLockedByCurrentThread()).isTrue();
      assertThat(hold.fencingToken()).isEqualTo(rw.writeLock().getFencingToken());
    }
    assertThat(rw.writeLock().tryAcquire(Duration.ofSeconds(1)).map(this::closed)).hasValue(true);
    assertThat(rw.isWriteLocked()).isFalse();
  }

  @Test
  void aReadHoldSharesTheLockAndHasNoFencingToken() throws Exception {
    RedisReadWriteLock rw = factory().getReadWriteLock(name);
    try (LockHold hold = rw.readLock().acquire()) {
      assertThat(rw.getReadHoldCount()).isOne();
      assertThatThrownBy(hold::fencingToken).isInstanceOf(UnsupportedOperationException.class);
    }
    assertThat(rw.getReadHoldCount()).isZero();
    assertThat(rw.readLock().tryAcquire(Duration.ZERO).map(this::closed)).hasValue(true);
    assertThat(rw.getReadLockCount()).isZero();
  }

  private boolean closed(LockHold hold) {
    hold.close();
    return true;
  }
}
