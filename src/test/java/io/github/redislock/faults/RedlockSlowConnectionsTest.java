package io.github.redislock.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

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
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import redis.clients.jedis.Jedis;

/**
 * Redlock's pipelined transport with one master slow, or one of its connections dead without a
 * reset: the caller gets its answer once a majority has, and a connection that never answers again
 * is given up, with the thread that waited on it, rather than kept until TCP notices.
 */
@IntegrationTest
class RedlockSlowConnectionsTest {
  private final List<RedisServer> masters = new ArrayList<>();
  private final List<TcpProxy> proxies = new ArrayList<>();
  private RedisLockFactory factory;
  private String name;

  @BeforeEach
  void start(TestInfo info) {
    name = "slow:" + info.getTestMethod().orElseThrow().getName();
    for (int i = 0; i < 3; i++) {
      RedisServer master = RedisServer.start();
      masters.add(master);
      proxies.add(LeakCheck.closeAfterCheck(TcpProxy.start(master.port())));
    }
  }

  @AfterEach
  void stop() {
    proxies.forEach(proxy -> proxy.setDelay(Duration.ZERO));
    if (factory != null) {
      factory.close();
    }
    masters.forEach(RedisServer::close); // LeakCheck inspects each as it stops
  }

  private RedisLockFactory factory(Consumer<RedisLockFactory.Builder> settings) {
    RedisLockFactory.Builder builder =
        RedisLockFactory.builder()
            .redlock(proxies.stream().map(TcpProxy::uri).toArray(String[]::new));
    settings.accept(builder);
    factory = builder.build();
    RedisDistributedLock warmUp = factory.getLock(name + ":warm-up");
    for (int i = 0; i < 3; i++) { // connections to every master exist
      assertThat(warmUp.tryLock()).isTrue();
      warmUp.unlock();
    }
    return factory;
  }

  @Test
  void aShortTryLockGetsTheMajoritysAnswerWhileTheFirstMasterIsSlow() throws InterruptedException {
    Duration nodeTimeout = Timing.scaled(Duration.ofSeconds(2));
    RedisDistributedLock lock = factory(b -> b.redlockNodeTimeout(nodeTimeout)).getLock(name);
    // A round trip to master 0 takes half a second: within the node timeout, beyond the caller's
    // time (the timed attempt's grace included), which the other two masters answer well within.
    proxies.get(0).setDelay(Duration.ofMillis(250));
    long budgetMillis = Timing.scaled(Duration.ofMillis(100)).toMillis();
    for (int i = 0; i < 5; i++) {
      assertThat(lock.tryLock(budgetMillis, TimeUnit.MILLISECONDS)).as("attempt %d", i).isTrue();
      lock.unlock();
    }
  }

  @Test
  void aConnectionThatWentSilentWithoutAResetIsClosedAndItsThreadFreed() {
    RedisDistributedLock lock =
        factory(
                b ->
                    b.redlockNodeTimeout(Timing.scaled(Duration.ofMillis(100)))
                        .commandTimeout(Timing.scaled(Duration.ofMillis(500)))
                        .leaseTime(Timing.scaled(Duration.ofSeconds(1))))
            .getLock(name);
    List<Integer> silent = blackHoleEveryConnection(0);
    assertThat(silent).isNotEmpty();

    assertThat(lock.tryLock()).isTrue(); // masters 1 and 2; master 0's reply never comes
    lock.unlock();

    // The connection that carried the request is closed; idle ones may stay until used.
    await("the silent connection that owes a reply is closed, and no thread waits on it")
        .atMost(Timing.awaitAtMost())
        .untilAsserted(
            () -> {
              assertThat(silent.stream().filter(proxies.get(0)::isOpen).count())
                  .isLessThan(silent.size());
              assertThat(threadsDraining()).isZero();
            });
  }

  /** Black-holes every connection master {@code m}'s proxy has open to it. */
  private List<Integer> blackHoleEveryConnection(int m) {
    List<Integer> ports = new ArrayList<>();
    String clients;
    try (Jedis jedis = masters.get(m).jedis()) {
      clients = jedis.clientList();
    }
    for (String line : clients.lines().toList()) {
      for (String field : line.split(" ", -1)) {
        if (field.startsWith("addr=")) {
          int port = Integer.parseInt(field.substring(field.lastIndexOf(':') + 1));
          if (proxies.get(m).blackHole(port)) {
            ports.add(port);
          }
        }
      }
    }
    return ports;
  }

  /** Threads reading late replies in the pipelined transport. */
  private static long threadsDraining() {
    return Thread.getAllStackTraces().values().stream()
        .filter(
            stack -> {
              for (StackTraceElement frame : stack) {
                if (frame.getClassName().endsWith("transport.Endpoint")
                    && frame.getMethodName().equals("drain")) {
                  return true;
                }
              }
              return false;
            })
        .count();
  }
}
