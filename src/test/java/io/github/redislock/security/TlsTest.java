package io.github.redislock.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.redislock.RedisDistributedLock;
import io.github.redislock.RedisLockException;
import io.github.redislock.RedisLockFactory;
import io.github.redislock.RedisReadWriteLock;
import io.github.redislock.testing.Bounded;
import io.github.redislock.testing.IntegrationTest;
import io.github.redislock.testing.LockCalls;
import io.github.redislock.testing.RedisCluster;
import io.github.redislock.testing.RedisSentinelGroup;
import io.github.redislock.testing.RedisServer;
import io.github.redislock.testing.Timing;
import io.github.redislock.testing.TlsMaterial;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/**
 * The lock over TLS against real {@code redis-server}s listening on a TLS port, with a throwaway CA
 * and certificates made at run time ({@link TlsMaterial}): {@code rediss://} on one server, on
 * Sentinel, on a Cluster and for Redlock masters; client certificates; and the refusals (an
 * untrusted certificate, a certificate for another host), which every lock call reports at once as
 * a {@link RedisLockException}, never by waiting. Skipped, saying so, when the {@code redis-server}
 * binary cannot serve TLS.
 */
@IntegrationTest
class TlsTest {
  private static final String NAME = "tls:orders";
  private static TlsMaterial tls;

  private final List<AutoCloseable> resources = new ArrayList<>();

  @BeforeAll
  static void material() {
    tls = TlsMaterial.get();
    Assumptions.assumeTrue(
        TlsMaterial.serverSupport() == null,
        () -> "skipped: this redis-server cannot serve TLS: " + TlsMaterial.serverSupport());
  }

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

  private RedisServer server(boolean authClients, boolean wrongName) {
    return closeLater(RedisServer.startTls(tls, authClients, wrongName));
  }

  private RedisLockFactory standalone(RedisServer server, SSLContext context) {
    return closeLater(
        RedisLockFactory.builder()
            .standalone(server.tlsUri())
            .tls(context)
            .commandTimeout(Duration.ofSeconds(2))
            .build());
  }

  /** Locks and unlocks, checking the key on {@code raw} while held, and gone after. */
  private static void lockAndUnlock(RedisLockFactory factory, Jedis raw) {
    RedisDistributedLock lock = factory.getLock(NAME);
    lock.lock();
    try {
      assertThat(raw.exists(NAME)).as("the lock key, written over TLS").isTrue();
    } finally {
      lock.unlock();
    }
    assertThat(raw.exists(NAME)).isFalse();
  }

  private static void everyCallFails(RedisLockFactory factory, String problem) {
    LockCalls.everyCallThrows(factory.getLock(NAME), problem);
  }

  /**
   * As {@link LockCalls#everyCallThrows}, where the first {@code unnamed} calls may fail for a
   * reason that does not name the problem yet: a Redlock master's first connection, made in the
   * background, is not refused within the node timeout; the refusal of a client certificate (TLS
   * 1.3) reaches a client that writes first as a broken pipe.
   */
  private static void everyCallFails(RedisLockFactory factory, String problem, int unnamed) {
    LockCalls.everyCallThrows(factory.getLock(NAME), problem, unnamed);
  }

  @Test
  void standaloneLocksOverTlsWithTheBuildersTrustMaterial() {
    RedisServer server = server(false, false);
    try (Jedis raw = server.jedis()) {
      lockAndUnlock(standalone(server, tls.trustingContext()), raw);
    }
  }

  @Test
  void aServerThatAsksForClientCertificatesGetsTheContextsOne() {
    RedisServer server = server(true, false);
    try (Jedis raw = server.jedis()) {
      lockAndUnlock(standalone(server, tls.clientContext()), raw);
      everyCallFails(standalone(server, tls.trustingContext()), "certificate", 2);
      assertThat(raw.exists(NAME)).isFalse();
    }
  }

  @Test
  void anUntrustedServerCertificateFailsEveryLockCallAtOnce() {
    RedisServer server = server(false, false);
    everyCallFails(standalone(server, tls.otherCaContext()), "certificat");
    try (Jedis raw = server.jedis()) {
      assertThat(raw.dbSize()).isZero();
    }
  }

  @Test
  void aCertificateForAnotherHostFailsEveryLockCallAtOnce() {
    RedisServer server = server(false, true);
    everyCallFails(standalone(server, tls.trustingContext()), "127.0.0.1");
    try (Jedis raw = server.jedis()) {
      assertThat(raw.dbSize()).isZero();
    }
  }

  @Test
  void hostNamesAreNotVerifiedOnlyWhenTheParametersSaySo() {
    RedisServer server = server(false, true);
    RedisLockFactory factory =
        closeLater(
            RedisLockFactory.builder()
                .standalone(server.tlsUri())
                .tls(tls.trustingContext().getSocketFactory(), new SSLParameters())
                .build());
    try (Jedis raw = server.jedis()) {
      lockAndUnlock(factory, raw);
    }
  }

  @Test
  void redissWithoutTlsSettingsTrustsOnlyTheJvmsTrustStore() {
    RedisServer server = server(false, false);
    RedisLockFactory factory =
        closeLater(RedisLockFactory.builder().standalone(server.tlsUri()).build());
    everyCallFails(factory, "certificat");
  }

