package io.github.redislock.deployments;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.github.redislock.RedisDistributedLock;
import io.github.redislock.RedisLockException;
import io.github.redislock.RedisLockFactory;
import io.github.redislock.testing.IntegrationTest;
import io.github.redislock.testing.LeakCheck;
import io.github.redislock.testing.RedisServer;
import io.github.redislock.testing.Timing;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClient;

/**
 * Redlock counts each Redis server once towards a majority, however its masters are spelled: one
 * server under two host names, or two databases of one server, is refused.
 */
@IntegrationTest
class RedlockMastersTest {
  private static final List<RedisServer> servers = new ArrayList<>();
  private final List<RedisLockFactory> factories = new ArrayList<>();
  private final List<RedisClient> clients = new ArrayList<>();

  @BeforeAll
  static void start() {
    for (int i = 0; i < 4; i++) {
      servers.add(RedisServer.start());
    }
  }

  @AfterAll
  static void stop() {
    servers.forEach(RedisServer::close);
    servers.clear();
  }

  @AfterEach
  void tearDown() {
    factories.forEach(RedisLockFactory::close);
    for (RedisServer server : servers) {
      if (!server.isRunning()) {
        server.restart();
      }
    }
  }

  private static String uri(int server) {
    return servers.get(server).uri();
  }

  /** Server 0 under another host name. */
  private static String localhostUri() {
    return "redis://localhost:" + servers.get(0).port();
  }

  private static RedisLockFactory.Builder redlock(String... uris) {
    return RedisLockFactory.builder()
        .redlock(uris)
        .redlockNodeTimeout(Timing.scaled(Duration.ofMillis(100)));
  }

  private RedisClient client(String host, int server) {
    // Closed after the leak check, which must see what the factories left on their connections.
    RedisClient client =
        LeakCheck.closeAfterCheck(RedisClient.create(host, servers.get(server).port()));
    clients.add(client);
    return client;
  }

  @Test
  void oneServerUnderTwoHostNamesIsRefusedAtBuild() {
    RedisLockFactory.Builder builder = redlock(uri(0), uri(1), localhostUri(), uri(2), uri(3));
    assertThatThrownBy(builder::build)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(uri(0))
        .hasMessageContaining(localhostUri())
        .hasMessageContaining("same Redis server");
  }

  @Test
  void twoDatabasesOfOneServerAreRefusedAtBuild() {
    RedisLockFactory.Builder builder = redlock(uri(0) + "/0", uri(0) + "/1", uri(1), uri(2));
    assertThatThrownBy(builder::build)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'" + uri(0) + "'") // database 0 is named without "/0"
        .hasMessageContaining("'" + uri(0) + "/1'");
  }

  @Test
  void twoClientsOfOneServerAreRefusedAtBuild() {
    RedisLockFactory.Builder builder =
        RedisLockFactory.builder()
            .redlockClients(
                List.of(
                    client("127.0.0.1", 1),
                    client("127.0.0.1", 0),
                    client("localhost", 0),
                    client("127.0.0.1", 2)));
    assertThatThrownBy(builder::build)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("master 2")
        .hasMessageContaining("master 3");
    for (RedisClient client : clients) {
      assertThat(client.ping()).as("the caller's clients stay open").isEqualTo("PONG");
    }
  }

  @Test
  void aRefusedBuildClosesTheClientsItCreated() {
    long before = connectedClients(0);
    RedisLockFactory.Builder builder = redlock(uri(0), localhostUri(), uri(1), uri(2), uri(3));
    assertThatThrownBy(builder::build).isInstanceOf(IllegalArgumentException.class);
    await().atMost(Timing.awaitAtMost()).until(() -> connectedClients(0) <= before);
  }

  @Test
  void distinctMastersUnderAnyNameAreAccepted() {
    RedisLockFactory factory = redlock(localhostUri(), uri(1) + "/3", uri(2)).build();
    factories.add(factory);
    RedisDistributedLock lock = factory.getLock("distinct");
    assertThat(lock.tryLock()).isTrue();
    lock.unlock();
  }

  @Test
  void aDuplicateThatIsDownAtBuildIsRefusedOnceItAnswers() {
    servers.get(0).kill();
    RedisLockFactory factory = redlock(uri(0), uri(1), localhostUri(), uri(2), uri(3)).build();
    factories.add(factory);
    RedisDistributedLock lock = factory.getLock("duplicate-down-at-build");
    assertThat(lock.tryLock()).as("three servers answer").isTrue();
    lock.unlock();
    servers.get(0).restart();
    await()
        .atMost(Timing.awaitAtMost())
        .untilAsserted(
            () ->
                assertThatThrownBy(
                        () -> {
                          if (lock.tryLock()) {
                            lock.unlock();
                          }
                        })
                    .isInstanceOf(RedisLockException.class)
                    .hasMessageContaining(uri(0))
                    .hasMessageContaining(localhostUri())
                    .hasMessageContaining("same Redis server"));
  }

  private static long connectedClients(int server) {
    try (Jedis jedis = servers.get(server).jedis()) {
      return jedis.clientList().lines().count() - 1; // not this connection
    }
  }
}
