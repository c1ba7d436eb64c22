package io.github.redislock.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import io.github.redislock.LockLostEvent;
import io.github.redislock.LockLostException;
import io.github.redislock.RedisDistributedLock;
import io.github.redislock.RedisLockException;
import io.github.redislock.RedisLockFactory;
import io.github.redislock.testing.IntegrationTest;
import io.github.redislock.testing.RedisServer;
import io.github.redislock.testing.Timing;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.params.SetParams;

/** Redlock over five real masters, some killed, paused or held by someone else. */
@IntegrationTest
class RedlockFaultsTest {
  private static final List<RedisServer> masters = new ArrayList<>();
  private final List<RedisLockFactory> factories = new ArrayList<>();
  private ExecutorService threads;
  private String name;

  @BeforeAll
  static void start() {
    for (int i = 0; i < 5; i++) {
      masters.add(RedisServer.start());
    }
  }

  @AfterAll
  static void stop() {
    masters.forEach(RedisServer::close);
    masters.clear();
  }

  @BeforeEach
  void setUp(TestInfo info) {
    name = "redlock:" + info.getTestMethod().orElseThrow().getName();
    threads = Executors.newCachedThreadPool();
  }

  @AfterEach
  void tearDown() throws InterruptedException {
    for (RedisServer master : masters) {
      if (master.isPaused()) {
        master.resume();
      }
      if (!master.isRunning()) {
        master.restart();
      }
    }
    threads.shutdownNow();
    assertThat(threads.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    factories.forEach(RedisLockFactory::close);
  }

  private RedisLockFactory factory() {
    return factory(builder -> {});
  }

  private RedisLockFactory factory(Consumer<RedisLockFactory.Builder> settings) {
    RedisLockFactory.Builder builder =
        RedisLockFactory.builder()
            .redlock(masters.stream().map(RedisServer::uri).toArray(String[]::new))
            .redlockNodeTimeout(Timing.scaled(Duration.ofMillis(100)));
    settings.accept(builder);
    RedisLockFactory factory = builder.build();
    factories.add(factory);
    return factory;
  }

  /**
   * Every connection to every master killed while the lock is held (a restarted proxy, an
   * operator's {@code CLIENT KILL}): the release finds its pooled connections dead. It may have run
   * on none of them, so it goes again on new ones, and their "released" confirms it: unlock()
   * returns, and the key is gone everywhere.
   */
  @Test
  void anUnlockAfterEveryConnectionWasKilledIsConfirmedByItsResend() {
    RedisDistributedLock lock = factory().getLock(name);
    lock.lock();
    for (RedisServer master : masters) {
      try (Jedis jedis = master.jedis()) {
        jedis.sendCommand(
            redis.clients.jedis.Protocol.Command.CLIENT, "KILL", "TYPE", "normal", "SKIPME", "yes");
      }
    }

    assertThatCode(lock::unlock).doesNotThrowAnyException();

    await("the key gone from every master (the last resends may still be on their way)")
        .atMost(Timing.awaitAtMost())
        .until(() -> masters.stream().noneMatch(this::holdsTheKey));
  }

  private boolean holdsTheKey(RedisServer master) {
    try (Jedis jedis = master.jedis()) {
      return jedis.exists(name);
    }
  }

  /** The companion hash (fencing counter) of {@link #name}. */
  private String counterKey() {
    return "{" + name + "}:lock-meta";
  }

  /** Sets master {@code index}'s fencing counter of {@link #name}, for a minute. */
  private void setCounter(int index, long counter) {
    try (Jedis jedis = masters.get(index).jedis()) {
      jedis.hset(counterKey(), "c", Long.toString(counter));
      jedis.pexpire(counterKey(), 60_000);
    }
  }

  private String valueOn(int master) {
    try (Jedis jedis = masters.get(master).jedis()) {
      return jedis.get(name);
    }
  }

  @Test
  void twoOfFiveMastersKilledStillLock() {
    masters.get(0).kill();
    masters.get(3).kill();
    RedisDistributedLock lock = factory().getLock(name);
    assertThat(lock.tryLock()).isTrue();
    assertThat(lock.getFencingToken()).isPositive();
    lock.unlock();
  }

  @Test
  void threeOfFiveMastersKilledIsARedisLockExceptionUntilTheyAreBack() {
    masters.get(0).kill();
    masters.get(2).kill();
    masters.get(4).kill();
    RedisDistributedLock lock = factory().getLock(name);
    assertThatThrownBy(lock::tryLock)
        .isInstanceOf(RedisLockException.class)
        .hasMessageContaining("majority");
    masters.get(0).restart();
    masters.get(2).restart();
    masters.get(4).restart();
    assertThat(lock.tryLock()).isTrue();
    lock.unlock();
  }

  @Test
  void everyClogPatternAcquiresExactlyWhenAMajorityIsFree() {
    RedisDistributedLock lock = factory().getLock(name);
    for (int clogged = 0; clogged < 32; clogged++) {
      int mask = clogged;
      for (int i = 0; i < 5; i++) {
        if ((mask & (1 << i)) != 0) {
          try (Jedis jedis = masters.get(i).jedis()) {
            jedis.set(name, "someone-else", SetParams.setParams().px(60_000));
          }
        }
      }
      boolean majorityFree = Integer.bitCount(mask) <= 2;
      assertThat(lock.tryLock())
          .as("clogged nodes %s", Integer.toBinaryString(mask))
          .isEqualTo(majorityFree);
      if (majorityFree) {
        lock.unlock();
      }
      for (int i = 0; i < 5; i++) {
        int master = i;
        if ((mask & (1 << i)) == 0) {
          await("free node " + i + " after pattern " + Integer.toBinaryString(mask))
              .atMost(Timing.awaitAtMost())
              .until(() -> valueOn(master) == null);
        } else {
          assertThat(valueOn(i)).isEqualTo("someone-else");
          try (Jedis jedis = masters.get(i).jedis()) {
            jedis.del(name);
          }
        }
      }
    }
  }

  @Test
  void onePausedMasterDoesNotStopAcquisition() {
    masters.get(1).pause();
    RedisDistributedLock lock = factory().getLock(name);
    assertThat(lock.tryLock()).isTrue();
    lock.unlock();
    masters.get(1).resume();
  }

  @Test
  void pausedMajorityEndsATimedTryLockByItsDeadlineAndLeavesNoKey() throws Exception {
    RedisDistributedLock lock = factory().getLock(name);
    masters.get(0).pause();
    masters.get(1).pause();
    masters.get(2).pause();
    Future<Boolean> attempt = threads.submit(() -> lock.tryLock(500, TimeUnit.MILLISECONDS));
    await().atMost(Timing.scaled(Duration.ofMillis(1500))).until(attempt::isDone);
    assertThatThrownBy(attempt::get)
        .isInstanceOf(ExecutionException.class)
        .hasCauseInstanceOf(RedisLockException.class);
    masters.get(0).resume();
    masters.get(1).resume();
    masters.get(2).resume();
    for (int i = 0; i < 5; i++) {
      int master = i;
      await().atMost(Timing.awaitAtMost()).until(() -> valueOn(master) == null);
    }
  }

  @Test
  void fencingTokensIncreaseAcrossHoldersOnDifferentMajorities() {
    long ahead = System.currentTimeMillis() * 1000 + TimeUnit.DAYS.toMicros(365);
    setCounter(0, ahead); // master 0's counter runs far ahead (as after a clock jump there)
    masters.get(3).kill(); // the first majority must be masters 0-2, and take master 0's count
    masters.get(4).kill();
    RedisDistributedLock first = factory().getLock(name);
    first.lock();
    long firstToken = first.getFencingToken();
    first.unlock();
    assertThat(firstToken).isGreaterThan(ahead);

    masters.get(3).restart();
    masters.get(4).restart();
    masters.get(0).kill(); // the next majority cannot ask master 0
    RedisDistributedLock second = factory().getLock(name);
    second.lock();
    long secondToken = second.getFencingToken();
    second.unlock();
    assertThat(secondToken).isGreaterThan(firstToken);
  }

  @Test
  void aHolderWhoseKeyVanishedFromAMajorityGetsNoTokenAboveTheNextHolders() {
    // Master 0's counter runs a year ahead (as after a clock jump there).
    setCounter(0, System.currentTimeMillis() * 1000 + TimeUnit.DAYS.toMicros(365));
    List<LockLostEvent> lost = new CopyOnWriteArrayList<>();
    RedisLockFactory factoryOfA = factory(builder -> builder.onLockLost(lost::add));
    RedisDistributedLock warmUp = factoryOfA.getLock(name + ":warm-up");
    warmUp.lock();
    warmUp.getFencingToken(); // from now on A's factory issues a token with every acquisition
    warmUp.unlock();

    RedisDistributedLock holderA = factoryOfA.getLock(name);
    holderA.lock();
    for (int i = 0; i < 5; i++) {
      int master = i;
      await().atMost(Timing.awaitAtMost()).until(() -> valueOn(master) != null);
    }
    for (int i = 1; i < 5; i++) { // early expiry, or restarts without persistence
      try (Jedis jedis = masters.get(i).jedis()) {
        jedis.del(name);
      }
    }
    RedisDistributedLock holderB = factory().getLock(name);
    holderB.lock();
    long tokenOfB = holderB.getFencingToken();

    long[] tokenOfA = {0};
    Throwable thrown = catchThrowable(() -> tokenOfA[0] = holderA.getFencingToken());
    assertThat(thrown)
        .as("holder A's token %d, after holder B got %d", tokenOfA[0], tokenOfB)
        .isInstanceOf(LockLostException.class);
    await().atMost(Timing.awaitAtMost()).until(() -> !lost.isEmpty());
    assertThat(lost)
        .singleElement()
        .satisfies(
            event -> {
              assertThat(event.lockName()).isEqualTo(name);
              assertThat(event.fencingToken()).isLessThan(tokenOfB);
            });
    assertThatThrownBy(holderA::unlock).isInstanceOf(LockLostException.class);
    holderB.unlock();
  }

  @Test
  void unlockThatOnlyAMinorityConfirmsThrowsRedisLockExceptionAndClearsTheLocalHold() {
    RedisDistributedLock lock = factory().getLock(name);
    lock.lock();
    for (int i = 0; i < 5; i++) {
      int master = i;
      await().atMost(Timing.awaitAtMost()).until(() -> valueOn(master) != null);
    }
    masters.get(0).kill();
    masters.get(2).kill();
    masters.get(4).kill();
    assertThatThrownBy(lock::unlock)
        .isInstanceOf(RedisLockException.class)
        .isNotInstanceOf(LockLostException.class)
        .cause()
        .hasMessageContaining("majority")
        .hasMessageContaining(masters.get(0).uri());
    assertThat(lock.isHeldByCurrentThread()).isFalse();
    assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class);
    assertThat(valueOn(1)).as("released where reachable").isNull();
    assertThat(valueOn(3)).as("released where reachable").isNull();
  }

