package io.github.redislock.security;

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
import io.github.redislock.testing.StdErr;
import io.github.redislock.testing.Timing;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import redis.clients.jedis.Jedis;

/**
 * The smallest ACL a lock user needs, as docs/security.md gives it, against real servers: the lock
 * works with exactly that user (one server, Sentinel, Cluster, Redlock), with nothing refused on
 * the way ({@code ACL LOG} stays empty); a user lacking any one of the permissions is refused at
 * its first acquisition with a {@link RedisLockException} naming {@code NOPERM}, before anything is
 * taken, never with {@code false} nor by waiting; and the password appears in no message, no {@code
 * toString()} and no log line.
 */
@IntegrationTest
class AclTest {
  private static final String USER = "locker";
  private static final String PASSWORD = "S3cret-pa55word";
  private static final String PREFIX = "app:";

  /** Every deployment: what the lock sends, on the keys and channels of the prefix. */
  static final List<String> REQUIRED =
      List.of(
          "+set",
          "+exists",
          "+evalsha",
          "+eval",
          "+get",
          "+type",
          "+pttl",
          "+pexpire",
          "+del",
          "+hget",
          "+hset",
          "+time",
          "+publish",
          "+subscribe",
          "+unsubscribe",
          "+ping",
          "~app:*",
          "~{app:*",
          "&{app:*");

  /** Not needed, but keeps ACL LOG clean: Jedis names its connections. */
  static final List<String> RECOMMENDED = List.of("+client|setname");

  /** A Redis Cluster instead of (s)publish and (un)subscribe: sharded Pub/Sub and the topology. */
  static final List<String> CLUSTER =
      List.of("+spublish", "+ssubscribe", "+sunsubscribe", "+cluster|slots");

  /** A fair lock besides: its queue, a sorted set beside the lock key. */
  static final List<String> FAIR =
      List.of("+zadd", "+zrange", "+zrangebyscore", "+zrem", "+zscore");

  /** A read-write lock besides: the read shares and the writers' intents, sorted sets. */
  static final List<String> READ_WRITE =
      List.of(
          "+zadd",
          "+zrange",
          "+zrem",
          "+zremrangebyscore",
          "+zrevrangebyscore",
          "+zscore",
          "+zcard",
          "+zcount");

  /** A condition besides: its awaiters and signalled awaiters, sorted sets, and a sequence. */
  static final List<String> CONDITION =
      List.of("+zadd", "+zrange", "+zrangebyscore", "+zrem", "+zscore", "+hincrby");

  /** Redlock besides: the identity check of the masters, and loading the scripts. */
  static final List<String> REDLOCK = List.of("+info", "+script|load");

  private static final Duration LEASE = Duration.ofMillis(300);

  private static RedisServer server;
  private final List<AutoCloseable> resources = new ArrayList<>();
  private final List<String> lost = new CopyOnWriteArrayList<>();

