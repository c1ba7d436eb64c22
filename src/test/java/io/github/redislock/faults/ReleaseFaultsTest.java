package io.github.redislock.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.github.redislock.LockLostException;
import io.github.redislock.RedisDistributedLock;
import io.github.redislock.RedisLockException;
import io.github.redislock.RedisLockFactory;
import io.github.redislock.testing.IntegrationTest;
import io.github.redislock.testing.RedisInvariants;
import io.github.redislock.testing.RedisServer;
import io.github.redislock.testing.RedisServerExtension;
import io.github.redislock.testing.TcpProxy;
import io.github.redislock.testing.Timing;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisException;

/**
 * What an {@code unlock()} reports when its release fails once and is retried: a first attempt that
 * certainly did not run (no connection, or refused by a demoted master) followed by a retry that
 * finds the key gone is a lost hold; a first attempt whose reply was lost may have released, and
 * only a retry on the same server can tell. The faults come from a caller's client whose every
 * connection opens through {@link HookedConnections}, against real {@code redis-server}s.
 */
@IntegrationTest
class ReleaseFaultsTest {
  private static final Duration TIMEOUT = Duration.ofMillis(500);

  @RegisterExtension static final RedisServerExtension redis = new RedisServerExtension();
  private final List<RedisLockFactory> factories = new ArrayList<>();
  private ExecutorService threads;
  private String name;

  @BeforeEach
  void setUp(TestInfo info) {
    String method = info.getTestMethod().orElseThrow().getName();
    String display = info.getDisplayName();
    name = "release-faults:" + method + (display.endsWith(")") ? "" : ":" + display);
    threads = Executors.newCachedThreadPool();
  }

  @AfterEach
  void tearDown() throws InterruptedException {
    try (Jedis jedis = redis.server().jedis()) {
      promote(jedis); // in case a test failed while the server was a replica
    }
    RedisInvariants.closeAfterTest(redis.server(), threads, factories, name);
  }

  private RedisLockFactory factory(RedisClient client) {
    RedisLockFactory factory = RedisLockFactory.builder().client(client).build();
    factories.add(factory);
    return factory;
  }

  /** Failures after which the release certainly did not run. */
  enum NotRun {
    /** Connection refused: the connection the release would be sent on cannot be opened. */
    REFUSED,
    /** The pool had no connection to give within its wait. */
    POOL_EXHAUSTED,
    /** A master demoted to replica answers {@code READONLY} (here: once the script deletes). */
    READONLY,
    /** A replica cut from its master, with {@code replica-serve-stale-data no}. */
    MASTERDOWN;

    HookedConnections.Hook hook() {
      return connections -> {
        switch (this) {
          case REFUSED ->
              throw new JedisConnectionException(
                  "Failed to connect to 127.0.0.1:" + deadPort(),
                  new ConnectException("Connection refused"));
          case POOL_EXHAUSTED ->
              throw new JedisException(
                  "Could not get a resource from the pool",
                  new NoSuchElementException("Timeout waiting for idle object"));
          case READONLY -> demote(false);
          case MASTERDOWN -> demote(true);
        }
        return connections.makeObject();
      };
    }
  }

  /** The server becomes a replica of a master that is not there, keeping its data. */
  private static void demote(boolean refuseStaleData) {
    try (Jedis jedis = redis.server().jedis()) {
      if (refuseStaleData) {
        jedis.configSet("replica-serve-stale-data", "no");
      }
      jedis.replicaof("127.0.0.1", deadPort());
    }
  }

  private static void promote(Jedis jedis) {
    jedis.replicaofNoOne();
    jedis.configSet("replica-serve-stale-data", "yes");
  }

  /**
   * The server is promoted back to master without {@code key}: a replica that never received it
   * took over.
   */
  private static HookedConnections.Hook failedOverWithout(String key) {
    return connections -> {
      try (Jedis jedis = redis.server().jedis()) {
        promote(jedis);
        jedis.del(key);
      }
      return connections.makeObject();
    };
  }

