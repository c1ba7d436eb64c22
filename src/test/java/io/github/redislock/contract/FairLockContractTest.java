package io.github.redislock.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.github.redislock.LockLostException;
import io.github.redislock.RedisDistributedLock;
import io.github.redislock.RedisLockFactory;
import io.github.redislock.testing.Timing;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * The {@code Lock} contract for fair locks ({@code getFairLock}): every property of {@link
 * LockContractTest}, and what fairness adds ({@link Fairness}), on the deployment a subclass names.
 * Factories of one test stand for processes (each has its own connections and subscriptions); the
 * tests across real JVMs are {@code FairProcessTest}.
 */
public abstract class FairLockContractTest extends LockContractTest {

  @Override
  protected RedisDistributedLock lockOf(RedisLockFactory factory, String name) {
    return factory.getFairLock(name);
  }

  /** The key of the lock's queue: waiter id to place. */
  String queueKey() {
    return "{" + name() + "}:lock-fq";
  }

  /** The key of the queue's leases: waiter id to the server time its place runs out. */
  String leasesKey() {
    return "{" + name() + "}:lock-ft";
  }

  long queued() {
    try (Jedis jedis = deployment().raw(name())) {
      return jedis.zcard(queueKey());
    }
  }

  void awaitQueued(long places) {
    await().atMost(Timing.awaitAtMost()).until(() -> queued() == places);
  }

  /** A waiter on its own thread: takes the lock with {@code lock()}, notes {@code me}, unlocks. */
  Waiter<Void> waiter(RedisDistributedLock lock, List<Integer> order, int me) {
    return startWaiter(
        () -> {
          lock.lock();
          try {
            order.add(me);
          } finally {
            lock.unlock();
          }
          return null;
        });
  }

  static void awaitAll(List<Waiter<Void>> waiters) throws Exception {
    for (Waiter<Void> waiter : waiters) {
      waiter.get(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS);
    }
  }

  @Nested
  class Fairness {
    @Test
    void waitersOfEveryFactoryAcquireInTheOrderTheyReachedRedis() throws Exception {
      Holder holder = holdInOtherThread(lock());
      List<Integer> order = new CopyOnWriteArrayList<>();
      List<Waiter<Void>> waiters = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        waiters.add(waiter(lock(), order, i)); // lock() builds a factory: a process each
        awaitQueued(i + 1);
      }
      holder.release();
      awaitAll(waiters);
      assertThat(order).containsExactly(0, 1, 2, 3);
      assertThat(queued()).isZero();
    }

    @Test
    void aThreadOfTheHoldersProcessQueuesBehindWaitersThatReachedRedisBeforeIt() throws Exception {
      RedisLockFactory holders = factory();
      Holder holder = holdInOtherThread(lockOf(holders, name()));
      List<Integer> order = new CopyOnWriteArrayList<>();
      Waiter<Void> elsewhere = waiter(lock(), order, 0);
      awaitQueued(1);
      Waiter<Void> here = waiter(lockOf(holders, name()), order, 1);
      here.awaitWaiting(); // queued in its process, behind the holder: no handoff to it
      holder.release();
      awaitAll(List.of(elsewhere, here));
      assertThat(order).containsExactly(0, 1);
    }

    @Test
    void lockAfterAFailedTryLockQueuesBehindTheWaitersBeforeIt() throws Exception {
      Holder holder = holdInOtherThread(lock());
      List<Integer> order = new CopyOnWriteArrayList<>();
      Waiter<Void> first = waiter(lock(), order, 0);
      awaitQueued(1);
      RedisDistributedLock second = lock();
      Waiter<Void> late =
          startWaiter(
              () -> {
                if (!second.tryLock()) {
                  second.lock();
                }
                try {
                  order.add(1);
                } finally {
                  second.unlock();
                }
                return null;
              });
      awaitQueued(2);
      holder.release();
      awaitAll(List.of(first, late));
      assertThat(order).containsExactly(0, 1);
    }

    @Test
    void aTimedWaiterThatGivesUpLeavesTheQueueAtOnce() throws Exception {
      Holder holder = holdInOtherThread(lock());
      RedisDistributedLock lock = lock();
      Waiter<Boolean> timed =
          startWaiter(
              () ->
                  lock.tryLock(
                      Timing.scaled(Duration.ofMillis(300)).toMillis(), TimeUnit.MILLISECONDS));
      awaitQueued(1);
      assertThat(timed.get(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS)).isFalse();
      awaitQueued(0);
      holder.release();
    }

