package io.github.redislock.deployments;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.github.redislock.LockLostEvent;
import io.github.redislock.LockLostException;
import io.github.redislock.RedisDistributedLock;
import io.github.redislock.RedisLockFactory;
import io.github.redislock.testing.IntegrationTest;
import io.github.redislock.testing.RedisSentinelGroup;
import io.github.redislock.testing.RedisServer;
import io.github.redislock.testing.Timing;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.args.ClientType;
import redis.clients.jedis.params.SetParams;

/**
 * What a holder gets when the Sentinel-managed master dies under its lock and a replica takes over.
 * Replication is asynchronous (and no test here uses {@code WAIT}): the lock key reached the
 * replica or not. If it did, the hold goes on, renewed on the new master. If it did not, the next
 * renewal finds the key missing and the hold is reported lost: the listener is called and {@code
 * unlock()} throws {@link LockLostException}. A hold is never kept while its key is missing on the
 * new master, and locking works on the new master, with greater fencing tokens.
 *
 * <p>The lease (10 s, scaled) outlasts a failover (about 2 s here), so that a hold whose key
 * survived does not run out while the Sentinels promote the replica.
 */
@IntegrationTest
class SentinelFailoverTest {
  private static final Duration LEASE = Timing.scaled(Duration.ofSeconds(10));
  private static final int FILLER_CHUNK_BYTES = 16 << 20;
  private static final int MAX_FILLER_CHUNKS = 12;

  private RedisSentinelGroup group;
  private final List<RedisLockFactory> factories = new ArrayList<>();
  private final List<LockLostEvent> lostEvents = new CopyOnWriteArrayList<>();
  private String name;

  @BeforeEach
  void setUp(TestInfo info) {
    name = "failover:" + info.getTestMethod().orElseThrow().getName();
    group = RedisSentinelGroup.start();
  }

  @AfterEach
  void tearDown() {
    try {
      factories.forEach(RedisLockFactory::close);
    } finally {
      group.close(); // LeakCheck inspects each server and Sentinel as it stops
    }
  }

  private RedisLockFactory factory() {
    RedisLockFactory factory =
        RedisLockFactory.builder()
            .sentinel(group.uri())
            .leaseTime(LEASE)
            .commandTimeout(Duration.ofMillis(500))
            .onLockLost(lostEvents::add)
            .build();
    factories.add(factory);
    return factory;
  }

  private static String get(RedisServer server, String key) {
    try (Jedis jedis = server.jedis()) {
      return jedis.get(key);
    }
  }

  @Test
  void aHoldIsNeverKeptWhileItsKeyIsMissingOnTheNewMaster() {
    RedisDistributedLock lock = factory().getLock(name);
    lock.lock();
    long fence = lock.getFencingToken();
    String token = get(group.master(), name);

    RedisServer newMaster =
        group.killMaster(); // right away: the key may or may not have been replicated

    if (token.equals(get(newMaster, name))) {
      // The key reached the replica: the hold goes on, unless the failover outlasted the lease.
      awaitRenewedOnOrLost(newMaster);
      if (lostEvents.isEmpty()) {
        lock.unlock();
      } else {
        assertThatThrownBy(lock::unlock).isInstanceOf(LockLostException.class);
      }
    } else {
      assertReportedLost(lock, fence);
    }
    assertLockingWorksOn(newMaster, lock, fence);
  }

  @Test
  void aHoldWhoseKeyReachedTheReplicaGoesOnAfterTheFailover() {
    RedisDistributedLock lock = factory().getLock(name);
    lock.lock();
    long fence = lock.getFencingToken();
    String token = get(group.master(), name);
    RedisServer replica = group.replicas().get(0);
    await().atMost(Timing.awaitAtMost()).until(() -> token.equals(get(replica, name)));

    RedisServer newMaster = group.killMaster();

    assertThat(newMaster).isSameAs(replica);
    awaitRenewedOnOrLost(newMaster);
    assertThat(lostEvents).isEmpty();
    assertThat(lock.isHeldByCurrentThread()).isTrue();
    assertThat(factory().getLock(name).tryLock())
        .as("another factory, after the failover")
        .isFalse();
    lock.unlock();
    assertThat(get(newMaster, name)).isNull();
    assertLockingWorksOn(newMaster, lock, fence);
  }

