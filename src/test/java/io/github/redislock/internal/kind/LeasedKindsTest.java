package io.github.redislock.internal.kind;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.github.redislock.RedisLockException;
import io.github.redislock.contract.ClusterDeployment;
import io.github.redislock.contract.Deployment;
import io.github.redislock.contract.RedlockDeployment;
import io.github.redislock.contract.StandaloneDeployment;
import io.github.redislock.internal.backend.Acquisition;
import io.github.redislock.internal.backend.LockBackend;
import io.github.redislock.internal.backend.LockKeys;
import io.github.redislock.internal.backend.OrderedOps;
import io.github.redislock.internal.backend.RedlockBackend;
import io.github.redislock.internal.backend.SingleNodeBackend;
import io.github.redislock.internal.client.RedisClients;
import io.github.redislock.internal.util.Ticker;
import io.github.redislock.internal.util.Tokens;
import io.github.redislock.testing.IntegrationTest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.ToLongFunction;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.UnifiedJedis;

/**
 * Leases given per call ({@link LockKind#withLease}, {@link LockBackend#withLease}): a kind made
 * over a backend's view for another lease sets that lease with each acquisition and renewal, on the
 * lock key and on the entries the kind keeps beside it, whether it is shorter or longer than the
 * factory's; the kind it was made from keeps the factory's lease.
 */
@IntegrationTest
class LeasedKindsTest {
  private static final long FACTORY_LEASE = 30_000;
  private static final long LEASE = 5_000;

  /** "Well above 0": the PTTL read right after the acquisition leaves most of the lease. */
  private static final long MOST_OF_LEASE = LEASE - 1_000;

  private static final Duration TIMEOUT = Duration.ofMillis(500);
  private static final Executor IO = Runnable::run;

  private static StandaloneDeployment standalone;
  private static ClusterDeployment cluster;
  private static RedlockDeployment redlock;
  private static UnifiedJedis standaloneClient;
  private static UnifiedJedis clusterClient;
  private static List<UnifiedJedis> redlockClients;

  private final List<LockBackend> backends = new ArrayList<>();
  private final LockKeys keys = LockKeys.of("leased-" + Tokens.next());

  /** The deployments a kind is tried on. */
  enum On {
    STANDALONE,
    CLUSTER,
    REDLOCK
  }

  /** The deployments that have fair and read-write locks. */
  enum Ordered {
    STANDALONE,
    CLUSTER;

    On on() {
      return On.valueOf(name());
    }
  }

  @BeforeAll
  static void start() {
    standalone = new StandaloneDeployment();
    cluster = new ClusterDeployment();
    redlock = new RedlockDeployment(3);
    standaloneClient = RedisClients.create(standalone.server().uri(), TIMEOUT);
    clusterClient = RedisClients.create(cluster.cluster().uri(), TIMEOUT);
    redlockClients = new ArrayList<>();
    for (String uri : redlock.uris()) {
      redlockClients.add(RedisClients.create(uri, TIMEOUT));
    }
  }