  @BeforeAll
  static void start() {
    server = RedisServer.start();
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  @AfterEach
  void closeAll() throws Exception {
    for (int i = resources.size() - 1; i >= 0; i--) {
      resources.get(i).close();
    }
    try (Jedis raw = server.jedis()) {
      raw.aclDelUser(USER);
      raw.aclLogReset(); // the keys are LeakCheck's to check, and to flush
    }
  }

  private <T extends AutoCloseable> T closeLater(T resource) {
    resources.add(resource);
    return resource;
  }

  /** Creates (or replaces) the lock user on {@code node} with exactly {@code rules}. */
  static void setUser(RedisServer node, List<String> rules) {
    List<String> all = new ArrayList<>(List.of("reset", "on", ">" + PASSWORD));
    all.addAll(rules);
    try (Jedis raw = node.jedis()) {
      raw.aclSetUser(USER, all.toArray(String[]::new));
      raw.aclLogReset();
    }
  }

  private static List<String> concat(List<String> a, List<String> b) {
    return Stream.concat(a.stream(), b.stream()).toList();
  }

  private static String withUser(String uri) {
    return uri.replace("://", "://" + USER + ":" + PASSWORD + "@");
  }

  /** What ACL LOG recorded: a command, key or channel the lock was refused. */
  private static List<String> refusals(RedisServer node) {
    try (Jedis raw = node.jedis()) {
      return raw.aclLog().stream().map(e -> e.getReason() + " " + e.getObject()).toList();
    }
  }

  /**
   * Exercises every operation of the lock on {@code a} and {@code b} (two factories, as two
   * processes): acquisition, a busy tryLock, a waiter woken by the release, renewal, a fencing
   * token, isLocked, release.
   */
  private void exercise(RedisLockFactory a, RedisLockFactory b) throws Exception {
    RedisDistributedLock held = a.getLock("orders");
    RedisDistributedLock other = b.getLock("orders");
    held.lock();
    assertThat(held.getFencingToken()).isPositive();
    assertThat(other.isLocked()).isTrue();
    assertThat(other.tryLock()).isFalse();
    CompletableFuture<Long> waiter =
        CompletableFuture.supplyAsync(
            () -> {
              other.lock();
              try {
                return other.getFencingToken();
              } finally {
                other.unlock();
              }
            });
    // Several leases pass: the hold is still held only if renewal extended it.
    long until = System.nanoTime() + 3 * LEASE.toNanos();
    await().atMost(Timing.awaitAtMost()).until(() -> System.nanoTime() - until > 0);
    assertThat(held.isHeldByCurrentThread()).isTrue();
    long first = held.getFencingToken();
    held.unlock();
    assertThat(waiter.get(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS))
        .isGreaterThan(first);
    assertThat(a.getLock("orders").isLocked()).isFalse();
  }

  /** No hold was lost: renewals and releases went through. */
  private void assertNothingLost() {
    assertThat(lost).isEmpty();
  }

  private RedisLockFactory factory(RedisLockFactory.Builder builder) {
    return closeLater(
        builder
            .keyPrefix(PREFIX)
            .leaseTime(LEASE)
            .onLockLost(event -> lost.add(event.toString()))
            .build());
  }

  @Test
  void oneServerWorksWithExactlyTheDocumentedAcl() throws Exception {
    setUser(server, concat(REQUIRED, RECOMMENDED));
    String uri = withUser(server.uri());
    exercise(
        factory(RedisLockFactory.builder().standalone(uri)),
        factory(RedisLockFactory.builder().standalone(uri)));
    assertThat(refusals(server)).isEmpty();
    assertNothingLost();
  }

  @Test
  void sentinelWorksWithExactlyTheDocumentedAcl() throws Exception {
    RedisSentinelGroup group = closeLater(RedisSentinelGroup.start());
    setUser(group.master(), concat(REQUIRED, RECOMMENDED));
    group.replicas().forEach(replica -> setUser(replica, concat(REQUIRED, RECOMMENDED)));
    String uri = withUser(group.uri());
    exercise(
        factory(RedisLockFactory.builder().sentinel(uri)),
        factory(RedisLockFactory.builder().sentinel(uri)));
    assertThat(refusals(group.master())).isEmpty();
    assertNothingLost();
  }

  @Test
  void clusterWorksWithExactlyTheDocumentedAcl() throws Exception {
    RedisCluster cluster = closeLater(RedisCluster.start());
    List<String> rules = concat(concat(REQUIRED, RECOMMENDED), CLUSTER);
    cluster.masters().forEach(node -> setUser(node, rules));
    String uri = withUser(cluster.uri());
    exercise(
        factory(RedisLockFactory.builder().cluster(uri)),
        factory(RedisLockFactory.builder().cluster(uri)));
    for (RedisServer node : cluster.masters()) {
      assertThat(refusals(node)).as(node.toString()).isEmpty();
    }
    assertNothingLost();
  }

  @Test
  void redlockWorksWithExactlyTheDocumentedAcl() throws Exception {
    List<RedisServer> masters =
        List.of(server, closeLater(RedisServer.start()), closeLater(RedisServer.start()));
    List<String> rules = concat(concat(REQUIRED, RECOMMENDED), REDLOCK);
    masters.forEach(master -> setUser(master, rules));
    String[] uris = masters.stream().map(m -> withUser(m.uri())).toArray(String[]::new);
    exercise(
        factory(RedisLockFactory.builder().redlock(uris)),
        factory(RedisLockFactory.builder().redlock(uris)));
    for (RedisServer master : masters) {
      assertThat(refusals(master)).as(master.toString()).isEmpty();
    }
    assertNothingLost();
  }

  static Stream<String> required() {
    return REQUIRED.stream();
  }

  @ParameterizedTest(name = "without {0}")
  @MethodSource("required")
  void aUserLackingOnePermissionIsRefusedBeforeAnythingIsTaken(String missing) {
    setUser(server, REQUIRED.stream().filter(rule -> !rule.equals(missing)).toList());
    RedisLockFactory factory =
        factory(RedisLockFactory.builder().standalone(withUser(server.uri())));
    LockCalls.everyCallThrows(factory.getLock("orders"), "NOPERM");
    try (Jedis raw = server.jedis()) {
      RedisInvariants.assertNoKeys(raw);
    }
  }

  @Test
  void aUserWithoutScriptingTakesNothingItCouldNotRelease() {
    setUser(server, List.of("~*", "&*", "+@all", "-@scripting"));
    RedisLockFactory factory =
        factory(RedisLockFactory.builder().standalone(withUser(server.uri())));
    RedisDistributedLock lock = factory.getLock("orders");
    assertThat(Bounded.thrownBy("tryLock()", lock::tryLock))
        .isInstanceOf(RedisLockException.class)
        .hasMessageContaining("NOPERM");
    try (Jedis raw = server.jedis()) {
      RedisInvariants.assertNoKeys(raw);
    }
  }

  @Test
  void redlockMastersRefusingTheScriptsAreRefusedBeforeAnythingIsTaken() {
    List<RedisServer> masters =
        List.of(server, closeLater(RedisServer.start()), closeLater(RedisServer.start()));
    masters.forEach(m -> setUser(m, List.of("~*", "&*", "+@all", "-evalsha", "-eval")));
    String[] uris = masters.stream().map(m -> withUser(m.uri())).toArray(String[]::new);
    RedisLockFactory factory = factory(RedisLockFactory.builder().redlock(uris));
    LockCalls.everyCallThrows(factory.getLock("orders"), "NOPERM");
    for (RedisServer master : masters) {
      try (Jedis raw = master.jedis()) {
        RedisInvariants.assertNoKeys(raw);
      }
    }
  }

  @Test
  void aClusterUserWithoutTheTopologyFailsTheBuildNamingNoperm() {
    RedisCluster cluster = closeLater(RedisCluster.start());
    List<String> rules =
        concat(REQUIRED, CLUSTER).stream().filter(r -> !r.equals("+cluster|slots")).toList();
    cluster.masters().forEach(node -> setUser(node, rules));
    RedisLockFactory.Builder builder =
        RedisLockFactory.builder().cluster(withUser(cluster.uri())).keyPrefix(PREFIX);
    Throwable thrown = Bounded.thrownBy("build()", builder::build);
    assertThat(thrown).isInstanceOf(RedisLockException.class);
    assertThat(LockCalls.messages(thrown)).contains("NOPERM");
  }

  @Test
  void thePasswordAppearsInNoMessageToStringOrLogLine() throws Exception {
    setUser(server, List.of("~other:*", "+@all")); // no right to the lock's keys: NOPERM
    List<String> texts = new ArrayList<>();
    try (StdErr log = StdErr.capture()) {
      String good = withUser(server.uri());
      String wrong = good.replace(PASSWORD, PASSWORD + "-wrong");
      for (String uri : List.of(good, wrong, withUser("redis://127.0.0.1:1"))) {
        RedisLockFactory.Builder builder =
            RedisLockFactory.builder().standalone(uri).commandTimeout(Duration.ofMillis(300));
        texts.add(builder.toString());
        RedisLockFactory factory = factory(builder);
        texts.add(factory.toString());
        RedisDistributedLock lock = factory.getLock("orders");
        texts.add(lock.toString());
        texts.add(everything(Bounded.thrownBy("tryLock()", lock::tryLock)));
      }
      for (String malformed :
          List.of(
              withUser("redis://127.0.0.1"),
              withUser("redis://127.0.0.1:1/x"),
              withUser("redis-sentinel://127.0.0.1:1"),
              withUser("redis-cluster://127.0.0.1:1/0"))) {
        texts.add(
            everything(
                Bounded.thrownBy(
                    malformed, () -> RedisLockFactory.builder().standalone(malformed))));
      }
      texts.add(
          everything(
              Bounded.thrownBy(
                  "cluster build",
                  () ->
                      RedisLockFactory.builder()
                          .cluster(withUser("redis-cluster://127.0.0.1:" + server.port()))
                          .build())));
      texts.add(
          everything(
              Bounded.thrownBy(
                  "redlock",
                  () ->
                      factory(
                              RedisLockFactory.builder()
                                  .redlock(
                                      withUser(server.uri()).replace(PASSWORD, "x"),
                                      withUser("redis://127.0.0.1:1"),
                                      withUser("redis://127.0.0.1:2")))
                          .getLock("orders")
                          .tryLock())));
      texts.add(log.text());
    }
    assertThat(String.join("\n", texts)).contains("NOPERM").doesNotContain(PASSWORD);
  }

  private RedisLockFactory standaloneFactory() {
    return factory(RedisLockFactory.builder().standalone(withUser(server.uri())));
  }

  @Test
  void aFairLockWorksWithExactlyTheDocumentedAcl() throws Exception {
    setUser(server, concat(concat(REQUIRED, RECOMMENDED), FAIR));
    RedisLockFactory a = standaloneFactory();
    RedisLockFactory b = standaloneFactory();
    RedisDistributedLock held = a.getFairLock("orders");
    RedisDistributedLock other = b.getFairLock("orders");
    held.lock();
    assertThat(other.tryLock()).isFalse();
    CompletableFuture<Void> waiter =
        CompletableFuture.runAsync(
            () -> {
              other.lock();
              other.unlock();
            });
    await("the waiter queued")
        .atMost(Timing.awaitAtMost())
        .until(() -> exists("{app:orders}:lock-fq"));
    held.unlock();
    waiter.get(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS);
    assertThat(refusals(server)).isEmpty();
    assertNothingLost();
  }

  @Test
  void aReadWriteLockWorksWithExactlyTheDocumentedAcl() throws Exception {
    setUser(server, concat(concat(REQUIRED, RECOMMENDED), READ_WRITE));
    RedisLockFactory a = standaloneFactory();
    RedisLockFactory b = standaloneFactory();
    var writer = a.getReadWriteLock("orders");
    var reader = b.getReadWriteLock("orders");
    writer.writeLock().lock();
    assertThat(reader.readLock().tryLock()).isFalse();
    CompletableFuture<Integer> read =
        CompletableFuture.supplyAsync(
            () -> {
              reader.readLock().lock();
              try {
                // Several leases pass: the share is still live only if renewal extended it.
                long until = System.nanoTime() + 3 * LEASE.toNanos();
                await().atMost(Timing.awaitAtMost()).until(() -> System.nanoTime() - until > 0);
                return reader.getReadLockCount();
              } finally {
                reader.readLock().unlock();
              }
            });
    writer.writeLock().unlock();
    assertThat(read.get(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS)).isEqualTo(1);
    assertThat(writer.isWriteLocked()).isFalse();
    assertThat(refusals(server)).isEmpty();
    assertNothingLost();
  }

  @Test
  void aConditionWorksWithExactlyTheDocumentedAcl() throws Exception {
    setUser(server, concat(concat(REQUIRED, RECOMMENDED), CONDITION));
    RedisLockFactory a = standaloneFactory();
    RedisLockFactory b = standaloneFactory();
    RedisDistributedLock awaiting = a.getLock("orders");
    RedisDistributedLock signalling = b.getLock("orders");
    Condition ready = awaiting.newCondition("ready");
    CompletableFuture<Boolean> awaited =
        CompletableFuture.supplyAsync(
            () -> {
              awaiting.lock();
              try {
                return ready.await(1, TimeUnit.MINUTES);
              } catch (InterruptedException e) {
                throw new IllegalStateException(e);
              } finally {
                awaiting.unlock();
              }
            });
    Condition signal = signalling.newCondition("ready");
    await("the awaiter is signalled")
        .atMost(Timing.awaitAtMost())
        .pollInterval(Duration.ofMillis(20))
        .until(
            () -> {
              signalling.lock();
              try {
                signal.signal();
              } finally {
                signalling.unlock();
              }
              return awaited.isDone();
            });
    assertThat(awaited.get()).isTrue();
    assertThat(refusals(server)).isEmpty();
    assertNothingLost();
  }

  private static boolean exists(String key) {
    try (Jedis raw = server.jedis()) {
      return raw.exists(key);
    }
  }

  static Stream<Arguments> kindPermissions() {
    return Stream.of(
            FAIR.stream().map(rule -> Arguments.of("fair", rule)),
            READ_WRITE.stream().map(rule -> Arguments.of("read-write", rule)),
            CONDITION.stream().map(rule -> Arguments.of("condition", rule)))
        .flatMap(s -> s);
  }

  @ParameterizedTest(name = "{0} without {1}")
  @MethodSource("kindPermissions")
  void aUserLackingOnePermissionOfAKindIsRefusedBeforeAnythingIsTaken(String kind, String missing)
      throws Exception {
    List<String> kindRules =
        switch (kind) {
          case "fair" -> FAIR;
          case "read-write" -> READ_WRITE;
          default -> CONDITION;
        };
    setUser(
        server,
        concat(REQUIRED, kindRules).stream().filter(rule -> !rule.equals(missing)).toList());
    RedisLockFactory factory = standaloneFactory();
    switch (kind) {
      case "fair" -> LockCalls.everyCallThrows(factory.getFairLock("orders"), "NOPERM");
      case "read-write" -> {
        var readWrite = factory.getReadWriteLock("orders");
        for (Lock lock : List.of(readWrite.writeLock(), readWrite.readLock())) {
          for (Bounded.Call call :
              List.<Bounded.Call>of(
                  lock::tryLock,
                  lock::lock,
                  lock::lockInterruptibly,
                  () -> lock.tryLock(1, TimeUnit.MINUTES))) {
            Throwable thrown = Bounded.thrownBy("a read-write lock call", call);
            assertThat(thrown).isInstanceOf(RedisLockException.class);
            assertThat(LockCalls.messages(thrown))
                .contains("NOPERM")
                .contains(missing.substring(1));
          }
        }
      }
      default -> {
        RedisDistributedLock lock = factory.getLock("orders");
        Condition condition = lock.newCondition("ready");
        Throwable thrown =
            Bounded.thrownBy(
                "await",
                () -> {
                  lock.lock();
                  try {
                    condition.await(1, TimeUnit.MINUTES);
                  } finally {
                    lock.unlock();
                  }
                });
        assertThat(thrown).isInstanceOf(RedisLockException.class);
        assertThat(LockCalls.messages(thrown)).contains("NOPERM").contains(missing.substring(1));
      }
    }
    try (Jedis raw = server.jedis()) {
      assertThat(raw.exists("orders", "app:orders")).isZero();
      RedisInvariants.assertNoKeysWithoutTtl(raw);
    }
  }

  /** The messages and toString() of a failure, its causes and suppressed failures. */
  private static String everything(Throwable failure) {
    if (failure == null) {
      return "";
    }
    StringBuilder all = new StringBuilder(String.valueOf(failure)).append('\n');
    for (Throwable suppressed : failure.getSuppressed()) {
      all.append(everything(suppressed));
    }
    return all.append(everything(failure.getCause())).toString();
  }
}
