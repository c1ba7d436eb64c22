package io.github.redislock.keys;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.redislock.RedisDistributedLock;
import io.github.redislock.RedisLockFactory;
import io.github.redislock.RedisReadWriteLock;
import io.github.redislock.internal.backend.ConditionKeys;
import io.github.redislock.internal.backend.LockKeys;
import io.github.redislock.testing.IntegrationTest;
import io.github.redislock.testing.RedisInvariants;
import io.github.redislock.testing.RedisServerExtension;
import io.github.redislock.testing.Timing;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.Jedis;

/**
 * The locks of a name {@code N} and of {@code {N}} (the name in braces: its own hash tag) are two
 * locks, whatever their kind: neither's unlock, signal or read share reaches the other. Each
 * factory stands for a process. The layout behind it is checked by property in {@code
 * KeyLayoutPropertyTest}; these tests show what sharing a key did.
 */
@IntegrationTest
class NamesThatLookAlikeTest {
  @RegisterExtension static final RedisServerExtension redis = new RedisServerExtension();
  private final List<RedisLockFactory> factories = new ArrayList<>();
  private ExecutorService threads;
  private String name;
  private String wrapped;

  @BeforeEach
  void setUp(TestInfo info) {
    name = "alike:" + info.getTestMethod().orElseThrow().getName();
    wrapped = "{" + name + "}";
    threads = Executors.newCachedThreadPool();
  }

  @AfterEach
  void tearDown() throws InterruptedException {
    RedisInvariants.closeAfterTest(redis.server(), threads, factories, name, wrapped);
  }

  private RedisLockFactory factory() {
    RedisLockFactory factory = RedisLockFactory.builder().standalone(redis.server().uri()).build();
    factories.add(factory);
    return factory;
  }

  /** Takes {@code lock}, which nobody holds, without hanging the test if someone does. */
  private static void take(Lock lock) throws InterruptedException {
    assertThat(lock.tryLock(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS))
        .as("the lock is free")
        .isTrue();
  }

  private static long members(String sortedSet) {
    try (Jedis jedis = redis.server().jedis()) {
      return jedis.zcard(sortedSet);
    }
  }

  private static boolean exists(String key) {
    try (Jedis jedis = redis.server().jedis()) {
      return jedis.exists(key);
    }
  }

  @Test
  void aFairUnlockNeverHandsTheLockToAWaiterOfTheNameInBraces() throws Exception {
    RedisDistributedLock other = factory().getFairLock(name);
    RedisDistributedLock holder = factory().getFairLock(wrapped);
    RedisDistributedLock waiter = factory().getFairLock(wrapped);
    AtomicBoolean held = new AtomicBoolean(true);
    take(other);
    take(holder);
    Future<Boolean> waiting =
        threads.submit(
            () -> {
              waiter.lockInterruptibly();
              try {
                return !held.get(); // alone, as a holder must be
              } finally {
                waiter.unlock();
              }
            });
    try {
      String queue = LockKeys.of(wrapped).fairQueue();
      await().atMost(Timing.awaitAtMost()).until(() -> members(queue) == 1);

      other.unlock();

      // That release handed the lock to nobody, or to the waiter at once (taking its place).
      await().atMost(Timing.awaitAtMost()).until(() -> waiting.isDone() || members(queue) == 1);
      assertThat(waiting.isDone())
          .as("the waiter of %s got the lock while another thread held it", wrapped)
          .isFalse();
      assertThat(exists(name)).as("%s is free after its unlock", name).isFalse();
      held.set(false);
    } finally {
      if (holder.isHeldByCurrentThread()) {
        holder.unlock();
      }
    }
    assertThat(waiting.get(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS))
        .as("the waiter took the lock alone")
        .isTrue();
  }

  @Test
  void aSignalAndUnlockNeverWakeAnAwaiterOfTheNameInBraces() throws Exception {
    RedisDistributedLock awaiterLock = factory().getLock(wrapped);
    Condition awaited = awaiterLock.newCondition(); // condition 1 of the name in braces
    AtomicBoolean held = new AtomicBoolean();
    AtomicBoolean signalled = new AtomicBoolean();
    AtomicInteger returns = new AtomicInteger();
    Future<Boolean> awaiting =
        threads.submit(
            () -> {
              awaiterLock.lockInterruptibly();
              try {
                boolean alone = true;
                while (!signalled.get()) {
                  awaited.await();
                  returns.incrementAndGet();
                  alone &= !held.get(); // a holder must be alone
                }
                return alone;
              } finally {
                awaiterLock.unlock();
              }
            });
    ConditionKeys keys = ConditionKeys.of(LockKeys.of(wrapped), "1", true);
    await().atMost(Timing.awaitAtMost()).until(() -> members(keys.queue()) == 1);

    RedisDistributedLock holder = factory().getLock(wrapped);
    Condition ownCondition = holder.newCondition();
    take(holder);
    held.set(true);
    try {
      RedisDistributedLock signaller = factory().getLock(name);
      Condition other = signaller.newCondition(); // condition 1 of the name
      take(signaller);
      try {
        other.signal();
      } finally {
        signaller.unlock();
      }

      // That signal went to nobody (the awaiter still queues, unsignalled), or to the awaiter.
      await()
          .atMost(Timing.awaitAtMost())
          .until(
              () ->
                  returns.get() > 0
                      || (members(keys.queue()) == 1 && members(keys.signalled()) == 0));
      assertThat(returns.get())
          .as("the awaiter of %s returned from await() while another thread held the lock", wrapped)
          .isZero();
      assertThat(members(keys.queue()))
          .as("the awaiter of %s still awaits: a signal of %s is not for it", wrapped, name)
          .isEqualTo(1);

      signalled.set(true);
      ownCondition.signal(); // its own signal wakes it, once this thread lets the lock go
      held.set(false);
    } finally {
      if (holder.isHeldByCurrentThread()) {
        holder.unlock();
      }
    }
    assertThat(awaiting.get(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS))
        .as("the awaiter woke alone")
        .isTrue();
  }

  @Test
  void aReaderNeverCountsAsAReaderOfTheNameInBraces() {
    RedisLockFactory factory = factory();
    RedisReadWriteLock plain = factory.getReadWriteLock(name);
    RedisReadWriteLock inBraces = factory().getReadWriteLock(wrapped);
    assertThat(plain.readLock().tryLock()).isTrue();
    try {
      assertThat(inBraces.getReadLockCount()).as("readers of %s", wrapped).isZero();
      assertThat(factory.inspect(wrapped).readers()).as("readers of %s", wrapped).isZero();
      assertThat(inBraces.writeLock().tryLock())
          .as("the writer of %s gets the lock while %s has a reader", wrapped, name)
          .isTrue();
      try {
        assertThat(plain.getReadLockCount()).as("readers of %s", name).isEqualTo(1);
      } finally {
        inBraces.writeLock().unlock();
      }
    } finally {
      plain.readLock().unlock();
    }
  }
}