  @Test
  void aHoldWhoseKeyNeverReachedTheReplicaIsReportedLost() {
    RedisServer master = group.master();
    RedisServer replica = group.replicas().get(0);
    RedisDistributedLock lock = factory().getLock(name);
    long fence;
    replica.pause();
    try {
      fallBehind(master);
      lock.lock(); // replicated after the backlog: still in the master's memory when it dies
      fence =
          lock.getFencingToken(); // issued by the master, as the key: neither reaches the replica
      master.kill();
    } finally {
      replica.resume();
    }

    RedisServer newMaster = group.awaitFailoverFrom(master);

    assertThat(newMaster).isSameAs(replica);
    assertThat(get(newMaster, name)).as("the lock key on the promoted replica").isNull();
    assertReportedLost(lock, fence);
    assertLockingWorksOn(newMaster, lock, fence);
  }

  /**
   * Makes the frozen replica fall behind: writes expiring filler keys until the master holds
   * replication data for it in its own output buffer (beyond what the sockets buffer), as {@code
   * CLIENT LIST TYPE replica} shows in {@code omem}.
   */
  private static void fallBehind(RedisServer master) {
    byte[] filler = new byte[FILLER_CHUNK_BYTES];
    try (Jedis jedis = master.jedis(Duration.ofSeconds(10))) {
      for (int chunk = 0; chunk < MAX_FILLER_CHUNKS; chunk++) {
        jedis.set(
            ("filler:" + chunk).getBytes(StandardCharsets.UTF_8),
            filler,
            SetParams.setParams().px(60_000));
        if (replicaOutputBufferBytes(jedis) > FILLER_CHUNK_BYTES / 2) {
          return;
        }
      }
    }
    throw new AssertionError("the master sent all filler to its frozen replica's sockets");
  }

  private static long replicaOutputBufferBytes(Jedis master) {
    String line = master.clientList(ClientType.REPLICA).lines().findFirst().orElseThrow();
    String omem = line.substring(line.indexOf(" omem=") + 6);
    return Long.parseLong(omem.substring(0, omem.indexOf(' ')));
  }

  /** Waits until a renewal reached the new master (the key's TTL went up) or the hold was lost. */
  private void awaitRenewedOnOrLost(RedisServer newMaster) {
    long before;
    try (Jedis jedis = newMaster.jedis()) {
      before = jedis.pttl(name);
    }
    await("a renewal on the new master, or a lost hold")
        .atMost(Timing.awaitAtMost())
        .until(() -> !lostEvents.isEmpty() || pttl(newMaster) > before);
  }

  private long pttl(RedisServer server) {
    try (Jedis jedis = server.jedis()) {
      return jedis.pttl(name);
    }
  }

  private void assertReportedLost(RedisDistributedLock lock, long fence) {
    await("the hold reported lost")
        .atMost(Timing.awaitAtMost())
        .until(() -> lostEvents.size() == 1);
    assertThat(lostEvents.get(0).lockName()).isEqualTo(name);
    assertThat(lostEvents.get(0).fencingToken()).isEqualTo(fence);
    assertThat(lock.isHeldByCurrentThread()).isFalse();
    assertThatThrownBy(lock::unlock).isInstanceOf(LockLostException.class);
  }

  /**
   * The same lock (whose client followed the failover) and a new factory both lock on the new
   * master, with fencing tokens greater than the old master's.
   */
  private void assertLockingWorksOn(RedisServer newMaster, RedisDistributedLock lock, long fence)
      throws AssertionError {
    try {
      assertThat(lock.tryLock(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS)).isTrue();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
    long next = lock.getFencingToken();
    assertThat(next).isGreaterThan(fence);
    assertThat(get(newMaster, name)).startsWith("rl1:");
    lock.unlock();

    RedisDistributedLock fresh = factory().getLock(name);
    assertThat(fresh.tryLock()).isTrue();
    assertThat(fresh.getFencingToken()).isGreaterThan(next);
    fresh.unlock();
  }
}