  @Test
  void sentinelLocksOverTls() {
    RedisSentinelGroup group = closeLater(RedisSentinelGroup.startTls(tls));
    RedisLockFactory factory =
        closeLater(
            RedisLockFactory.builder().sentinel(group.tlsUri()).tls(tls.trustingContext()).build());
    try (Jedis raw = group.master().jedis()) {
      lockAndUnlock(factory, raw);
    }
  }

  @Test
  void sentinelsWithAnUntrustedCertificateFailTheBuild() {
    RedisSentinelGroup group = closeLater(RedisSentinelGroup.startTls(tls));
    RedisLockFactory.Builder builder =
        RedisLockFactory.builder()
            .sentinel(group.tlsUri())
            .tls(tls.otherCaContext())
            .commandTimeout(Duration.ofMillis(500));
    Throwable thrown = Bounded.thrownBy("build()", builder::build);
    assertThat(thrown).isInstanceOf(RedisLockException.class);
  }

  @Test
  void clusterLocksOverTls() {
    RedisCluster cluster = closeLater(RedisCluster.startTls(tls));
    RedisLockFactory factory =
        closeLater(
            RedisLockFactory.builder()
                .cluster(cluster.tlsUri())
                .tls(tls.trustingContext())
                .build());
    try (Jedis raw = cluster.jedisFor(NAME)) {
      lockAndUnlock(factory, raw);
    }
  }

  @Test
  void redlockLocksOverTls() {
    List<RedisServer> masters =
        List.of(server(false, false), server(false, false), server(false, false));
    RedisLockFactory factory =
        closeLater(
            RedisLockFactory.builder()
                .redlock(masters.stream().map(RedisServer::tlsUri).toArray(String[]::new))
                .tls(tls.trustingContext())
                .build());
    RedisDistributedLock lock = factory.getLock(NAME);
    lock.lock();
    try {
      // lock() returns once a majority granted, and a majority is what Redlock promises: on a busy
      // machine one master may miss this acquisition (its first TLS connection not set up in time,
      // with a 50 ms node timeout); its release then goes to it once it answers.
      await("the lock key on a majority of " + masters)
          .atMost(Timing.awaitAtMost())
          .untilAsserted(
              () ->
                  assertThat(masters.stream().filter(TlsTest::holdsTheKey).count())
                      .isGreaterThanOrEqualTo(2));
    } finally {
      lock.unlock();
    }
  }

  private static boolean holdsTheKey(RedisServer master) {
    try (Jedis raw = master.jedis()) {
      return raw.exists(NAME);
    }
  }

  @Test
  void redlockMastersWithAnUntrustedCertificateFailEveryLockCallAtOnce() {
    List<RedisServer> masters =
        List.of(server(false, false), server(false, false), server(false, false));
    RedisLockFactory factory =
        closeLater(
            RedisLockFactory.builder()
                .redlock(masters.stream().map(RedisServer::tlsUri).toArray(String[]::new))
                .tls(tls.otherCaContext())
                .build());
    everyCallFails(factory, "certificat", 1);
  }

  @Test
  void redlockMastersWithACertificateForAnotherHostFailEveryLockCallAtOnce() {
    List<RedisServer> masters =
        List.of(server(false, true), server(false, true), server(false, true));
    RedisLockFactory factory =
        closeLater(
            RedisLockFactory.builder()
                .redlock(masters.stream().map(RedisServer::tlsUri).toArray(String[]::new))
                .tls(tls.trustingContext())
                .build());
    everyCallFails(factory, "127.0.0.1", 1);
    for (RedisServer master : masters) {
      try (Jedis raw = master.jedis()) {
        assertThat(raw.dbSize()).isZero();
      }
    }
  }

  @Test
  void aClusterWithAnUntrustedCertificateFailsTheBuild() {
    RedisCluster cluster = closeLater(RedisCluster.startTls(tls));
    RedisLockFactory.Builder builder =
        RedisLockFactory.builder()
            .cluster(cluster.tlsUri())
            .tls(tls.otherCaContext())
            .commandTimeout(Duration.ofMillis(500));
    Throwable thrown = Bounded.thrownBy("build()", builder::build);
    assertThat(thrown).isInstanceOf(RedisLockException.class);
    assertThat(LockCalls.messages(thrown)).containsIgnoringCase("certificat");
  }

  @Test
  void fairReadWriteAndConditionKindsWorkOverTls() throws Exception {
    RedisServer server = server(false, false);
    RedisLockFactory factory = standalone(server, tls.trustingContext());
    RedisDistributedLock fair = factory.getFairLock(NAME);
    fair.lock();
    fair.unlock();
    RedisReadWriteLock readWrite = factory.getReadWriteLock(NAME);
    readWrite.writeLock().lock();
    readWrite.readLock().lock(); // a downgrade
    readWrite.writeLock().unlock();
    assertThat(readWrite.getReadLockCount()).isEqualTo(1);
    readWrite.readLock().unlock();
    RedisDistributedLock lock = factory.getLock(NAME);
    lock.lock();
    try {
      assertThat(lock.newCondition("tls").await(1, TimeUnit.MILLISECONDS)).isFalse();
    } finally {
      lock.unlock();
    }
    try (Jedis raw = server.jedis()) {
      assertThat(raw.exists(NAME)).isFalse();
    }
  }
}
