package io.github.redislock.badinput;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.github.redislock.LockLostEvent;
import io.github.redislock.LockLostException;
import io.github.redislock.RedisDistributedLock;
import io.github.redislock.RedisLockException;
import io.github.redislock.RedisLockFactory;
import io.github.redislock.RedisReadWriteLock;
import io.github.redislock.testing.Bounded;
import io.github.redislock.testing.IntegrationTest;
import io.github.redislock.testing.LockCalls;
import io.github.redislock.testing.RedisInvariants;
import io.github.redislock.testing.RedisServer;
import io.github.redislock.testing.ServerStates;
import io.github.redislock.testing.StdErr;
import io.github.redislock.testing.Timing;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.args.ClientPauseMode;
import redis.clients.jedis.commands.ProtocolCommand;

/**
 * Bad inputs, one kind per test (the list, with the kinds tested elsewhere: docs/guarantees.md,
 * "Bad inputs"): each gets a clear exception that names the problem (or, where the {@code Lock}
 * contract gives the input a meaning, that meaning), leaves nothing in Redis, and ends by itself
 * (every call runs under {@link Bounded} or {@code assertTimeoutPreemptively}).
 */
@IntegrationTest
class BadInputsTest {
  private static final String NAME = "bad:orders";
  private static final ProtocolCommand DEBUG = () -> "DEBUG".getBytes(StandardCharsets.US_ASCII);
  private static final Duration LEASE = Duration.ofMillis(600);

  private static RedisServer server;

  private final List<AutoCloseable> resources = new ArrayList<>();

