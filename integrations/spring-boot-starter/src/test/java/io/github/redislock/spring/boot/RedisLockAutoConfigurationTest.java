package io.github.redislock.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.redislock.LockInfo;
import io.github.redislock.LockLostEvent;
import io.github.redislock.RedisDistributedLock;
import io.github.redislock.RedisLockException;
import io.github.redislock.RedisLockFactory;
import io.github.redislock.test.RedisBinary;
import io.github.redislock.test.RedisLockExtension;
import io.github.redislock.test.ThrowawayRedis;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.ssl.NoSuchSslBundleException;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import redis.clients.jedis.Jedis;

/** Every condition of {@link RedisLockAutoConfiguration}, on a real redis-server. */
class RedisLockAutoConfigurationTest {
  @RegisterExtension static final RedisLockExtension redis = new RedisLockExtension();

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(SslAutoConfiguration.class, RedisLockAutoConfiguration.class));

  private ApplicationContextRunner onServer() {
    return runner.withPropertyValues(
        "spring.data.redis.host=" + redis.server().host(),
        "spring.data.redis.port=" + redis.server().port());
  }

  @AfterEach
  void flush() {
    redis.server().flushAll();
  }

  @Test
  void withoutPropertiesTheFactoryIsOnLocalhost6379AsBootHasIt() {
    runner.run(
        context -> {
          assertThat(context).hasSingleBean(RedisLockFactory.class);
          assertThat(context).hasSingleBean(RedisLockProperties.class);
          // standalone builds make no Redis call: nothing is asked of localhost:6379
          assertThat(
                  RedisEndpoint.of(
                          context.getBean(RedisLockProperties.class), context.getEnvironment())
                      .uris())
              .containsExactly("redis://localhost:6379");
        });
  }

  @Test
  void hostAndPortReachTheServer() {
    onServer()
        .run(
            context -> {
              RedisLockFactory factory = context.getBean(RedisLockFactory.class);
              RedisDistributedLock lock = factory.getLock("orders");
              assertThat(lock.tryLock()).isTrue();
              try (Jedis jedis = redis.server().jedis()) {
                assertThat(jedis.exists("orders")).isTrue();
              }
              lock.unlock();
            });
  }

  @Test
  void urlReachesTheServerAndItsDatabase() {
    runner
        .withPropertyValues("spring.data.redis.url=" + redis.uri() + "/3")
        .run(
            context -> {
              RedisDistributedLock lock = context.getBean(RedisLockFactory.class).getLock("in-3");
              assertThat(lock.tryLock()).isTrue();
              try (Jedis jedis = redis.server().jedis()) {
                assertThat(jedis.exists("in-3")).isFalse();
                jedis.select(3);
                assertThat(jedis.exists("in-3")).isTrue();
              }
              lock.unlock();
            });
  }

  @Test
  void databaseSelectsTheDatabase() {
    onServer()
        .withPropertyValues("spring.data.redis.database=5")
        .run(
            context -> {
              RedisDistributedLock lock = context.getBean(RedisLockFactory.class).getLock("in-5");
              assertThat(lock.tryLock()).isTrue();
              try (Jedis jedis = redis.server().jedis()) {
                jedis.select(5);
                assertThat(jedis.exists("in-5")).isTrue();
              }
              lock.unlock();
            });
  }

  @Test
  void usernameAndPasswordAuthenticate() {
    try (ThrowawayRedis secured = ThrowawayRedis.start()) {
      try (Jedis admin = secured.jedis()) { // once started: ThrowawayRedis pings without a password
        admin.aclSetUser("locker", "on", ">s3cr:t@/x", "~*", "&*", "+@all");
        admin.aclSetUser("default", "off");
      }
      ApplicationContextRunner base =
          runner.withPropertyValues(
              "spring.data.redis.host=" + secured.host(),
              "spring.data.redis.port=" + secured.port(),
              "spring.data.redis.username=locker");
      base.withPropertyValues("spring.data.redis.password=s3cr:t@/x")
          .run(
              context -> {
                RedisDistributedLock lock = context.getBean(RedisLockFactory.class).getLock("a");
                assertThat(lock.tryLock()).isTrue();
                lock.unlock();
              });
      base.withPropertyValues("spring.data.redis.password=wrong")
          .run(
              context -> {
                RedisLockFactory factory = context.getBean(RedisLockFactory.class);
                org.assertj.core.api.Assertions.assertThatThrownBy(() -> factory.inspect("a"))
                    .isInstanceOf(RedisLockException.class);
              });
    }
  }

  @Test
  void redisLockPropertiesReachTheBuilder() {
    onServer()
        .withPropertyValues(
            "redis-lock.key-prefix=app:",
            "redis-lock.lease-time=7s",
            "redis-lock.command-timeout=3s",
            "redis-lock.max-hold-time=1h",
            "redis-lock.record-stats=true",
            "redis-lock.describe-holders=true")
        .run(
            context -> {
              RedisLockProperties properties = context.getBean(RedisLockProperties.class);
              assertThat(properties.getCommandTimeout()).isEqualTo(Duration.ofSeconds(3));
              assertThat(properties.getMaxHoldTime()).isEqualTo(Duration.ofHours(1));
              RedisLockFactory factory = context.getBean(RedisLockFactory.class);
              RedisDistributedLock lock = factory.getLock("jobs");
              assertThat(lock.tryLock()).isTrue();
              try (Jedis jedis = redis.server().jedis()) {
                assertThat(jedis.exists("app:jobs")).isTrue();
                assertThat(jedis.pttl("app:jobs")).isBetween(1L, 7_000L);
              }
              LockInfo info = factory.inspect("jobs");
              assertThat(info.holder()).isPresent(); // describe-holders
              lock.unlock();
              assertThat(factory.stats().acquisitionCount()).isEqualTo(1); // record-stats
            });
  }

  @Test
  void withoutStatsOrDescriptionsNothingIsCountedOrDescribed() {
    onServer()
        .run(
            context -> {
              RedisLockFactory factory = context.getBean(RedisLockFactory.class);
              RedisDistributedLock lock = factory.getLock("plain");
              assertThat(lock.tryLock()).isTrue();
              assertThat(factory.inspect("plain").holder()).isEmpty();
              lock.unlock();
              assertThat(factory.stats().acquisitionCount()).isZero();
            });
  }

  @Test
  void anOutOfRangeSettingFailsTheContextWithTheBuildersMessage() {
    onServer()
        .withPropertyValues("redis-lock.lease-time=10ms")
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .rootCause()
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("leaseTime must be between"));
  }

  @Test
  void redlockMastersAndNodeTimeoutMakeARedlockFactory() {
    try (ThrowawayRedis second = ThrowawayRedis.start();
        ThrowawayRedis third = ThrowawayRedis.start()) {
      List<ThrowawayRedis> masters = List.of(redis.server(), second, third);
      runner
          .withPropertyValues(
              "redis-lock.redlock.masters=" + redis.uri() + "," + second.uri() + "," + third.uri(),
              "redis-lock.redlock.node-timeout=200ms")
          .run(
              context -> {
                RedisLockFactory factory = context.getBean(RedisLockFactory.class);
                RedisDistributedLock lock = factory.getLock("everywhere");
                assertThat(lock.tryLock()).isTrue();
                long holding =
                    masters.stream()
                        .filter(
                            m -> {
                              try (Jedis jedis = m.jedis()) {
                                return jedis.exists("everywhere");
                              }
                            })
                        .count();
                assertThat(holding).isGreaterThanOrEqualTo(2);
                lock.unlock();
                // Redlock refuses read-write locks: the factory is a Redlock one
                org.assertj.core.api.Assertions.assertThatThrownBy(
                        () -> factory.getReadWriteLock("rw"))
                    .isInstanceOf(UnsupportedOperationException.class);
              });
      second.flushAll();
      third.flushAll();
    }
  }

  @Test
  void aNodeTimeoutNotShorterThanTheLeaseFailsTheContext() {
    runner
        .withPropertyValues(
            "redis-lock.redlock.masters=redis://127.0.0.1:1,redis://127.0.0.1:2,redis://127.0.0.1:3",
            "redis-lock.lease-time=1s",
            "redis-lock.redlock.node-timeout=1s")
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("redlockNodeTimeout"));
  }

  @Test
  void redisLockUriWinsOverSpringDataRedis() {
    runner
        .withPropertyValues("spring.data.redis.port=1", "redis-lock.uri=" + redis.uri())
        .run(
            context -> {
              RedisDistributedLock lock = context.getBean(RedisLockFactory.class).getLock("own");
              assertThat(lock.tryLock()).isTrue();
              lock.unlock();
            });
  }

  @Test
  void clusterNodesMakeAClusterFactory() throws Exception {
    java.nio.file.Path nodes = java.nio.file.Files.createTempFile("nodes-", ".conf");
    java.nio.file.Files.delete(nodes);
    try (ThrowawayRedis node =
        ThrowawayRedis.start(
            "--cluster-enabled", "yes", "--cluster-config-file", nodes.toString())) {
      try (Jedis jedis = node.jedis()) {
        jedis.clusterAddSlotsRange(0, 16383);
        await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> jedis.clusterInfo().contains("cluster_state:ok"));
      }
      runner
          .withPropertyValues("spring.data.redis.cluster.nodes=" + node.host() + ":" + node.port())
          .run(
              context -> {
                RedisLockFactory factory = context.getBean(RedisLockFactory.class);
                RedisDistributedLock lock = factory.getLock("sharded");
                assertThat(lock.tryLock()).isTrue();
                try (Jedis jedis = node.jedis()) {
                  assertThat(jedis.exists("sharded")).isTrue();
                }
                lock.unlock();
              });
    } finally {
      java.nio.file.Files.deleteIfExists(nodes);
    }
  }

  @Test
  void sentinelSettingsMakeASentinelFactory() throws Exception {
    // A real Sentinel (redis-server --sentinel) watching the class's server as "mymaster"
    Path config = Files.createTempFile("sentinel-", ".conf");
    int port;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      port = socket.getLocalPort();
    }
    Files.writeString(
        config,
        "port "
            + port
            + "\nbind 127.0.0.1\nprotected-mode no\nsentinel monitor mymaster "
            + redis.server().host()
            + " "
            + redis.server().port()
            + " 1\n");
    Process sentinel =
        new ProcessBuilder(RedisBinary.path().toString(), config.toString(), "--sentinel")
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .start();
    try {
      await()
          .atMost(Duration.ofSeconds(30))
          .ignoreExceptions()
          .until(
              () -> {
                try (Jedis jedis = new Jedis("127.0.0.1", port, 1_000)) {
                  return jedis.sentinelGetMasterAddrByName("mymaster") != null;
                }
              });
      runner
          .withPropertyValues(
              "spring.data.redis.sentinel.master=mymaster",
              "spring.data.redis.sentinel.nodes=127.0.0.1:" + port,
              "spring.data.redis.database=2")
          .run(
              context -> {
                RedisDistributedLock lock =
                    context.getBean(RedisLockFactory.class).getLock("watched");
                assertThat(lock.tryLock()).isTrue();
                try (Jedis jedis = redis.server().jedis()) {
                  jedis.select(2);
                  assertThat(jedis.exists("watched")).isTrue();
                }
                lock.unlock();
              });
    } finally {
      sentinel.destroyForcibly();
      sentinel.waitFor(10, TimeUnit.SECONDS);
      Files.deleteIfExists(config);
    }
  }

  @Test
  void sentinelsThatDoNotAnswerFailTheContext() {
    runner
        .withPropertyValues(
            "spring.data.redis.sentinel.master=mymaster",
            "spring.data.redis.sentinel.nodes=127.0.0.1:1,127.0.0.1:2",
            "redis-lock.command-timeout=200ms")
        .run(
            context -> {
              // The builder's RedisLockException, whose cause is Jedis's "All sentinels down".
              Throwable failure = context.getStartupFailure();
              while (failure != null && !(failure instanceof RedisLockException)) {
                failure = failure.getCause();
              }
              assertThat(failure).as("a RedisLockException in the startup failure").isNotNull();
              assertThat(failure.getCause()).hasMessageContaining("mymaster");
            });
  }

  @Test
  void anSslBundleThatDoesNotExistFailsTheContext() {
    onServer()
        .withPropertyValues("spring.data.redis.ssl.bundle=missing")
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .rootCause()
                    .isInstanceOf(NoSuchSslBundleException.class));
  }

  @Test
  void customizersRunAfterTheProperties() {
    List<LockLostEvent> lost = new CopyOnWriteArrayList<>();
    onServer()
        .withPropertyValues("redis-lock.lease-time=1s")
        .withBean(
            RedisLockFactoryBuilderCustomizer.class, () -> builder -> builder.onLockLost(lost::add))
        .run(
            context -> {
              RedisLockFactory factory = context.getBean(RedisLockFactory.class);
              RedisDistributedLock lock = factory.getLock("lost");
              assertThat(lock.tryLock()).isTrue();
              try (Jedis jedis = redis.server().jedis()) {
                jedis.del("lost");
              }
              await().atMost(Duration.ofSeconds(30)).until(() -> !lost.isEmpty());
              assertThat(lost.get(0).lockName()).isEqualTo("lost");
            });
  }

  @Test
  void anApplicationFactoryWinsAndTheAutoConfiguredOneBacksOff() {
    RedisLockFactory own = RedisLockFactory.builder().standalone(redis.uri()).build();
    try (own) {
      onServer()
          .withBean("myLocks", RedisLockFactory.class, () -> own)
          .run(
              context -> {
                assertThat(context).hasSingleBean(RedisLockFactory.class);
                assertThat(context.getBean(RedisLockFactory.class)).isSameAs(own);
              });
    }
  }

  @Test
  void disabledByProperty() {
    onServer()
        .withPropertyValues("redis-lock.enabled=false")
        .run(context -> assertThat(context).doesNotHaveBean(RedisLockFactory.class));
  }

  @Test
  void withoutTheLibraryOnTheClassPathNothingIsConfigured() {
    onServer()
        .withClassLoader(new FilteredClassLoader(RedisLockFactory.class))
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context).doesNotHaveBean(RedisLockProperties.class);
            });
  }

  @Test
  void theFactoryIsClosedWithTheContext() {
    RedisLockFactory[] factory = new RedisLockFactory[1];
    onServer().run(context -> factory[0] = context.getBean(RedisLockFactory.class));
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> factory[0].getLock("after"))
        .isInstanceOf(IllegalStateException.class);
  }
}