    @Test
    void anInterruptedWaiterLeavesTheQueueAtOnce() throws Exception {
      Holder holder = holdInOtherThread(lock());
      RedisDistributedLock lock = lock();
      Waiter<Throwable> result =
          startWaiter(
              () -> {
                try {
                  lock.lockInterruptibly();
                  return null;
                } catch (InterruptedException e) {
                  return e;
                }
              });
      awaitQueued(1);
      result.thread().interrupt();
      assertThat(result.get(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS))
          .isInstanceOf(InterruptedException.class);
      awaitQueued(0);
      holder.release();
    }

    @Test
    void tryLockBargesWhileTryLockWithZeroTimeoutWaitsItsTurn() throws Exception {
      // A waiter queued by hand, as one whose process froze right after queueing: the lock is
      // free, and it is first.
      try (Jedis jedis = deployment().raw(name())) {
        List<String> time = jedis.time();
        long nowMillis = Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
        jedis.zadd(queueKey(), 1, "frozen");
        jedis.zadd(leasesKey(), nowMillis + 60_000, "frozen");
        jedis.pexpire(queueKey(), 120_000);
        jedis.pexpire(leasesKey(), 120_000);
      }
      RedisDistributedLock lock = lock();
      assertThat(lock.tryLock(0, TimeUnit.SECONDS)).isFalse();
      assertThat(lock.tryLock()).isTrue();
      lock.unlock();
      assertThat(rawGet(name())).as("handed to the first waiter").isEqualTo("frozen");
      onCopies(name(), jedis -> jedis.del(name()));
    }

    @Test
    void everyKeyOfAFairLockIsInItsSlotOnItsNodeAndExpires() throws Exception {
      Holder holder = holdInOtherThread(lock());
      List<Integer> order = new CopyOnWriteArrayList<>();
      Waiter<Void> waiter = waiter(lock(), order, 0);
      awaitQueued(1);
      String channel = "{" + name() + "}:lock-wake";
      for (String key : List.of(queueKey(), leasesKey(), channel)) {
        assertThat(JedisClusterCRC16.getSlot(key))
            .as("slot of %s", key)
            .isEqualTo(JedisClusterCRC16.getSlot(name()));
      }
      try (Jedis jedis = deployment().raw(name())) { // the node that serves the lock key
        assertThat(jedis.exists(name())).isTrue();
        for (String key : List.of(queueKey(), leasesKey())) {
          assertThat(jedis.pttl(key)).as("time to live of %s", key).isPositive();
        }
      }
      holder.release();
      awaitAll(List.of(waiter));
      try (Jedis jedis = deployment().raw(name())) {
        assertThat(jedis.exists(queueKey(), leasesKey())).as("queue keys left").isZero();
      }
    }

    @Test
    void waitersQueueAgainAndAllAcquireOneAtATimeWhenRedisRestartsEmpty() throws Exception {
      // A lease that survives a slow spell of a busy machine while the waiters queue, and short
      // enough for its renewal to find the hold gone soon after the restart.
      Duration lease = Timing.scaled(Duration.ofSeconds(3));
      RedisDistributedLock holder = lockOf(factory(b -> b.leaseTime(lease)), name());
      holder.lock();
      AtomicInteger inside = new AtomicInteger();
      AtomicInteger overlaps = new AtomicInteger();
      List<Waiter<Void>> waiters = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        RedisDistributedLock lock = lock();
        waiters.add(
            startWaiter(
                () -> {
                  lock.lock();
                  try {
                    if (inside.incrementAndGet() != 1) {
                      overlaps.incrementAndGet();
                    }
                    inside.decrementAndGet();
                  } finally {
                    lock.unlock();
                  }
                  return null;
                }));
        awaitQueued(i + 1);
      }
      deployment().stop();
      deployment().restart();
      awaitAll(waiters);
      assertThat(overlaps).hasValue(0);
      await()
          .atMost(Timing.awaitAtMost())
          .pollInSameThread()
          .until(() -> !holder.isHeldByCurrentThread());
      assertThatThrownBy(holder::unlock).isInstanceOf(LockLostException.class);
    }

    @Test
    void badNamesAreRefusedAtOnceAndLeaveNothingBehind() {
      RedisLockFactory factory = factory();
      assertThatThrownBy(() -> factory.getFairLock(null)).isInstanceOf(NullPointerException.class);
      assertThatThrownBy(() -> factory.getFairLock(""))
          .isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> factory.getFairLock("{" + name() + "}:lock-fq"))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining(":lock-");
      try (Jedis jedis = deployment().raw(name())) {
        assertThat(jedis.dbSize()).isZero();
      }
    }
  }
}
