package io.github.redislock.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.redislock.RedisDistributedLock;
import io.github.redislock.RedisLockException;
import io.github.redislock.RedisLockFactory;
import io.github.redislock.testing.Bounded;
import io.github.redislock.testing.IntegrationTest;
import io.github.redislock.testing.LockCalls;
import io.github.redislock.testing.RedisCluster;
import io.github.redislock.testing.RedisInvariants;
import io.github.redislock.testing.RedisSentinelGroup;
import io.github.redislock.testing.RedisServer;
import io.github.redislock.testing.ServerStates;
import io.github.redislock.testing.Timing;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/**
 * Errors no retry can cure are not outages: {@code lock()} and {@code lockInterruptibly()} throw
 * {@link RedisLockException} at once, naming the error, as {@code tryLock()} does ({@code
 * WRONGPASS}, {@code NOAUTH}, {@code WRONGTYPE} at the lock key, an unknown command, a database out
 * of range; {@code NOPERM} is in {@code AclTest}). Errors that waiting cures ({@code READONLY},
 * {@code MASTERDOWN}, {@code LOADING}) are retried by {@code lock()} until Redis serves again;
 * connection failures and timeouts are in {@code LockContractTest.WhenRedisIsDown} and {@code
 * RedisFaultsTest}.
 */
@IntegrationTest
class PermanentErrorsTest {
  private static final String NAME = "errors:orders";
  private static final String USER = "app";
  private static final String PASSWORD = "right-password";

  private final List<AutoCloseable> resources = new ArrayList<>();

  @AfterEach
  void closeAll() throws Exception {
    for (int i = resources.size() - 1; i >= 0; i--) {
      resources.get(i).close();
    }
  }

  private <T extends AutoCloseable> T closeLater(T resource) {
    resources.add(resource);
    return resource;
  }

  private RedisServer server(String... args) {
    return closeLater(RedisServer.start(args));
  }

  private RedisLockFactory factory(RedisLockFactory.Builder builder) {
    return closeLater(builder.commandTimeout(Duration.ofMillis(500)).build());
  }

  private RedisLockFactory standalone(String uri) {
    return factory(RedisLockFactory.builder().standalone(uri));
  }

  /** A user {@value #USER} with password {@value #PASSWORD}, allowed everything. */
  private static void addUser(RedisServer server) {
    try (Jedis raw = server.jedis()) {
      raw.aclSetUser(USER, "on", ">" + PASSWORD, "~*", "&*", "+@all");
    }
  }

  private static String withCredentials(String uri, String password) {
    return uri.replace("://", "://" + USER + ":" + password + "@");
  }

  private static void assertNoKeys(RedisServer server) {
    try (Jedis raw = server.jedis()) {
      RedisInvariants.assertNoKeys(raw);
    }
  }

  @Nested
  class ThrownAtOnce {
    @Test
    void aWrongPassword() {
      RedisServer server = server();
      addUser(server);
      LockCalls.everyCallThrows(
          standalone(withCredentials(server.uri(), "wrong")).getLock(NAME), "WRONGPASS");
      assertNoKeys(server);
    }

    @Test
    void noPasswordWhereOneIsRequired() {
      RedisServer server = server();
      try (Jedis raw = server.jedis()) {
        raw.configSet("requirepass", PASSWORD);
        try {
          LockCalls.everyCallThrows(standalone(server.uri()).getLock(NAME), "NOAUTH");
        } finally {
          raw.configSet("requirepass", "");
        }
      }
      assertNoKeys(server);
    }

    @Test
    void aKeyOfAnotherTypeAtTheLockName() {
      RedisServer server = server();
      try (Jedis raw = server.jedis()) {
        raw.lpush(NAME, "not a lock");
        LockCalls.everyCallThrows(standalone(server.uri()).getLock(NAME), "WRONGTYPE");
        assertThat(raw.lrange(NAME, 0, -1)).containsExactly("not a lock");
        raw.del(NAME); // the test's own key, not the library's (the leak check looks for those)
      }
    }

    @Test
    void anUnknownCommand() {
      RedisServer server = server("--rename-command", "EVALSHA", "");
      LockCalls.everyCallThrows(standalone(server.uri()).getLock(NAME), "unknown command");
      assertNoKeys(server);
    }

    @Test
    void aDatabaseOutOfRange() {
      RedisServer server = server("--databases", "4");
      LockCalls.everyCallThrows(standalone(server.uri() + "/4").getLock(NAME), "out of range");
      assertNoKeys(server);
    }

    @Test
    void aWrongPasswordForEveryRedlockMaster() {
      List<RedisServer> masters = List.of(server(), server(), server());
      masters.forEach(PermanentErrorsTest::addUser);
      RedisLockFactory factory =
          factory(
              RedisLockFactory.builder()
                  .redlock(
                      masters.stream()
                          .map(m -> withCredentials(m.uri(), "wrong"))
                          .toArray(String[]::new)));
      LockCalls.everyCallThrows(factory.getLock(NAME), "WRONGPASS", 1);
      masters.forEach(PermanentErrorsTest::assertNoKeys);
    }