  @BeforeAll
  static void start() {
    server = RedisServer.start("--enable-debug-command", "local");
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
      raw.configSet("maxmemory", "0"); // the keys are LeakCheck's to check, and to flush
    }
  }

  private <T extends AutoCloseable> T closeLater(T resource) {
    resources.add(resource);
    return resource;
  }

  private RedisLockFactory factory() {
    return factory(b -> b);
  }

  private RedisLockFactory factory(Function<RedisLockFactory.Builder, RedisLockFactory.Builder> f) {
    return closeLater(
        f.apply(
                RedisLockFactory.builder()
                    .standalone(server.uri())
                    .leaseTime(LEASE)
                    .commandTimeout(Duration.ofMillis(500)))
            .build());
  }

  /** A Redlock factory over three masters that are not there: enough to check arguments. */
  private RedisLockFactory redlock() {
    return closeLater(
        RedisLockFactory.builder()
            .redlock("redis://127.0.0.1:1", "redis://127.0.0.1:2", "redis://127.0.0.1:3")
            .build());
  }

  private static void assertNoKeys() {
    try (Jedis raw = server.jedis()) {
      RedisInvariants.assertNoKeys(raw);
    }
  }

  private static void assertNoLockKey(String key) {
    try (Jedis raw = server.jedis()) {
      assertThat(raw.exists(key)).as("lock key %s", key).isFalse();
    }
  }

  /** Runs {@code call} and returns what it threw, failing the test if it hangs or returns. */
  private static Throwable thrown(String what, Bounded.Call call) {
    Throwable thrown = Bounded.thrownBy(what, call);
    assertThat(thrown).as(what + " throws").isNotNull();
    return thrown;
  }

  /** Locks and unlocks {@code lock} on one thread, bounded. */
  private static void lockAndUnlock(Lock lock) {
    assertTimeoutPreemptively(
        Timing.awaitAtMost(),
        () -> {
          lock.lock();
          lock.unlock();
        });
  }

  /** Every entry point that takes a lock name, on {@code factory}, for a name check. */
  private static List<Bounded.Call> everyNameEntryPoint(RedisLockFactory factory, String name) {
    return List.of(
        () -> factory.getLock(name),
        () -> factory.getReadWriteLock(name),
        () -> factory.getFairLock(name));
  }

  private static void everyEntryPointThrows(
      RedisLockFactory factory, String name, Class<? extends Throwable> type, String problem) {
    for (Bounded.Call call : everyNameEntryPoint(factory, name)) {
      assertThat(thrown("a lock of a bad name", call))
          .isInstanceOf(type)
          .hasMessageContaining(problem);
    }
  }

  @Nested
  class Names {
    @Test
    void aNullNameIsRefusedByEveryEntryPoint() {
      RedisLockFactory factory = factory();
      everyEntryPointThrows(factory, null, NullPointerException.class, "name");
      RedisDistributedLock lock = factory.getLock(NAME);
      assertThat(thrown("newCondition(null)", () -> lock.newCondition(null)))
          .isInstanceOf(NullPointerException.class)
          .hasMessageContaining("name");
      assertNoKeys();
    }

    @Test
    void anEmptyNameIsRefusedByEveryEntryPoint() {
      everyEntryPointThrows(factory(), "", IllegalArgumentException.class, "empty");
      assertNoKeys();
    }

    @Test
    void aOneMegabyteNameLocksAndLeavesNothing() {
      String name = "m".repeat(1 << 20);
      RedisLockFactory factory = factory();
      lockAndUnlock(factory.getLock(name));
      lockAndUnlock(factory.getFairLock(name));
      RedisReadWriteLock readWrite = factory.getReadWriteLock(name);
      lockAndUnlock(readWrite.writeLock());
      lockAndUnlock(readWrite.readLock());
      assertNoLockKey(name);
    }

    @Test
    void namesWithBracesLockTheirOwnKeyInOneSlot() {
      RedisLockFactory factory = factory();
      for (String name : List.of("{a}b", "a}b", "{}x", "{", "}", "{{a}}", "a{b}c{d}")) {
        lockAndUnlock(factory.getLock(name));
        lockAndUnlock(factory.getFairLock(name));
        lockAndUnlock(factory.getReadWriteLock(name).writeLock());
        lockAndUnlock(factory.getReadWriteLock(name).readLock());
        assertNoLockKey(name);
      }
    }

    @Test
    void namesWithControlCharactersLockTheExactKey() {
      RedisLockFactory factory = factory();
      for (String name : List.of("a\nb", "\0", "\r\n", "tab\there", "\u007f", "\u001b[31m")) {
        RedisDistributedLock lock = factory.getLock(name);
        assertTimeoutPreemptively(
            Timing.awaitAtMost(),
            () -> {
              lock.lock();
              try (Jedis raw = server.jedis()) {
                assertThat(raw.exists(name.getBytes(StandardCharsets.UTF_8))).isTrue();
              } finally {
                lock.unlock();
              }
            });
        assertNoLockKey(name);
      }
    }

    @Test
    void namesThatAreNotUnicodeAreRefused() {
      // Two lone surrogates would both be sent as '?': two names, one key.
      RedisLockFactory factory = factory();
      for (String name : List.of("a\uD800", "\uDC00b")) {
        everyEntryPointThrows(factory, name, IllegalArgumentException.class, "surrogate");
      }
      RedisDistributedLock lock = factory.getLock(NAME);
      assertThat(thrown("newCondition", () -> lock.newCondition("c\uD800")))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("surrogate");
      assertNoKeys();
    }

    @Test
    void namesWithTheReservedSuffixesAreRefused() {
      RedisLockFactory factory = factory();
      for (String name : List.of("{a}:lock-meta", "x:lock-rs", "{b}:lock-fq", ":lock-x")) {
        everyEntryPointThrows(factory, name, IllegalArgumentException.class, ":lock-");
      }
      RedisLockFactory prefixed = factory(b -> b.keyPrefix("{a}:lock-"));
      everyEntryPointThrows(prefixed, "meta", IllegalArgumentException.class, ":lock-");
      assertNoKeys();
    }

    @Test
    void badNamesAreRefusedUnderRedlockBeforeTheKindsRefusal() {
      RedisLockFactory factory = redlock();
      everyEntryPointThrows(factory, null, NullPointerException.class, "name");
      everyEntryPointThrows(factory, "", IllegalArgumentException.class, "empty");
      everyEntryPointThrows(factory, "{a}:lock-meta", IllegalArgumentException.class, ":lock-");
      RedisDistributedLock lock = factory.getLock(NAME);
      assertThat(thrown("newCondition(null)", () -> lock.newCondition(null)))
          .isInstanceOf(NullPointerException.class);
    }

    @Test
    void aNullKeyPrefixIsRefused() {
      assertThat(thrown("keyPrefix(null)", () -> RedisLockFactory.builder().keyPrefix(null)))
          .isInstanceOf(NullPointerException.class)
          .hasMessageContaining("prefix");
    }
  }

  @Nested
  class Durations {
    private void everySettingRefuses(Duration bad) {
      List<Bounded.Call> calls =
          List.of(
              () -> RedisLockFactory.builder().leaseTime(bad),
              () -> RedisLockFactory.builder().commandTimeout(bad),
              () -> RedisLockFactory.builder().redlockNodeTimeout(bad));
      List<String> names = List.of("leaseTime", "commandTimeout", "redlockNodeTimeout");
      for (int i = 0; i < calls.size(); i++) {
        assertThat(thrown(names.get(i) + "(" + bad + ")", calls.get(i)))
            .as(names.get(i))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining(names.get(i));
      }
    }

    /** Holds {@link #NAME} on another thread until the returned future is completed. */
    private CompletableFuture<Void> holdElsewhere(RedisLockFactory factory) throws Exception {
      CompletableFuture<Void> release = new CompletableFuture<>();
      CompletableFuture<Void> held = new CompletableFuture<>();
      Thread holder =
          new Thread(
              () -> {
                RedisDistributedLock lock = factory.getLock(NAME);
                try {
                  lock.lock();
                } catch (RuntimeException e) {
                  held.completeExceptionally(e);
                  return;
                }
                held.complete(null);
                release.join();
                lock.unlock();
              });
      holder.start();
      held.get(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS);
      return release;
    }

    /** Until a waiter, having found the lock busy, listens for its release. */
    private void awaitAWaiter() {
      await("a waiter listens for the release")
          .atMost(Timing.awaitAtMost())
          .until(
              () -> {
                try (Jedis raw = server.jedis()) {
                  return !raw.pubsubChannels().isEmpty();
                }
              });
    }

    @Test
    void zeroDurationsAreRefusedAsSettingsAndMeanOneAttemptAsWaits() throws Exception {
      everySettingRefuses(Duration.ZERO);
      RedisLockFactory factory = factory();
      CompletableFuture<Void> release = holdElsewhere(factory);
      RedisDistributedLock lock = factory(b -> b).getLock(NAME);
      assertTimeoutPreemptively(
          Timing.awaitAtMost(),
          () -> {
            assertThat(lock.tryLock(0, TimeUnit.NANOSECONDS)).isFalse();
            assertThat(lock.tryLock(0, TimeUnit.DAYS)).isFalse();
          });
      release.complete(null);
      await().atMost(Timing.awaitAtMost()).until(() -> !lock.isLocked());
      assertNoLockKey(NAME);
    }

    @Test
    void negativeDurationsAreRefusedAsSettingsAndMeanOneAttemptAsWaits() throws Exception {
      everySettingRefuses(Duration.ofMillis(-1));
      everySettingRefuses(Duration.ofSeconds(Long.MIN_VALUE));
      RedisLockFactory factory = factory();
      CompletableFuture<Void> release = holdElsewhere(factory);
      RedisDistributedLock lock = factory(b -> b).getLock(NAME);
      assertTimeoutPreemptively(
          Timing.awaitAtMost(),
          () -> {
            assertThat(lock.tryLock(-1, TimeUnit.DAYS)).isFalse();
            assertThat(lock.tryLock(Long.MIN_VALUE, TimeUnit.NANOSECONDS)).isFalse();
          });
      release.complete(null);
      await().atMost(Timing.awaitAtMost()).until(() -> !lock.isLocked());
      assertNoLockKey(NAME);
    }

    @Test
    void longMaxValueNanosecondsWaitsRatherThanOverflows() throws Exception {
      RedisLockFactory factory = factory();
      CompletableFuture<Void> release = holdElsewhere(factory);
      RedisDistributedLock lock = factory(b -> b).getLock(NAME);
      CompletableFuture<Boolean> waited =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  boolean got = lock.tryLock(Long.MAX_VALUE, TimeUnit.NANOSECONDS);
                  if (got) {
                    lock.unlock();
                  }
                  return got;
                } catch (InterruptedException e) {
                  throw new IllegalStateException(e);
                }
              });
      awaitAWaiter();
      assertThat(waited).as("an overflowed deadline would have given up at once").isNotDone();
      release.complete(null);
      assertThat(waited.get(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS)).isTrue();
      assertNoLockKey(NAME);
    }

    @Test
    void durationOfLongMaxValueSecondsIsRefusedAsASettingAndWaitedAsATimeout() throws Exception {
      everySettingRefuses(Duration.ofSeconds(Long.MAX_VALUE));
      everySettingRefuses(Duration.ofSeconds(Long.MAX_VALUE, 999_999_999));
      RedisLockFactory factory = factory();
      CompletableFuture<Void> release = holdElsewhere(factory);
      RedisDistributedLock lock = factory(b -> b).getLock(NAME);
      CompletableFuture<Boolean> waited =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  boolean got = lock.tryLock(Long.MAX_VALUE, TimeUnit.SECONDS);
                  if (got) {
                    lock.unlock();
                  }
                  return got;
                } catch (InterruptedException e) {
                  throw new IllegalStateException(e);
                }
              });
      awaitAWaiter();
      assertThat(waited).as("an overflowed deadline would have given up at once").isNotDone();
      release.complete(null);
      assertThat(waited.get(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS)).isTrue();
      assertNoLockKey(NAME);
    }

    @Test
    void conditionWaitsOfOverflowingLengthEndBySignal() throws Exception {
      RedisLockFactory factory = factory();
      RedisDistributedLock lock = factory.getLock(NAME);
      Condition condition = lock.newCondition("c");
      CompletableFuture<Long> awaited =
          CompletableFuture.supplyAsync(
              () -> {
                lock.lock();
                try {
                  return condition.awaitNanos(Long.MAX_VALUE);
                } catch (InterruptedException e) {
                  throw new IllegalStateException(e);
                } finally {
                  lock.unlock();
                }
              });
      await("the awaiter released the lock")
          .atMost(Timing.awaitAtMost())
          .pollInterval(Duration.ofMillis(20))
          .until(
              () -> {
                if (!lock.tryLock()) {
                  return false;
                }
                try {
                  condition.signal();
                } finally {
                  lock.unlock();
                }
                return awaited.isDone();
              });
      assertThat(awaited.get(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS)).isPositive();
      assertNoLockKey(NAME);
    }

    @Test
    void aNullTimeUnitIsRefused() {
      RedisDistributedLock lock = factory().getLock(NAME);
      assertThat(thrown("tryLock(1, null)", () -> lock.tryLock(1, null)))
          .isInstanceOf(NullPointerException.class)
          .hasMessageContaining("unit");
      assertNoKeys();
    }
  }

  @Nested
  class Uris {
    private void refused(String uri, String problem) {
      assertThat(thrown(uri, () -> RedisLockFactory.builder().standalone(uri)))
          .as(uri)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining(problem);
    }

    @Test
    void anUnknownSchemeIsRefused() {
      refused("http://127.0.0.1:6379", "http");
      refused("redis+tls://127.0.0.1:6379", "redis+tls");
      refused("127.0.0.1:6379", "scheme");
    }

    @Test
    void aBadPortIsRefused() {
      refused("redis://127.0.0.1:0", "port");
      refused("redis://127.0.0.1:65536", "port");
      refused("redis://127.0.0.1:-1", "port");
      refused("redis://127.0.0.1:http", "port");
      refused("redis://127.0.0.1", "port");
    }

    @Test
    void aMissingHostIsRefused() {
      refused("redis://", "host");
      refused("redis://:6379", "host");
      refused("redis://u:p@:6379", "host");
    }

    @Test
    void badPercentEncodingIsRefused() {
      refused("redis://u:%zz@127.0.0.1:6379", "%");
      refused("redis://u:%C3@127.0.0.1:6379", "%");
      refused("redis://u:p%@127.0.0.1:6379", "%");
    }

    @Test
    void aDatabaseNumberOutOfRangeIsRefused() {
      refused("redis://127.0.0.1:6379/-1", "database");
      refused("redis://127.0.0.1:6379/99999999999", "database");
      // In range for the URI, not for the server (16 databases): every call names it, at once.
      LockCalls.everyCallThrows(
          factory(b -> RedisLockFactory.builder().standalone(server.uri() + "/16")).getLock(NAME),
          "out of range");
      assertNoKeys();
    }
  }

  @Nested
  class RedlockMasters {
    private void refused(Bounded.Call call, String problem) {
      assertThat(thrown("redlock", call))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining(problem);
    }

    private static RedisClient client(int port) {
      return RedisClient.builder().hostAndPort("127.0.0.1", port).build();
    }

    @Test
    void zeroMastersAreRefused() {
      refused(() -> RedisLockFactory.builder().redlock(), "at least 3");
      refused(() -> RedisLockFactory.builder().redlockClients(List.of()), "at least 3");
    }

    @Test
    void oneMasterIsRefused() {
      refused(() -> RedisLockFactory.builder().redlock(server.uri()), "at least 3");
      try (RedisClient a = client(server.port())) {
        refused(() -> RedisLockFactory.builder().redlockClients(List.of(a)), "at least 3");
      }
    }

    @Test
    void twoMastersAreRefused() {
      refused(
          () -> RedisLockFactory.builder().redlock(server.uri(), "redis://127.0.0.1:1"),
          "at least 3");
      try (RedisClient a = client(server.port());
          RedisClient b = client(1)) {
        refused(() -> RedisLockFactory.builder().redlockClients(List.of(a, b)), "at least 3");
      }
    }

    @Test
    void duplicateMastersAreRefused() {
      String same = server.uri();
      refused(
          () -> RedisLockFactory.builder().redlock(same, same, "redis://127.0.0.1:1"), "distinct");
      try (RedisClient a = client(server.port());
          RedisClient b = client(1)) {
        refused(() -> RedisLockFactory.builder().redlockClients(List.of(a, a, b)), "distinct");
      }
      // One server under two host names is two URIs, but one master: refused at build().
      String alias = "redis://localhost:" + server.port();
      RedisLockFactory.Builder builder =
          RedisLockFactory.builder()
              .redlock(same, alias, "redis://127.0.0.1:" + RedisServer.freePort());
      assertThat(thrown("build()", builder::build))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("same");
      assertNoKeys();
    }
  }

  @Nested
  class ServerStatesAtTheLockName {
    @Test
    void aKeyOfTheWrongTypeAtTheLockNameIsNamedByEveryKind() {
      RedisLockFactory factory = factory();
      try (Jedis raw = server.jedis()) {
        raw.lpush(NAME, "not a lock");
        LockCalls.everyCallThrows(factory.getLock(NAME), "WRONGTYPE");
        LockCalls.everyCallThrows(factory.getFairLock(NAME), "WRONGTYPE");
        for (Lock lock :
            List.of(
                factory.getReadWriteLock(NAME).writeLock(),
                factory.getReadWriteLock(NAME).readLock())) {
          assertThat(thrown("lock()", lock::lock))
              .isInstanceOf(RedisLockException.class)
              .hasMessageContaining("WRONGTYPE");
        }
        assertThat(raw.lrange(NAME, 0, -1)).containsExactly("not a lock");
        raw.del(NAME);
      }
      assertNoKeys();
    }

    @Test
    void aKeyOfTheWrongTypeAtTheFencingCounterIsNamed() {
      RedisLockFactory factory = factory();
      RedisDistributedLock lock = factory.getLock(NAME);
      try (Jedis raw = server.jedis()) {
        raw.lpush("{" + NAME + "}:lock-meta", "not a counter");
        Throwable thrown =
            thrown(
                "a fenced acquisition",
                () -> {
                  lock.lock();
                  try {
                    lock.getFencingToken();
                  } finally {
                    lock.unlock();
                  }
                });
        assertThat(thrown).isInstanceOf(RedisLockException.class);
        assertThat(LockCalls.messages(thrown)).contains("WRONGTYPE");
        assertThat(raw.exists(NAME)).isFalse();
        raw.del("{" + NAME + "}:lock-meta");
      }
      assertNoKeys();
    }

    @Test
    void aForeignKeyWithoutExpiryMakesTimedTryLockFalseAndLockWaitSaying() throws Exception {
      RedisLockFactory factory = factory();
      RedisDistributedLock lock = factory.getLock(NAME);
      try (Jedis raw = server.jedis();
          StdErr log = StdErr.capture()) {
        raw.set(NAME, "a foreign owner that set no TTL");
        assertTimeoutPreemptively(
            Timing.awaitAtMost(),
            () -> assertThat(lock.tryLock(300, TimeUnit.MILLISECONDS)).isFalse());
        CompletableFuture<Void> locked =
            CompletableFuture.runAsync(
                () -> {
                  lock.lock();
                  lock.unlock();
                });
        await("lock() says why it waits")
            .atMost(Timing.awaitAtMost())
            .until(() -> log.text().contains("never expires"));
        assertThat(log.text()).contains("'" + NAME + "'").contains("until someone deletes it");
        assertThat(locked).isNotDone();
        raw.del(NAME);
        locked.get(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS);
      }
      assertNoLockKey(NAME);
    }

    @Test
    void aReplicaIsNamedReadOnlyByEveryKind() {
      RedisServer replica = closeLater(RedisServer.start());
      ServerStates.demote(replica, false);
      RedisLockFactory factory =
          closeLater(
              RedisLockFactory.builder()
                  .standalone(replica.uri())
                  .commandTimeout(Duration.ofMillis(500))
                  .build());
      for (Lock lock :
          List.of(
              factory.getLock(NAME),
              factory.getFairLock(NAME),
              factory.getReadWriteLock(NAME).writeLock(),
              factory.getReadWriteLock(NAME).readLock())) {
        assertThat(thrown("tryLock()", lock::tryLock))
            .isInstanceOf(RedisLockException.class)
            .hasMessageContaining("READONLY");
      }
      try (Jedis raw = replica.jedis()) {
        RedisInvariants.assertNoKeys(raw);
      }
    }

    @Test
    void fullMemoryWithNoEvictionIsNamedOomAtOnce() {
      RedisLockFactory factory = factory();
      try (Jedis raw = server.jedis()) {
        raw.configSet("maxmemory-policy", "noeviction");
        raw.configSet("maxmemory", "1");
        try {
          LockCalls.everyCallThrows(factory.getLock(NAME), "OOM");
          LockCalls.everyCallThrows(factory.getFairLock(NAME), "OOM");
          // Redis refuses a script's first write only: the write lock's script frees lapsed read
          // shares (a write) before it sets the key, so Redis lets it take the lock.
          lockAndUnlock(factory.getReadWriteLock(NAME).writeLock());
        } finally {
          raw.configSet("maxmemory", "0");
        }
      }
      assertNoKeys();
    }

    @Test
    void aScriptFlushMidRunFallsBackToEvalForEveryKind() {
      RedisLockFactory factory = factory();
      RedisDistributedLock lock = factory.getLock(NAME);
      RedisDistributedLock fair = factory.getFairLock(NAME + ":fair");
      RedisReadWriteLock readWrite = factory.getReadWriteLock(NAME + ":rw");
      Condition condition = lock.newCondition("c");
      assertTimeoutPreemptively(
          Timing.awaitAtMost(),
          () -> {
            for (int round = 0; round < 2; round++) {
              lock.lock();
              fair.lock();
              readWrite.writeLock().lock();
              flushScripts();
              assertThat(lock.getFencingToken()).isPositive();
              condition.signalAll();
              readWrite.writeLock().unlock();
              fair.unlock();
              lock.unlock();
              readWrite.readLock().lock();
              flushScripts();
              readWrite.readLock().unlock();
            }
          });
      assertNoLockKey(NAME);
    }

    private void flushScripts() {
      try (Jedis raw = server.jedis()) {
        raw.scriptFlush();
      }
    }

    @Test
    void clientPauseIsNamedByTryLockAndWaitedOutByLock() throws Exception {
      RedisLockFactory factory = factory();
      RedisDistributedLock lock = factory.getLock(NAME);
      lockAndUnlock(lock); // connected
      try (Jedis raw = server.jedis()) {
        raw.clientPause(10_000, ClientPauseMode.WRITE);
        try {
          assertThat(thrown("tryLock()", lock::tryLock))
              .isInstanceOf(RedisLockException.class)
              .hasMessageContaining("'" + NAME + "'");
          CompletableFuture<Void> locked =
              CompletableFuture.runAsync(
                  () -> {
                    lock.lock();
                    lock.unlock();
                  });
          assertThat(locked).isNotDone();
          raw.clientUnpause();
          locked.get(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS);
        } finally {
          raw.clientUnpause();
        }
      }
      assertNoLockKey(NAME);
    }

    @Test
    void flushAllUnderAHoldIsReportedLost() {
      List<LockLostEvent> lost = new CopyOnWriteArrayList<>();
      RedisLockFactory factory = factory(b -> b.onLockLost(lost::add));
      RedisDistributedLock lock = factory.getLock(NAME);
      assertTimeoutPreemptively(
          Timing.awaitAtMost(),
          () -> {
            lock.lock();
            server.flushAll();
            await("the loss is reported").atMost(Timing.awaitAtMost()).until(() -> !lost.isEmpty());
            assertThat(lost.get(0).lockName()).isEqualTo(NAME);
            assertThatThrownBy(lock::unlock).isInstanceOf(LockLostException.class);
          });
      assertNoKeys();
    }

    @Test
    void debugSleepBeyondTheCommandTimeoutIsATimeoutNotAHang() throws Exception {
      RedisLockFactory factory = factory();
      RedisDistributedLock lock = factory.getLock(NAME);
      lockAndUnlock(lock); // connected
      CompletableFuture<Void> sleep =
          CompletableFuture.runAsync(
              () -> {
                try (Jedis raw = server.jedis(Duration.ofSeconds(10))) {
                  raw.sendCommand(DEBUG, "SLEEP", "2");
                }
              });
      await("the server sleeps")
          .atMost(Timing.awaitAtMost())
          .until(() -> ServerStates.isUnresponsive(server) || sleep.isDone());
      Throwable thrown = thrown("tryLock()", lock::tryLock);
      assertThat(thrown).isInstanceOf(RedisLockException.class);
      assertThat(LockCalls.messages(thrown)).containsIgnoringCase("timed out");
      CompletableFuture<Void> locked =
          CompletableFuture.runAsync(
              () -> {
                lock.lock();
                lock.unlock();
              });
      sleep.get(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS);
      locked.get(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS);
      assertNoLockKey(NAME);
    }
  }

  @Nested
  class Usage {
    @Test
    void aListenerThatThrowsIsToldAndLoggedAndStopsNothing() {
      List<LockLostEvent> lost = new CopyOnWriteArrayList<>();
      RedisLockFactory factory =
          factory(
              b ->
                  b.onLockLost(
                      event -> {
                        lost.add(event);
                        throw new IllegalStateException("a listener that fails");
                      }));
      RedisDistributedLock first = factory.getLock(NAME);
      RedisDistributedLock second = factory.getLock(NAME + ":2");
      try (StdErr log = StdErr.capture()) {
        assertTimeoutPreemptively(
            Timing.awaitAtMost(),
            () -> {
              first.lock();
              try (Jedis raw = server.jedis()) {
                raw.del(NAME);
              }
              await().atMost(Timing.awaitAtMost()).until(() -> !lost.isEmpty());
              await()
                  .atMost(Timing.awaitAtMost())
                  .until(() -> log.text().contains("a listener that fails"));
              // Renewal still works for the next hold.
              second.lock();
              long until = System.nanoTime() + 2 * LEASE.toNanos();
              await().atMost(Timing.awaitAtMost()).until(() -> System.nanoTime() - until > 0);
              assertThat(second.isLocked()).isTrue();
              second.unlock();
              assertThatThrownBy(first::unlock).isInstanceOf(LockLostException.class);
            });
      }
      assertThat(lost).hasSize(1);
      assertNoKeys();
    }

    @Test
    void unlockFromAnotherThreadIsRefusedForEveryKind() throws Exception {
      RedisLockFactory factory = factory();
      RedisReadWriteLock readWrite = factory.getReadWriteLock(NAME + ":rw");
      List<Lock> locks =
          List.of(
              factory.getLock(NAME),
              factory.getFairLock(NAME + ":fair"),
              readWrite.writeLock(),
              factory.getReadWriteLock(NAME + ":rw2").readLock());
      for (Lock lock : locks) {
        lock.lock();
        try {
          assertThat(thrown("unlock() elsewhere", lock::unlock))
              .isInstanceOf(IllegalMonitorStateException.class)
              .hasMessageContaining("does not hold");
          assertThat(thrown("unlock() elsewhere", lock::unlock))
              .isNotInstanceOf(LockLostException.class);
        } finally {
          lock.unlock();
        }
      }
      assertNoLockKey(NAME);
    }

    @Test
    void closeTwiceIsHarmless() {
      RedisLockFactory factory =
          RedisLockFactory.builder()
              .standalone(server.uri())
              .commandTimeout(Duration.ofMillis(500))
              .build();
      lockAndUnlock(factory.getLock(NAME));
      assertTimeoutPreemptively(
          Timing.awaitAtMost(),
          () -> {
            factory.close();
            factory.close();
          });
      RedisInvariants.assertNoThreads("redis-lock-");
      assertNoLockKey(NAME);
    }

    @Test
    void useAfterCloseIsRefusedNamingTheClosedFactory() {
      RedisLockFactory factory =
          RedisLockFactory.builder()
              .standalone(server.uri())
              .commandTimeout(Duration.ofMillis(500))
              .build();
      RedisDistributedLock lock = factory.getLock(NAME);
      RedisReadWriteLock readWrite = factory.getReadWriteLock(NAME + ":rw");
      factory.close();
      everyEntryPointThrows(factory, NAME, IllegalStateException.class, "closed");
      List<Bounded.Call> calls =
          List.of(
              lock::lock,
              lock::lockInterruptibly,
              lock::tryLock,
              () -> lock.tryLock(1, TimeUnit.MINUTES),
              lock::isLocked,
              readWrite.writeLock()::lock,
              readWrite.readLock()::tryLock);
      List<String> names =
          List.of(
              "lock()",
              "lockInterruptibly()",
              "tryLock()",
              "tryLock(1, MINUTES)",
              "isLocked()",
              "writeLock().lock()",
              "readLock().tryLock()");
      for (int i = 0; i < calls.size(); i++) {
        Throwable thrown = thrown(names.get(i) + " after close()", calls.get(i));
        assertThat(thrown).as(names.get(i)).isInstanceOf(IllegalStateException.class);
        assertThat(LockCalls.messages(thrown)).as(names.get(i)).contains("closed");
      }
      assertNoKeys();
    }
  }
}