  /** A port on which nothing listens. */
  private static int deadPort() {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(NotRun.class)
  void aReleaseThatDidNotRunAndThenFindsTheKeyGoneReportsTheLoss(NotRun fault) {
    try (HookedConnections.Client client =
        HookedConnections.client(redis.server().port(), TIMEOUT)) {
      RedisDistributedLock lock = factory(client.client()).getLock(name);
      lock.lock();
      client.connections().thenOpen(fault.hook()).thenOpen(failedOverWithout(name));

      assertThatThrownBy(lock::unlock)
          .as("the key was lost in a failover before the release ran anywhere")
          .isInstanceOf(LockLostException.class);
      assertThat(client.connections().allUsed()).isTrue();
    }
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(NotRun.class)
  void aReleaseThatDidNotRunIsRetriedAndReleasesTheKey(NotRun fault) {
    try (HookedConnections.Client client =
            HookedConnections.client(redis.server().port(), TIMEOUT);
        Jedis jedis = redis.server().jedis()) {
      RedisDistributedLock lock = factory(client.client()).getLock(name);
      lock.lock();
      client
          .connections()
          .thenOpen(fault.hook())
          .thenOpen(
              connections -> {
                promote(jedis); // a replica that had the key took over
                return connections.makeObject();
              });

      lock.unlock();

      assertThat(client.connections().allUsed()).isTrue();
      assertThat(jedis.exists(name)).isFalse();
    }
  }

  @Test
  void aReleaseWhoseReplyWasLostIsUnconfirmedWhenTheRetryReachesAnotherServer() {
    try (TcpProxy proxy = TcpProxy.start(redis.server().port());
        RedisServer newMaster = RedisServer.start();
        HookedConnections.Client client = HookedConnections.client(proxy.port(), TIMEOUT)) {
      RedisDistributedLock lock = factory(client.client()).getLock(name);
      lock.lock();
      client
          .connections()
          .thenOpen(
              connections -> {
                var connection = connections.makeObject();
                proxy.stallReplies(); // the release runs on the old master; its reply is lost
                return connection;
              })
          .thenOpen(
              connections -> {
                client.connections().retarget(newMaster.port()); // which never had the key
                return client.connections().makeObject();
              });

      assertThatThrownBy(lock::unlock)
          .as("released on the old master, or lost with the failover: Redis cannot tell")
          .isInstanceOf(RedisLockException.class);
      assertThat(client.connections().allUsed()).isTrue();
      proxy.unstall();
    }
  }

  @Test
  void unlockByAnInterruptedThreadWaitsForAPooledConnectionAndKeepsTheInterrupt() throws Exception {
    ConnectionPoolConfig pool = new ConnectionPoolConfig();
    pool.setMaxTotal(1);
    pool.setMaxWait(Timing.awaitAtMost());
    pool.setJmxEnabled(false);
    try (RedisClient client =
        RedisClient.builder()
            .hostAndPort("127.0.0.1", redis.server().port())
            .clientConfig(
                DefaultJedisClientConfig.builder()
                    .socketTimeoutMillis((int) TIMEOUT.toMillis())
                    .build())
            .poolConfig(pool)
            .build()) {
      RedisDistributedLock lock = factory(client).getLock(name);
      CountDownLatch locked = new CountDownLatch(1);
      CountDownLatch unlock = new CountDownLatch(1);
      AtomicReference<Thread> owner = new AtomicReference<>();
      Future<Boolean> unlocked =
          threads.submit(
              () -> {
                owner.set(Thread.currentThread());
                lock.lock();
                locked.countDown();
                unlock.await();
                Thread.currentThread().interrupt();
                lock.unlock();
                return Thread.currentThread().isInterrupted();
              });
      assertThat(locked.await(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS)).isTrue();

      Connection only = client.getPool().getResource(); // the pool is exhausted
      try {
        unlock.countDown();
        await("the unlocking thread waits for the pool, or has given up")
            .atMost(Timing.awaitAtMost())
            .until(() -> unlocked.isDone() || owner.get().getState() == Thread.State.TIMED_WAITING);
      } finally {
        only.close();
      }

      assertThat(outcome(unlocked)).as("unlock() returned, interrupted still").isEqualTo(true);
      try (Jedis jedis = redis.server().jedis()) {
        assertThat(jedis.exists(name)).isFalse();
      }
    }
  }

  private static Object outcome(Future<Boolean> future) throws InterruptedException {
    try {
      return future.get(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      return e.getCause();
    } catch (TimeoutException e) {
      throw new AssertionError("the unlocking thread did not return", e);
    }
  }
}