    @Test
    void aWrongPasswordForTheSentinelsMaster() {
      RedisSentinelGroup group = closeLater(RedisSentinelGroup.start());
      addUser(group.master());
      group.replicas().forEach(PermanentErrorsTest::addUser);
      RedisLockFactory factory =
          factory(RedisLockFactory.builder().sentinel(withCredentials(group.uri(), "wrong")));
      LockCalls.everyCallThrows(factory.getLock(NAME), "WRONGPASS");
    }

    @Test
    void aWrongPasswordForTheClusterFailsTheBuild() {
      RedisCluster cluster = closeLater(RedisCluster.start());
      cluster.masters().forEach(PermanentErrorsTest::addUser);
      RedisLockFactory.Builder builder =
          RedisLockFactory.builder()
              .cluster(withCredentials(cluster.uri(), "wrong"))
              .commandTimeout(Duration.ofMillis(500));
      Throwable thrown = Bounded.thrownBy("build()", builder::build);
      assertThat(thrown).isInstanceOf(RedisLockException.class);
      assertThat(LockCalls.messages(thrown)).contains("WRONGPASS");
    }
  }

  @Nested
  class RetriedByLock {
    /** {@code lock()} on another thread, once {@code errorCount} shows it met {@code error}. */
    private CompletableFuture<Void> lockMeeting(
        RedisDistributedLock lock, RedisServer server, String error) {
      CompletableFuture<Void> locked =
          CompletableFuture.runAsync(
              () -> {
                lock.lock();
                lock.unlock();
              });
      await(error + " met by lock()")
          .atMost(Timing.awaitAtMost())
          .until(() -> locked.isDone() || ServerStates.errorCount(server, error) > 0);
      return locked;
    }

    private void awaitLocked(CompletableFuture<Void> locked) throws Exception {
      locked.get(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS);
    }

    @Test
    void readOnlyOfAReplica() throws Exception {
      RedisServer server = server();
      ServerStates.demote(server, false);
      RedisDistributedLock lock = standalone(server.uri()).getLock(NAME);
      assertThat(Bounded.thrownBy("tryLock()", lock::tryLock))
          .isInstanceOf(RedisLockException.class)
          .hasMessageContaining("READONLY");
      CompletableFuture<Void> locked = lockMeeting(lock, server, "READONLY");
      ServerStates.promote(server);
      awaitLocked(locked);
      assertNoKeys(server);
    }

    @Test
    void masterDownOfAReplicaThatServesNoStaleData() throws Exception {
      RedisServer server = server();
      ServerStates.demote(server, true);
      RedisDistributedLock lock = standalone(server.uri()).getLock(NAME);
      assertThat(Bounded.thrownBy("tryLock()", lock::tryLock))
          .isInstanceOf(RedisLockException.class)
          .hasMessageContaining("MASTERDOWN");
      CompletableFuture<Void> locked = lockMeeting(lock, server, "MASTERDOWN");
      ServerStates.promote(server);
      awaitLocked(locked);
      assertNoKeys(server);
    }

    @Test
    void loadingOfAServerReadingItsDataset() throws Exception {
      RedisServer server = server();
      CompletableFuture<Void> reload = ServerStates.startLoading(server);
      RedisDistributedLock lock = standalone(server.uri()).getLock(NAME);
      assertThat(Bounded.thrownBy("tryLock()", lock::tryLock))
          .isInstanceOf(RedisLockException.class)
          .hasMessageContaining("LOADING");
      CompletableFuture<Void> locked = lockMeeting(lock, server, "LOADING");
      reload.get(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS);
      awaitLocked(locked);
      try (Jedis raw = server.jedis()) {
        assertThat(raw.exists(NAME)).isFalse();
        raw.flushAll(); // the filler keys that made the server load for a while
      }
    }

    @Test
    void aRedlockMinorityRefusingWhileAnotherMasterIsDown() throws Exception {
      List<RedisServer> masters = List.of(server(), server(), server());
      RedisLockFactory factory =
          factory(
              RedisLockFactory.builder()
                  .redlock(masters.stream().map(RedisServer::uri).toArray(String[]::new)));
      try (Jedis raw = masters.get(0).jedis()) {
        raw.lpush(NAME, "not a lock");
      }
      masters.get(1).kill();
      RedisDistributedLock lock = factory.getLock(NAME);
      CompletableFuture<Void> locked = lockMeeting(lock, masters.get(0), "WRONGTYPE");
      assertThat(locked).as("waits for the master that is down").isNotCompletedExceptionally();
      masters.get(1).restart();
      awaitLocked(locked);
      try (Jedis raw = masters.get(0).jedis()) {
        assertThat(raw.lrange(NAME, 0, -1)).containsExactly("not a lock");
        raw.del(NAME); // the test's own key
      }
    }
  }
}