  @AfterAll
  static void stop() {
    if (redlockClients != null) {
      redlockClients.forEach(UnifiedJedis::close);
    }
    for (AutoCloseable closing :
        new AutoCloseable[] {standaloneClient, clusterClient, standalone, cluster, redlock}) {
      try {
        if (closing != null) {
          closing.close();
        }
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    }
  }

  @AfterEach
  void closeTheBackends() {
    backends.forEach(LockBackend::close);
  }

  private static Deployment deployment(On on) {
    return switch (on) {
      case STANDALONE -> standalone;
      case CLUSTER -> cluster;
      case REDLOCK -> redlock;
    };
  }

  /** A factory's backend on {@code on}, for holds of {@code leaseMillis}. */
  private LockBackend backend(On on, long leaseMillis) {
    LockBackend backend =
        switch (on) {
          case STANDALONE -> new SingleNodeBackend(standaloneClient, null, leaseMillis);
          case CLUSTER -> new SingleNodeBackend(clusterClient, null, leaseMillis);
          case REDLOCK ->
              new RedlockBackend(
                  redlockClients,
                  List.of("m1", "m2", "m3"),
                  new ArrayList<>(Collections.nCopies(3, null)),
                  false,
                  leaseMillis,
                  TimeUnit.MILLISECONDS.toNanos(250),
                  TIMEOUT.toNanos(),
                  Ticker.SYSTEM);
        };
    backends.add(backend);
    return backend;
  }

  /** {@code read} of every copy of the lock: the server that holds it, or every Redlock master. */
  private List<Long> onEveryCopy(On on, ToLongFunction<Jedis> read) {
    List<Long> values = new ArrayList<>();
    for (Jedis jedis : deployment(on).rawCopies(keys.lock())) {
      try (jedis) {
        values.add(read.applyAsLong(jedis));
      }
    }
    return values;
  }

  private List<Long> pttl(On on, String key) {
    return onEveryCopy(on, jedis -> jedis.pttl(key));
  }

  /** How long the member {@code member} of the sorted set {@code key} lives on, by its score. */
  private long scoreLeft(On on, String key, String member) {
    return onEveryCopy(
            on,
            jedis -> {
              Double end = jedis.zscore(key, member);
              return end == null ? -1 : end.longValue() - KindServer.serverMillis(jedis);
            })
        .get(0);
  }

  private void expireSoon(On on, String key) {
    onEveryCopy(on, jedis -> jedis.pexpire(key, 1_000));
  }

  private static void assertLeased(List<Long> pttls, long lease, String what) {
    assertThat(pttls)
        .as("%s lives for the leased %d ms", what, lease)
        .allSatisfy(
            pttl -> assertThat(pttl).isGreaterThan(lease - 1_000).isLessThanOrEqualTo(lease));
  }

  @ParameterizedTest
  @EnumSource(On.class)
  void aPlainKindOverAViewAcquiresAndRenewsForTheViewsLease(On on) {
    ExclusiveKind base = new ExclusiveKind(backend(on, FACTORY_LEASE));
    ExclusiveKind leased = base.withLease(LEASE);
    base.fencingWanted(); // told to the base after the view was made: the view issues tokens too
    String token = Tokens.next();

    Acquisition held = leased.tryAcquire(keys, token, false);

    assertThat(held.acquired()).isTrue();
    assertThat(held.fencingToken()).as("fencing wanted is shared with the view").isPositive();
    assertLeased(pttl(on, keys.lock()), LEASE, "the lock key");
    expireSoon(on, keys.lock());
    assertThat(leased.extend(keys, token)).isTrue();
    assertLeased(pttl(on, keys.lock()), LEASE, "the renewed lock key");
    assertThat(base.extend(keys, token)).isTrue();
    assertThat(pttl(on, keys.lock()))
        .as("the base kind renews for the factory's lease")
        .allSatisfy(pttl -> assertThat(pttl).isGreaterThan(LEASE));
    assertThat(leased.release(keys, token, held.fencingToken(), held.grant()).released()).isTrue();
  }

  @ParameterizedTest
  @EnumSource(On.class)
  void aViewsLeaseMayBeLongerThanTheFactorys(On on) {
    ExclusiveKind base = new ExclusiveKind(backend(on, 600));
    ExclusiveKind leased = base.withLease(2_000);
    String token = Tokens.next();

    Acquisition held = leased.tryAcquire(keys, token, false);

    assertThat(held.acquired()).isTrue();
    assertLeased(pttl(on, keys.lock()), 2_000, "the lock key");
    assertThat(leased.extend(keys, token)).isTrue();
    assertLeased(pttl(on, keys.lock()), 2_000, "the renewed lock key");
    assertThat(base.extend(keys, token)).isTrue();
    assertThat(pttl(on, keys.lock())).allSatisfy(pttl -> assertThat(pttl).isLessThanOrEqualTo(600));
    leased.releaseToken(keys, token);
  }

  @ParameterizedTest
  @EnumSource(Ordered.class)
  void aFairKindOverAViewQueuesAndHoldsForTheViewsLease(Ordered ordered) {
    On on = ordered.on();
    FairKind base =
        new FairKind(backend(on, FACTORY_LEASE), IO, TimeUnit.MILLISECONDS.toNanos(FACTORY_LEASE));
    FairKind leased = base.withLease(LEASE);
    String holder = Tokens.next();
    assertThat(base.tryAcquire(keys, holder, false).acquired()).isTrue();
    assertThat(pttl(on, keys.lock()).get(0))
        .as("the base holds for the factory's lease")
        .isGreaterThan(LEASE);

    Attempts wait = leased.forWait(false);
    String token = Tokens.next();
    assertThat(wait.tryAcquire(keys, token, false).acquired()).isFalse();

    assertThat(wait.maxWaitNanos()).isEqualTo(TimeUnit.MILLISECONDS.toNanos(LEASE) / 3);
    assertThat(scoreLeft(on, keys.fairLeases(), wait.waiterId()))
        .as("the place's lease")
        .isGreaterThan(MOST_OF_LEASE)
        .isLessThanOrEqualTo(LEASE);
    assertLeased(pttl(on, keys.fairLeases()), LEASE, "the queue's leases");
    assertLeased(pttl(on, keys.fairQueue()), LEASE, "the queue");

    base.release(keys, holder, 0, null);
    Acquisition held = wait.tryAcquire(keys, token, false);
    assertThat(held.acquired()).isTrue();
    assertLeased(pttl(on, keys.lock()), LEASE, "the lock key");
    expireSoon(on, keys.lock());
    assertThat(leased.extend(keys, token)).isTrue();
    assertLeased(pttl(on, keys.lock()), LEASE, "the renewed lock key");
    leased.release(keys, token, held.fencingToken(), held.grant());
  }

  @ParameterizedTest
  @EnumSource(Ordered.class)
  void theBaseFairKindsClosingTakesOutTheViewsPlaces(Ordered ordered) {
    On on = ordered.on();
    FairKind base =
        new FairKind(backend(on, FACTORY_LEASE), IO, TimeUnit.MILLISECONDS.toNanos(FACTORY_LEASE));
    String holder = Tokens.next();
    assertThat(base.tryAcquire(keys, holder, false).acquired()).isTrue();
    Attempts wait = base.withLease(LEASE).forWait(false);
    assertThat(wait.tryAcquire(keys, Tokens.next(), false).acquired()).isFalse();
    assertThat(scoreLeft(on, keys.fairLeases(), wait.waiterId())).isPositive();

    base.closing();

    assertThat(scoreLeft(on, keys.fairLeases(), wait.waiterId()))
        .as("the place left")
        .isEqualTo(-1);
    base.releaseToken(keys, holder);
  }

  @ParameterizedTest
  @EnumSource(Ordered.class)
  void aWriteKindOverAViewLeavesItsIntentAndHoldsForTheViewsLease(Ordered ordered) {
    On on = ordered.on();
    LockBackend backend = backend(on, FACTORY_LEASE);
    WriteKind base = new WriteKind(backend, IO, TimeUnit.MILLISECONDS.toNanos(FACTORY_LEASE));
    WriteKind leased = base.withLease(LEASE);
    ReadKind reader = new ReadKind(OrderedOps.readWriteOps(backend.orderedOps()), "", false);
    String share = Tokens.next();
    assertThat(reader.tryAcquire(keys, share, false).acquired()).isTrue();

    Attempts wait = leased.forWait(false);
    String token = Tokens.next();
    assertThat(wait.tryAcquire(keys, token, false).acquired()).isFalse();

    assertThat(wait.maxWaitNanos()).isEqualTo(TimeUnit.MILLISECONDS.toNanos(LEASE) / 3);
    assertLeased(pttl(on, keys.writerIntents()), LEASE, "the writers' intents");
    reader.release(keys, share, 0, null);
    Acquisition held = wait.tryAcquire(keys, token, false);
    assertThat(held.acquired()).isTrue();
    assertLeased(pttl(on, keys.lock()), LEASE, "the lock key");
    expireSoon(on, keys.lock());
    assertThat(leased.extend(keys, token)).isTrue();
    assertLeased(pttl(on, keys.lock()), LEASE, "the renewed lock key");
    leased.release(keys, token, held.fencingToken(), held.grant());
  }

  @ParameterizedTest
  @EnumSource(Ordered.class)
  void theBaseWriteKindsClosingWithdrawsTheViewsIntents(Ordered ordered) {
    On on = ordered.on();
    LockBackend backend = backend(on, FACTORY_LEASE);
    WriteKind base = new WriteKind(backend, IO, TimeUnit.MILLISECONDS.toNanos(FACTORY_LEASE));
    ReadKind reader = new ReadKind(OrderedOps.readWriteOps(backend.orderedOps()), "", false);
    String share = Tokens.next();
    assertThat(reader.tryAcquire(keys, share, false).acquired()).isTrue();
    Attempts wait = base.withLease(LEASE).forWait(false);
    assertThat(wait.tryAcquire(keys, Tokens.next(), false).acquired()).isFalse();
    assertThat(onEveryCopy(on, jedis -> jedis.zcard(keys.writerIntents()))).containsExactly(1L);

    base.closing();

    assertThat(onEveryCopy(on, jedis -> jedis.zcard(keys.writerIntents()))).containsExactly(0L);
    reader.releaseToken(keys, share);
  }

  @ParameterizedTest
  @EnumSource(Ordered.class)
  void aReadKindOverLeasedOpsTakesAndRenewsItsShareForTheLease(Ordered ordered) {
    On on = ordered.on();
    LockBackend backend = backend(on, FACTORY_LEASE);
    ReadKind base = new ReadKind(OrderedOps.readWriteOps(backend.orderedOps()), "", false);
    ReadKind leased = base.withLease(LEASE);
    ReadKind overLeasedOps =
        new ReadKind(OrderedOps.readWriteOps(backend.orderedOps()).withLease(LEASE), "", false);
    String token = Tokens.next();
    String other = Tokens.next();

    assertThat(leased.tryAcquire(keys, token, false).acquired()).isTrue();

    assertThat(scoreLeft(on, keys.readShares(), token))
        .as("the share's lease")
        .isGreaterThan(MOST_OF_LEASE)
        .isLessThanOrEqualTo(LEASE);
    assertLeased(pttl(on, keys.readShares()), LEASE, "the read shares");
    assertThat(overLeasedOps.tryAcquire(keys, other, false).acquired()).isTrue();
    assertThat(scoreLeft(on, keys.readShares(), other))
        .isGreaterThan(MOST_OF_LEASE)
        .isLessThanOrEqualTo(LEASE);
    assertThat(base.extend(keys, other)).isTrue();
    assertThat(scoreLeft(on, keys.readShares(), other))
        .as("the base renews for the factory's lease")
        .isGreaterThan(LEASE);
    assertThat(leased.extend(keys, other)).isTrue();
    assertThat(scoreLeft(on, keys.readShares(), other))
        .as("set back to the lease if still ours")
        .isGreaterThan(MOST_OF_LEASE)
        .isLessThanOrEqualTo(LEASE);
    leased.release(keys, token, 0, null);
    base.releaseToken(keys, other);
  }

  @Test
  void aRedlockViewJudgesValidityByItsOwnLease() {
    LockBackend base = backend(On.REDLOCK, FACTORY_LEASE);
    assertThat(base.safetyMarginNanos()).isEqualTo(TimeUnit.MILLISECONDS.toNanos(302));
    assertThat(base.withLease(LEASE).safetyMarginNanos())
        .as("drift: 1%% of the view's lease + 2 ms")
        .isEqualTo(TimeUnit.MILLISECONDS.toNanos(52));
  }

  /**
   * A lease no longer than the 2 ms clock drift allowance leaves no validity, however fast the
   * masters answer: refused as slower than the lease, and released everywhere.
   */
  @Test
  void aRedlockViewsLeaseTooShortForAnyValidityIsRefusedAsSlowerThanTheLease() {
    ExclusiveKind leased = new ExclusiveKind(backend(On.REDLOCK, FACTORY_LEASE)).withLease(2);

    Throwable refused = catchThrowable(() -> leased.tryAcquire(keys, Tokens.next(), false));

    assertThat(refused)
        .isInstanceOf(RedisLockException.class)
        .hasMessageContaining("leaving no validity of its 2 ms lease");
  }
}
