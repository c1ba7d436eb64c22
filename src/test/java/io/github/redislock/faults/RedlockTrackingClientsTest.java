package io.github.redislock.faults;

import static org.assertj.core.api.Assertions.assertThat;
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
import java.util.concurrent.TimeUnit;
import org.apache.commons.pool2.PooledObject;
import org.apache.commons.pool2.PooledObjectFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionFactory;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisProtocol;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.csc.DefaultCache;
import redis.clients.jedis.params.SetParams;
import redis.clients.jedis.providers.PooledConnectionProvider;

/**
 * Redlock over clients whose connections track keys (RESP3 with {@code CLIENT TRACKING ON}: a
 * client-side caching {@link RedisClient}, or a client whose connections turn tracking on
 * themselves). The server then pushes {@code invalidate} frames for keys a connection read, such as
 * the lock key the release script reads: a push taken for the next command's reply shifts every
 * reply by one, and a {@code SET NX} refused by every master reads as granted. Clients given to
 * {@code redlockClients}, a {@link RedisClient} as well as another {@link UnifiedJedis}, get the
 * thread fan-out, through their own API; the pipelined transport (masters given as URIs) opens
 * connections without tracking, and the hostile kit's push faults check that it drops push frames.
 */
@IntegrationTest
class RedlockTrackingClientsTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(2);
  private static final List<RedisServer> masters = new ArrayList<>();

  private final List<UnifiedJedis> clients = new ArrayList<>();
  private RedisLockFactory factory;

  /** How the test's clients track keys. */
  enum Tracking {
    /** A {@link RedisClient} with a client-side cache: Jedis turns tracking on. */
    CACHING_CLIENT,
    /** A {@link RedisClient} whose connections run {@code CLIENT TRACKING ON}, without a cache. */
    TRACKING_CLIENT,
    /** Another {@link UnifiedJedis} on such connections: called through its API, on threads. */
    TRACKING_FAN_OUT;

    UnifiedJedis client(int port) {
      return switch (this) {
        case CACHING_CLIENT -> cachingClient(port);
        case TRACKING_CLIENT -> RedisClient.builder().connectionProvider(tracking(port)).build();
        case TRACKING_FAN_OUT -> new ProviderClient(tracking(port));
      };
    }
  }

  @BeforeAll
  static void start() {
    for (int i = 0; i < 3; i++) {
      masters.add(RedisServer.start());
    }
  }

  @AfterAll
  static void stop() {
    masters.forEach(RedisServer::close);
    masters.clear();
  }

  @AfterEach
  void tearDown() {
    if (factory != null) {
      factory.close();
    }
  }

  private static JedisClientConfig resp3() {
    return DefaultJedisClientConfig.builder()
        .protocol(RedisProtocol.RESP3)
        .connectionTimeoutMillis((int) TIMEOUT.toMillis())
        .socketTimeoutMillis((int) TIMEOUT.toMillis())
        .build();
  }

  private static UnifiedJedis cachingClient(int port) {
    return RedisClient.builder()
        .hostAndPort(new HostAndPort("127.0.0.1", port))
        .clientConfig(resp3())
        .cache(new CacheOnAnyRedis())
        .build();
  }

  /** A pool whose connections turn tracking on as soon as they are made. */
  private static PooledConnectionProvider tracking(int port) {
    ConnectionFactory connections =
        new ConnectionFactory(new HostAndPort("127.0.0.1", port), resp3());
    ConnectionPoolConfig pool = new ConnectionPoolConfig();
    pool.setJmxEnabled(false);
    return new PooledConnectionProvider(new TrackingConnections(connections), pool);
  }

  private RedisLockFactory factory(Tracking tracking) {
    for (RedisServer master : masters) {
      // Closed after the leak check, which must see what the factory left on their connections.
      clients.add(LeakCheck.closeAfterCheck(tracking.client(master.port())));
    }
    factory =
        RedisLockFactory.builder()
            .redlockClients(clients)
            .redlockNodeTimeout(Timing.scaled(Duration.ofMillis(200)))
            .build();
    return factory;
  }

  @ParameterizedTest
  @EnumSource(Tracking.class)
  void aLockHeldByAnotherOwnerOnEveryMasterIsNotAcquired(Tracking tracking)
      throws InterruptedException {
    String name = "tracking:" + tracking;
    RedisDistributedLock lock = factory(tracking).getLock(name);
    for (int i = 0; i < 3; i++) { // each release's script reads the key, then deletes it
      try {
        if (lock.tryLock(5, TimeUnit.SECONDS)) {
          lock.unlock();
        }
      } catch (RedisLockException e) {
        // Answers taken for one another: the next test's failure. This one is about tryLock's.
      }
    }
    for (RedisServer master : masters) {
      try (Jedis jedis = master.jedis()) {
        jedis.set(name, "another-owner", SetParams.setParams().px(60_000));
      }
    }
    for (int i = 0; i < 5; i++) {
      assertThat(lock.tryLock()).as("held by another owner on every master, try %d", i).isFalse();
    }
    for (RedisServer master : masters) {
      try (Jedis jedis = master.jedis()) {
        assertThat(jedis.get(name)).isEqualTo("another-owner");
      }
    }
  }

  @ParameterizedTest
  @EnumSource(Tracking.class)
  void everyPairAcquiresOnAMajorityAndReleasesEverywhere(Tracking tracking) {
    String name = "tracking-pairs:" + tracking;
    RedisDistributedLock lock = factory(tracking).getLock(name);
    for (int i = 0; i < 20; i++) {
      assertThat(lock.tryLock()).as("free, round %d", i).isTrue();
      await("a majority holds the key, round " + i)
          .atMost(Timing.awaitAtMost())
          .until(() -> mastersHolding(name) >= 2);
      lock.unlock();
      await("no master holds the key, round " + i)
          .atMost(Timing.awaitAtMost())
          .until(() -> mastersHolding(name) == 0);
    }
  }

  private static int mastersHolding(String key) {
    int holding = 0;
    for (RedisServer master : masters) {
      try (Jedis jedis = master.jedis()) {
        holding += jedis.exists(key) ? 1 : 0;
      }
    }
    return holding;
  }

  /** The default cache, allowed on a server older than Jedis asks for (7.4; here 7.0). */
  private static final class CacheOnAnyRedis extends DefaultCache {
    CacheOnAnyRedis() {
      super(1_000);
    }

    @Override
    public boolean compatibilityMode() {
      return true;
    }
  }

  /** Jedis's connections, each of which runs {@code CLIENT TRACKING ON} before it is used. */
  private record TrackingConnections(ConnectionFactory connections)
      implements PooledObjectFactory<Connection> {

    @Override
    public PooledObject<Connection> makeObject() throws Exception {
      PooledObject<Connection> made = connections.makeObject();
      made.getObject()
          .executeCommand(new CommandArguments(Protocol.Command.CLIENT).add("TRACKING").add("ON"));
      return made;
    }

    @Override
    public void destroyObject(PooledObject<Connection> p) throws Exception {
      connections.destroyObject(p);
    }

    @Override
    public boolean validateObject(PooledObject<Connection> p) {
      return connections.validateObject(p);
    }

    @Override
    public void activateObject(PooledObject<Connection> p) throws Exception {
      connections.activateObject(p);
    }

    @Override
    public void passivateObject(PooledObject<Connection> p) throws Exception {
      connections.passivateObject(p);
    }
  }
}