  @Test
  void unlockOfAHoldOnABareMajorityThatLostAMasterThrowsRedisLockException() {
    for (int i = 3; i < 5; i++) { // another owner holds masters 3 and 4: 0-2 grant the hold
      try (Jedis jedis = masters.get(i).jedis()) {
        jedis.set(name, "someone-else", SetParams.setParams().px(60_000));
      }
    }
    RedisDistributedLock lock = factory().getLock(name);
    lock.lock();
    masters.get(2).kill();
    // Masters 0 and 1 confirm, 3 and 4 never held it, 2 does not answer: 2 of 5 confirmed. A
    // second try must not take 0 and 1's "not ours" (they were just released) for a lost hold.
    assertThatThrownBy(lock::unlock)
        .isInstanceOf(RedisLockException.class)
        .isNotInstanceOf(LockLostException.class);
    assertThat(lock.isHeldByCurrentThread()).isFalse();
  }

  @Test
  void unlockOfAHoldKnownLostThrowsLockLostEvenWithNoMasterReachable() {
    RedisDistributedLock lock =
        factory(builder -> builder.leaseTime(Duration.ofMillis(600))).getLock(name);
    lock.lock();
    for (RedisServer master : masters) {
      try (Jedis jedis = master.jedis()) {
        jedis.del(name);
      }
    }
    await()
        .atMost(Timing.awaitAtMost())
        .pollInSameThread()
        .until(() -> !lock.isHeldByCurrentThread());
    masters.forEach(RedisServer::kill);
    assertThatThrownBy(lock::unlock).isInstanceOf(LockLostException.class);
  }

  @Test
  void aReleaseOnAnyMasterWakesAWaiter() throws Exception {
    RedisLockFactory factory = factory();
    RedisDistributedLock held = factory().getLock(name);
    held.lock();
    Future<Boolean> waiter =
        threads.submit(
            () -> {
              RedisDistributedLock lock = factory.getLock(name);
              lock.lock();
              lock.unlock();
              return true;
            });
    await()
        .atMost(Timing.awaitAtMost())
        .until(
            () -> {
              try (Jedis jedis = masters.get(0).jedis()) {
                return jedis.pubsubNumSub("{" + name + "}:lock-wake").values().stream()
                    .anyMatch(count -> count > 0);
              }
            });
    held.unlock();
    assertThat(waiter.get(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS)).isTrue();
  }
}
