package io.github.redislock.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.github.redislock.RedisDistributedLock;
import io.github.redislock.RedisLockFactory;
import io.github.redislock.testing.IntegrationTest;
import io.github.redislock.testing.LeakCheck;
import io.github.redislock.testing.RedisServer;
import io.github.redislock.testing.TcpProxy;
import io.github.redislock.testing.Timing;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import redis.clients.jedis.Jedis;

/**
 * A master that stops answering: a dead, frozen or black-holed master costs a Redlock operation at
 * most about the node timeout, connection set-up included, never delays the other masters, and is
 * not reconnected on every operation. These are liveness bounds the Redlock transport promises
 * (docs/redlock.md), so they are timed, generously: each allows several times what twenty
 * operations cost if the bad master took the whole node timeout in every one of them (before the
 * fix, ten pairs took ten seconds).
 */
@IntegrationTest
class RedlockFrozenMasterTest {
  private static final Duration NODE_TIMEOUT = Duration.ofMillis(50);
  private static final int PAIRS = 10;

  /** Twenty operations at the node timeout each are one second; this allows 2.5. */
  private static final Duration TEN_PAIRS = Timing.scaled(Duration.ofMillis(2_500));

  private final List<RedisServer> masters = new ArrayList<>();
  private final List<TcpProxy> proxies = new ArrayList<>();
  private RedisLockFactory factory;
  private String name;

  @BeforeEach
  void start(TestInfo info) {
    name = "frozen:" + info.getTestMethod().orElseThrow().getName();
    for (int i = 0; i < 5; i++) {
      RedisServer master = RedisServer.start();
      masters.add(master);
      proxies.add(LeakCheck.closeAfterCheck(TcpProxy.start(master.port())));
    }
  }

  @AfterEach
  void stop() {
    proxies.forEach(TcpProxy::unstall);
    for (RedisServer master : masters) {
      master.resume();
    }
    if (factory != null) {
      factory.close();
    }
    masters.forEach(RedisServer::close); // LeakCheck inspects each as it stops
  }

  /** A factory over the five masters through their proxies, with the default socket timeout. */
  private RedisLockFactory factory(Duration nodeTimeout) {
    factory =
        RedisLockFactory.builder()
            .redlock(proxies.stream().map(TcpProxy::uri).toArray(String[]::new))
            .redlockNodeTimeout(nodeTimeout)
            .build();
    return factory;
  }

  /** Ten lock+unlock pairs, each of which must acquire. */
  private void tenPairs(RedisDistributedLock lock) {
    for (int i = 0; i < PAIRS; i++) {
      assertThat(lock.tryLock()).as("pair %d", i).isTrue();
      lock.unlock();
    }
  }

  /**
   * Pairs while every master answers: connections exist, as in a running application. The first
   * acquisition may retry: the connections open in the background, through proxies that may delay
   * each of their set-up's round trips, on a machine that may be busy.
   */
  private RedisDistributedLock warmedUp(Duration nodeTimeout) throws InterruptedException {
    RedisDistributedLock lock = factory(nodeTimeout).getLock(name);
    assertThat(lock.tryLock(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS))
        .as("acquired once every master is connected")
        .isTrue();
    lock.unlock();
    tenPairs(lock);
    return lock;
  }

  @Test
  void aFrozenMasterCostsTenPairsAtMostAboutTheNodeTimeoutEach() throws InterruptedException {
    RedisDistributedLock lock = warmedUp(NODE_TIMEOUT);
    masters.get(1).pause();
    assertTimeoutPreemptively(TEN_PAIRS, () -> tenPairs(lock));
  }

  @Test
  void aMasterFrozenBeforeTheFirstOperationIsNotConnectedToInTheCallersThread() {
    masters.get(0).pause();
    RedisDistributedLock lock = factory(NODE_TIMEOUT).getLock(name);
    assertTimeoutPreemptively(
        TEN_PAIRS,
        () -> {
          // The others' connections open in the background: the first acquisition may retry.
          assertThat(lock.tryLock(TEN_PAIRS.toMillis() / 2, TimeUnit.MILLISECONDS)).isTrue();
          lock.unlock();
          tenPairs(lock);
        });
  }

  @Test
  void aDeadMasterCostsTenPairsAtMostAboutTheNodeTimeoutEach() throws InterruptedException {
    RedisDistributedLock lock = warmedUp(NODE_TIMEOUT);
    masters.get(2).kill();
    assertTimeoutPreemptively(TEN_PAIRS, () -> tenPairs(lock));
  }

  @Test
  void aBlackHoledMasterCostsLittleAndIsNotReconnectedOnEveryOperation()
      throws InterruptedException {
    RedisDistributedLock lock = warmedUp(NODE_TIMEOUT);
    TcpProxy blackHole = proxies.get(3);
    blackHole.stall();
    int opened = blackHole.connectionsOpened();
    assertTimeoutPreemptively(TEN_PAIRS, () -> tenPairs(lock));
    assertThat(blackHole.connectionsOpened() - opened)
        .as("connections opened to the black hole during %d operations", 2 * PAIRS)
        .isLessThan(PAIRS);
  }

  @Test
  void aFrozenMasterDoesNotMakeSlowerMastersTimeOut() throws InterruptedException {
    Duration nodeTimeout = Timing.scaled(Duration.ofMillis(100));
    for (int i = 1; i < 5; i++) {
      proxies.get(i).setDelay(Duration.ofMillis(5)); // a round trip of 10 ms and more
    }
    RedisDistributedLock lock = warmedUp(nodeTimeout);
    masters.get(0).pause();
    assertTimeoutPreemptively(Timing.scaled(Duration.ofSeconds(5)), () -> tenPairs(lock));
  }

  @Test
  void aMasterThatAnswersAgainIsUsedAgain() throws InterruptedException {
    RedisDistributedLock lock = warmedUp(NODE_TIMEOUT);
    masters.get(4).pause();
    tenPairs(lock);
    masters.get(4).resume();
    RedisDistributedLock other = factory.getLock(name + ":other");
    await()
        .atMost(Timing.awaitAtMost())
        .untilAsserted(
            () -> {
              assertThat(other.tryLock()).isTrue();
              try (Jedis jedis = masters.get(4).jedis()) {
                assertThat(jedis.exists(name + ":other")).as("held on master 4 too").isTrue();
              } finally {
                other.unlock();
              }
            });
  }
}
