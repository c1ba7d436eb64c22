package io.github.redislock.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import io.github.redislock.RedisDistributedLock;
import io.github.redislock.RedisLockException;
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
import redis.clients.jedis.params.SetParams;

/**
 * A Redlock master counts as down from a late reply or a failed connection until it answers again,
 * and requests skip it meanwhile. A release or clean-up must still reach it: it may hold the key,
 * and would keep it for the lease, blocking every other owner that needs it for a majority. Each
 * test makes a master down for a moment (a late reply, a reply lost to a reset) with a proxy in
 * front of it. The lease is a minute, and every check waits a few seconds at most.
 */
@IntegrationTest
class RedlockDownMasterReleasesTest {
  private static final Duration LEASE = Duration.ofMinutes(1);
  private static final Duration NODE_TIMEOUT = Timing.scaled(Duration.ofMillis(100));

  private final List<RedisServer> masters = new ArrayList<>();
  private final List<TcpProxy> proxies = new ArrayList<>();
  private RedisLockFactory factory;
  private String name;

  @BeforeEach
  void start(TestInfo info) {
    name = "down-master:" + info.getTestMethod().orElseThrow().getName();
    for (int i = 0; i < 3; i++) {
      RedisServer master = RedisServer.start();
      masters.add(master);
      proxies.add(LeakCheck.closeAfterCheck(TcpProxy.start(master.port())));
    }
    factory =
        RedisLockFactory.builder()
            .redlock(proxies.stream().map(TcpProxy::uri).toArray(String[]::new))
            .redlockNodeTimeout(NODE_TIMEOUT)
            .commandTimeout(Timing.scaled(Duration.ofSeconds(5)))
            .leaseTime(LEASE)
            .build();
    RedisDistributedLock warmUp = factory.getLock(name + ":warm-up");
    for (int i = 0; i < 3; i++) { // connections to every master exist, as in a running application
      assertThat(warmUp.tryLock()).isTrue();
      warmUp.unlock();
    }
  }

  @AfterEach
  void stop() {
    proxies.forEach(TcpProxy::unstall);
    proxies.forEach(proxy -> proxy.setDelay(Duration.ZERO));
    factory.close();
    masters.forEach(RedisServer::close); // LeakCheck inspects each as it stops
  }

  private void awaitNoKey(int master, String key) {
    try (Jedis jedis = masters.get(master).jedis()) {
      await("master " + master + " no longer holds '" + key + "', well within the lease")
          .atMost(Timing.WELL_WITHIN_A_MINUTE_LEASE)
          .until(() -> jedis.get(key) == null);
    }
  }

  private void awaitKey(int master, String key) {
    try (Jedis jedis = masters.get(master).jedis()) {
      await("master " + master + " holds '" + key + "'")
          .atMost(Timing.awaitAtMost())
          .until(() -> jedis.get(key) != null);
    }
  }

  /** How many {@code SET} commands master {@code m} has run. */
  private long setCalls(int m) {
    try (Jedis jedis = masters.get(m).jedis()) {
      for (String line : jedis.info("commandstats").lines().toList()) {
        if (line.startsWith("cmdstat_set:calls=")) {
          return Long.parseLong(line.substring(18, line.indexOf(',')));
        }
      }
      return 0;
    }
  }

  @Test
  void anUnlockWhileAGrantingMasterIsDownForAnotherLocksLateReplyIsConfirmedAndReachesIt() {
    try (Jedis jedis = masters.get(2).jedis()) { // another owner: masters 0 and 1 grant the hold
      jedis.set(name, "another-owner", SetParams.setParams().px(LEASE.toMillis()));
    }
    RedisDistributedLock held = factory.getLock(name);
    assertThat(held.tryLock()).isTrue();
    awaitKey(0, name);
    awaitKey(1, name);
    // One late reply, for another lock, marks master 0 down until that reply comes.
    proxies.get(0).setDelay(NODE_TIMEOUT.multipliedBy(2));
    RedisDistributedLock other = factory.getLock(name + ":other");
    assertThat(other.tryLock()).isTrue();

    held.unlock(); // masters 0 and 1 granted it: both must confirm

    assertThat(held.isHeldByCurrentThread()).isFalse();
    awaitNoKey(0, name);
    awaitNoKey(1, name);
    other.unlock();
    awaitNoKey(0, name + ":other");
  }

  @Test
  void aKeySetByACommandWhoseReplyWasResetIsReleasedOnceItsMasterAnswersAgain() {
    RedisDistributedLock held = factory.getLock(name);
    proxies.get(0).stallReplies(); // master 0 runs the SET; its reply is held, then reset
    assertThat(held.tryLock()).isTrue();
    awaitKey(0, name);
    proxies.get(0).cutAll();

    held.unlock(); // masters 1 and 2 granted it and confirm; master 0 keeps the key meanwhile

    proxies.get(0).unstall();
    awaitNoKey(0, name);
    awaitNoKey(1, name);
    awaitNoKey(2, name);
  }

  @Test
  void anAbandonedTimedAttemptLeavesNoKeyOnAMasterWhoseGrantComesLate() {
    // The majority answers after the timed attempt's grace (25 ms); master 0 after the node
    // timeout.
    proxies.get(0).setDelay(NODE_TIMEOUT);
    proxies.get(1).setDelay(Duration.ofMillis(40));
    proxies.get(2).setDelay(Duration.ofMillis(40));
    RedisDistributedLock lock = factory.getLock(name);
    long setsBefore = setCalls(0);

    Throwable outcome = catchThrowable(() -> lock.tryLock(10, TimeUnit.MILLISECONDS));

    assertThat(outcome).isInstanceOf(RedisLockException.class);
    assertThat(lock.isHeldByCurrentThread()).isFalse();
    await("the late SET reaches master 0")
        .atMost(Timing.awaitAtMost())
        .until(() -> setCalls(0) > setsBefore);
    awaitNoKey(0, name);
    awaitNoKey(1, name);
    awaitNoKey(2, name);
  }
}
