package io.github.redislock.deployments;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.github.redislock.LockLostEvent;
import io.github.redislock.LockLostException;
import io.github.redislock.RedisDistributedLock;
import io.github.redislock.RedisLockFactory;
import io.github.redislock.testing.IntegrationTest;
import io.github.redislock.testing.RedisCluster;
import io.github.redislock.testing.RedisServer;
import io.github.redislock.testing.Timing;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.commands.ProtocolCommand;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisMovedDataException;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * What is particular to a real 3-master Redis Cluster: a lock's scripts touch only keys of one slot
 * whatever its name looks like (no {@code CROSSSLOT}), wake-ups travel by sharded Pub/Sub on the
 * master of the lock's slot only and each release counts the waiters of other processes wherever
 * their clients connect, many names spread over every master, and a master killed without a replica
 * loses its holds and serves again, empty, after a restart.
 */
@IntegrationTest
class ClusterLockTest {
  private static final Duration SHORT_LEASE = Duration.ofMillis(600);

  /** Jedis 8 has no constant for DEBUG. */
  private static final ProtocolCommand DEBUG = () -> "DEBUG".getBytes(StandardCharsets.US_ASCII);

  private static RedisCluster cluster;
  private final List<RedisLockFactory> factories = new ArrayList<>();
  private final List<LockLostEvent> lostEvents = new CopyOnWriteArrayList<>();
  private ExecutorService threads;
  private String prefix;

  @BeforeAll
  static void startCluster() {
    cluster = RedisCluster.start();
  }

  @AfterAll
  static void stopCluster() {
    cluster.close();
  }

  @BeforeEach
  void setUp(TestInfo info) {
    prefix = "cluster:" + info.getTestMethod().orElseThrow().getName() + ":";
    threads = Executors.newCachedThreadPool();
  }

  @AfterEach
  void tearDown() throws InterruptedException {
    threads.shutdownNow();
    assertThat(threads.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    factories.forEach(RedisLockFactory::close);
  }

  private RedisLockFactory factory(Consumer<RedisLockFactory.Builder> settings) {
    return factory(cluster.uri(), settings);
  }

  private RedisLockFactory factory(String uri, Consumer<RedisLockFactory.Builder> settings) {
    RedisLockFactory.Builder builder =
        RedisLockFactory.builder()
            .cluster(uri)
            .commandTimeout(Duration.ofMillis(500))
            .onLockLost(lostEvents::add);
    settings.accept(builder);
    RedisLockFactory factory = builder.build();
    factories.add(factory);
    return factory;
  }

  private RedisLockFactory factory() {
    return factory(b -> {});
  }

  /** Every key on every master, with the master that holds it. */
  private static List<String> keysWithMaster() {
    List<String> keys = new ArrayList<>();
    for (RedisServer master : cluster.masters()) {
      try (Jedis jedis = master.jedis()) {
        jedis.keys("*").forEach(key -> keys.add(master.port() + " " + key));
      }
    }
    return keys;
  }

  /** Names with a hash tag, with braces that make none, and without braces. */
  private static final List<String> ODD_NAMES =
      List.of(
          "{user:42}:cart",
          "a}b",
          "}{",
          "{}x",
          "{a}{b}",
          "x{",
          "{",
          "}",
          "plain",
          "x{}y{z}",
          "ünï{cødé}",
          "{{x}}");

  @Test
  void everyOperationOfANameWithOrWithoutHashTagStaysInOneSlot() {
    RedisLockFactory factory = factory(b -> b.leaseTime(SHORT_LEASE));
    List<RedisDistributedLock> locks = new ArrayList<>();
    List<String> tokens = new ArrayList<>();
    List<Long> fences = new ArrayList<>();
    for (String suffix : ODD_NAMES) {
      String name = prefix + suffix;
      RedisDistributedLock lock = factory.getLock(name);
      lock.lock();
      locks.add(lock);
      fences.add(lock.getFencingToken());
      assertThat(lock.isLocked()).isTrue();
      try (Jedis jedis = cluster.jedisFor(name)) {
        tokens.add(jedis.get(name));
      }
    }
    // Each name has its lock key and one companion key, both in the name's slot.
    Map<Integer, Long> namesPerSlot =
        locks.stream()
            .collect(
                Collectors.groupingBy(
                    lock -> JedisClusterCRC16.getSlot(lock.getName()), Collectors.counting()));
    Map<Integer, Long> keysPerSlot = new HashMap<>();
    for (Jedis jedis : cluster.jedisAll()) {
      try (jedis) {
        for (String key : jedis.keys("*")) {
          keysPerSlot.merge((int) jedis.clusterKeySlot(key), 1L, Long::sum);
        }
      }
    }
    namesPerSlot.replaceAll((slot, names) -> 2 * names);
    assertThat(keysPerSlot).isEqualTo(namesPerSlot);

    long until = System.nanoTime() + 3 * SHORT_LEASE.toNanos();
    await().atMost(Timing.awaitAtMost()).until(() -> System.nanoTime() - until > 0);
    for (int i = 0; i < locks.size(); i++) {
      try (Jedis jedis = cluster.jedisFor(locks.get(i).getName())) {
        assertThat(jedis.get(locks.get(i).getName()))
            .as("renewed past several leases")
            .isEqualTo(tokens.get(i));
      }
    }
    locks.forEach(RedisDistributedLock::unlock);

    for (int i = 0; i < locks.size(); i++) {
      RedisDistributedLock lock = locks.get(i);
      assertThat(lock.isLocked()).isFalse();
      assertThat(lock.tryLock()).isTrue();
      assertThat(lock.getFencingToken()).isGreaterThan(fences.get(i));
      lock.unlock();
    }
    assertThat(lostEvents).isEmpty();
  }

  @ParameterizedTest(name = "[{index}] {0}")
  @ValueSource(strings = {"{user:42}:cart", "a}b", "plain"})
  void aReleaseWakesAWaiterWhoseClientKnowsAnotherMasterOnlyOnTheKeysMaster(String suffix)
      throws Exception {
    String name = prefix + suffix;
    RedisServer master = cluster.masterOf(name);
    RedisServer elsewhere =
        cluster.masters().stream().filter(m -> m != master).findFirst().orElseThrow();
    RedisLockFactory holding = factory();
    RedisLockFactory waiting =
        factory("redis-cluster://" + elsewhere.host() + ":" + elsewhere.port(), b -> {});
    for (Jedis jedis : cluster.jedisAll()) {
      try (jedis) {
        jedis.configResetStat();
      }
    }
    RedisDistributedLock holder = holding.getLock(name);
    RedisDistributedLock waiter = waiting.getLock(name);
    ExecutorService holderThread = Executors.newSingleThreadExecutor();
    try {
      holderThread.submit(() -> holder.lock()).get();
      Future<?> waited = threads.submit(() -> lockAndUnlock(waiter));
      // The waiter's subscription sits on the key's master, in its shard channels.
      try (Jedis jedis = master.jedis()) {
        await()
            .atMost(Timing.awaitAtMost())
            .until(() -> jedis.pubsubShardChannels("*").size() == 1);
        String channel = jedis.pubsubShardChannels("*").get(0);
        await()
            .atMost(Timing.awaitAtMost())
            .until(() -> jedis.pubsubShardNumSub(channel).get(channel) == 1);
      }
      holderThread.submit(holder::unlock).get();
      assertThat(waited).as("the waiter, woken by the release").succeedsWithin(Timing.PROMPTLY);
      assertThat(holding.activity().turnsGivenCount())
          .as("the release counted the waiter, another process: it gets the next turn")
          .isEqualTo(1);
    } finally {
      holderThread.shutdownNow();
    }
    // Published on the key's master only: no node broadcast a release to the whole cluster.
    assertThat(commandCalls(master, "spublish")).isPositive();
    for (RedisServer node : cluster.masters()) {
      assertThat(commandCalls(node, "publish")).as("PUBLISH calls on " + node).isZero();
    }
  }

  @Test
  void releasesOnEveryMasterCountTheWaitersOfAnotherProcess() throws Exception {
    // One name per master, and one factory waiting for all three at once: whichever node its
    // client happens to use, each release must count its waiter, so that turns alternate.
    List<String> names = new ArrayList<>();
    for (RedisServer master : cluster.masters()) {
      for (int i = 0; ; i++) {
        if (cluster.masterOf(prefix + i) == master) {
          names.add(prefix + i);
          break;
        }
      }
    }
    RedisLockFactory holding = factory();
    RedisLockFactory waiting = factory();
    ExecutorService holderThread = Executors.newSingleThreadExecutor();
    try {
      List<RedisDistributedLock> held = new ArrayList<>();
      for (String name : names) {
        RedisDistributedLock lock = holding.getLock(name);
        holderThread.submit(() -> lock.lock()).get();
        held.add(lock);
      }
      List<Future<?>> waiters = new ArrayList<>();
      for (String name : names) {
        RedisDistributedLock lock = waiting.getLock(name);
        waiters.add(threads.submit(() -> lockAndUnlock(lock)));
      }
      await().atMost(Timing.awaitAtMost()).until(() -> subscribersOnAllMasters() == names.size());
      for (RedisDistributedLock lock : held) {
        holderThread.submit(lock::unlock).get();
      }
      for (Future<?> waiter : waiters) {
        waiter.get(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS);
      }
    } finally {
      holderThread.shutdownNow();
    }
    assertThat(holding.activity().turnsGivenCount())
        .as("releases that saw the other process waiting")
        .isEqualTo(names.size());
  }

  @Test
  void aQuietShardedSubscriptionIsHealthCheckedAndKept() throws Exception {
    String name = prefix + "lock";
    RedisServer master = cluster.masterOf(name);
    RedisDistributedLock holder = factory().getLock(name);
    RedisDistributedLock waiter = factory().getLock(name);
    ExecutorService holderThread = Executors.newSingleThreadExecutor();
    try (Jedis jedis = master.jedis()) {
      holderThread.submit(() -> holder.lock()).get();
      Future<?> waited = threads.submit(() -> lockAndUnlock(waiter));
      await().atMost(Timing.awaitAtMost()).until(() -> subscribersOnAllMasters() == 1);
      String subscriber = subscriberId(jedis);
      // Several health checks pass, with nothing published: each is answered, none drops it.
      await()
          .during(Timing.scaled(Duration.ofSeconds(7)))
          .atMost(Timing.scaled(Duration.ofSeconds(10)))
          .until(() -> subscriber.equals(subscriberId(jedis)));
      holderThread.submit(holder::unlock).get();
      assertThat(waited).as("the waiter, woken by the release").succeedsWithin(Timing.PROMPTLY);
    } finally {
      holderThread.shutdownNow();
    }
  }

  /**
   * A master that loses a slot ends its clients' sharded subscriptions to the slot's channels by
   * itself ({@code sunsubscribe}), whatever the subscriber has under way on that connection (a
   * health probe, a channel added or removed): their replies may still come. Such a connection must
   * never go back to the pool that lends connections to commands, whose next command would read
   * them as its own reply (the torture run saw a lock acquisition get a {@code ClassCastException}
   * from one, during a failover).
   */
  @Test
  void aShardedSubscriptionConnectionIsNeverLentToCommandsAgain() throws Exception {
    String name = prefix + "lock";
    int slot = JedisClusterCRC16.getSlot(name);
    RedisServer source = cluster.masterOf(name);
    RedisServer target =
        cluster.masters().stream().filter(m -> m != source).findFirst().orElseThrow();
    RedisDistributedLock holder = factory().getLock(name);
    RedisDistributedLock waiter = factory().getLock(name);
    ExecutorService holderThread = Executors.newSingleThreadExecutor();
    boolean moved = false;
    try (Jedis jedis = source.jedis()) {
      holderThread.submit(() -> holder.lock()).get();
      Future<?> waited = threads.submit(() -> lockAndUnlock(waiter));
      await().atMost(Timing.awaitAtMost()).until(() -> subscribersOnAllMasters() == 1);
      String subscriber = subscriberId(jedis);

      moveSlot(slot, source, target, true);
      moved = true;

      await("the connection whose subscription the server ended is closed")
          .atMost(Timing.awaitAtMost())
          .until(() -> jedis.clientList().lines().noneMatch(l -> l.startsWith(subscriber + " ")));
      holderThread.submit(holder::unlock).get();
      assertThat(waited)
          .as("the waiter, subscribed again where the slot went")
          .succeedsWithin(Timing.awaitAtMost());
    } finally {
      holderThread.shutdownNow();
      if (moved) {
        moveSlot(slot, target, source, true);
      }
    }
  }

  /** The id of the one client of {@code jedis}'s server subscribed to something. */
  private static String subscriberId(Jedis jedis) {
    List<String> subscribed =
        jedis.clientList().lines().filter(line -> line.matches(".* s?sub=[1-9].*")).toList();
    assertThat(subscribed).as("subscribed clients").hasSize(1);
    return subscribed.get(0).split(" ")[0];
  }

  private static void lockAndUnlock(RedisDistributedLock lock) {
    lock.lock();
    lock.unlock();
  }

  /** Subscribers of every wake-up channel (plain or sharded), summed over the masters. */
  private static long subscribersOnAllMasters() {
    long count = 0;
    for (RedisServer master : cluster.masters()) {
      try (Jedis jedis = master.jedis()) {
        for (String channel : jedis.pubsubChannels("*")) {
          count += jedis.pubsubNumSub(channel).get(channel);
        }
        for (String channel : jedis.pubsubShardChannels("*")) {
          count += jedis.pubsubShardNumSub(channel).get(channel);
        }
      }
    }
    return count;
  }

  /** How often {@code command} ran on {@code node} (scripts' calls included). */
  private static long commandCalls(RedisServer node, String command) {
    try (Jedis jedis = node.jedis()) {
      for (String line : jedis.info("commandstats").lines().toList()) {
        if (line.startsWith("cmdstat_" + command + ":")) {
          String rest = line.substring(line.indexOf("calls=") + 6);
          return Long.parseLong(rest.substring(0, rest.indexOf(',')));
        }
      }
      return 0;
    }
  }

  @Test
  void locksOfManyNamesSpreadOverEveryMaster() {
    RedisLockFactory factory = factory();
    List<RedisDistributedLock> held = new ArrayList<>();
    for (int i = 0; i < 60; i++) {
      RedisDistributedLock lock = factory.getLock(prefix + i);
      lock.lock();
      held.add(lock);
    }
    try {
      for (RedisServer master : cluster.masters()) {
        try (Jedis jedis = master.jedis()) {
          assertThat(jedis.keys(prefix + "*")).as("lock keys on " + master).isNotEmpty();
        }
      }
    } finally {
      held.forEach(RedisDistributedLock::unlock);
    }
    for (RedisDistributedLock lock : held) {
      try (Jedis jedis = cluster.jedisFor(lock.getName())) {
        assertThat(jedis.exists(lock.getName())).isFalse();
      }
    }
  }

  @Test
  void aKeyPrefixWithAHashTagPutsEveryLockOnOneMaster() {
    RedisLockFactory factory = factory(b -> b.keyPrefix("{" + prefix + "}"));
    Set<Integer> slots = new HashSet<>();
    for (int i = 0; i < 20; i++) {
      RedisDistributedLock lock = factory.getLock("name-" + i);
      lock.lock();
      assertThat(lock.getFencingToken()).isPositive(); // writes the fencing counter beside the key
      lock.unlock();
      slots.add(JedisClusterCRC16.getSlot("{" + prefix + "}name-" + i));
    }
    assertThat(slots).hasSize(1);
    try (Jedis jedis = cluster.jedisFor("{" + prefix + "}")) {
      assertThat(jedis.keys("*")).as("the counters, all on one master").hasSize(20);
    }
    assertThat(keysWithMaster()).hasSize(20);
  }

  /**
   * The master stalls ({@code DEBUG SLEEP}) past the command timeout while the release is on its
   * way: the release runs when the master wakes, after the client gave up on its reply. A retry
   * then finds the key gone, which must not be taken for a lost hold: neither the retry of the
   * factory's own client nor that of a caller's client with Jedis's default retries.
   */
  @ParameterizedTest(name = "caller's client: {0}")
  @ValueSource(booleans = {false, true})
  void aReleaseThatRanAfterItsReplyTimedOutIsNotReportedLost(boolean callersClient)
      throws Exception {
    Duration timeout = Duration.ofSeconds(1);
    String name = prefix + "lock";
    RedisServer master = cluster.masterOf(name);
    RedisClusterClient client =
        callersClient
            ? RedisClusterClient.builder()
                .nodes(new HashSet<>(cluster.seeds()))
                .clientConfig(
                    DefaultJedisClientConfig.builder()
                        .socketTimeoutMillis((int) timeout.toMillis())
                        .build())
                .build()
            : null;
    RedisLockFactory.Builder builder =
        RedisLockFactory.builder().commandTimeout(timeout).onLockLost(lostEvents::add);
    RedisLockFactory factory =
        (callersClient ? builder.client(client) : builder.cluster(cluster.uri())).build();
    factories.add(factory);
    try {
      releaseDuringAStall(factory.getLock(name), master, timeout);
    } finally {
      if (client != null) {
        factory.close(); // before the client it uses
        client.close();
      }
    }
    try (Jedis jedis = cluster.jedisFor(name)) {
      assertThat(jedis.exists(name)).isFalse();
    }
    assertThat(lostEvents).isEmpty();
  }

  private void releaseDuringAStall(RedisDistributedLock lock, RedisServer master, Duration timeout)
      throws Exception {
    lock.lock();
    lock.unlock(); // the master caches the release script: the stalled call runs, not NOSCRIPT
    lock.lock();
    // Longer than one timeout, shorter than two: a retry sent when the first attempt times out
    // gets its reply in time.
    Duration stall = timeout.multipliedBy(3).dividedBy(2);
    Future<?> sleeping =
        threads.submit(
            () -> {
              try (Jedis jedis = master.jedis(stall.multipliedBy(4))) {
                jedis.sendCommand(DEBUG, "SLEEP", Double.toString(stall.toMillis() / 1000.0));
              }
              return null;
            });
    await("the master asleep")
        .atMost(Timing.awaitAtMost())
        .pollDelay(Duration.ZERO)
        .pollInterval(Duration.ofMillis(10))
        .until(() -> sleeping.isDone() || !answers(master));

    lock.unlock();

    sleeping.get(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS);
  }

  /**
   * The lock's slot moves to another master while it is held: its release, sent where the client
   * last saw the slot, follows the cluster's redirection ({@code MOVED} once the move is done,
   * {@code ASK} while it is under way) to the key.
   */
  @ParameterizedTest(name = "move finished: {0}")
  @ValueSource(booleans = {true, false})
  void aReleaseFollowsItsKeyToTheMasterItMovedTo(boolean finished) {
    String name = prefix + "lock";
    int slot = JedisClusterCRC16.getSlot(name);
    RedisServer source = cluster.masterOf(name);
    RedisServer target =
        cluster.masters().stream().filter(m -> m != source).findFirst().orElseThrow();
    RedisDistributedLock lock = factory().getLock(name);
    lock.lock();
    try {
      moveSlot(slot, source, target, finished);

      lock.unlock();

      try (Jedis jedis = target.jedis()) {
        jedis.asking();
        assertThat(jedis.exists(name)).isFalse();
      }
      assertThat(lostEvents).isEmpty();
    } finally {
      if (finished) {
        moveSlot(slot, target, source, true);
      } else {
        for (RedisServer master : List.of(source, target)) {
          try (Jedis jedis = master.jedis()) {
            jedis.clusterSetSlotStable(slot);
          }
        }
      }
    }
  }

  /**
   * Moves {@code slot} and its keys from {@code from} to {@code to}; when {@code finished}, hands
   * the slot over and waits until every master agrees, else leaves it migrating.
   */
  private static void moveSlot(int slot, RedisServer from, RedisServer to, boolean finished) {
    String fromId;
    String toId;
    try (Jedis source = from.jedis();
        Jedis target = to.jedis()) {
      fromId = source.clusterMyId();
      toId = target.clusterMyId();
      target.clusterSetSlotImporting(slot, fromId);
      source.clusterSetSlotMigrating(slot, toId);
      for (String key : source.clusterGetKeysInSlot(slot, 100)) {
        source.migrate(to.host(), to.port(), key, 0, 5_000);
      }
      if (!finished) {
        return;
      }
      target.clusterSetSlotNode(slot, toId);
      source.clusterSetSlotNode(slot, toId);
    }
    for (RedisServer master : cluster.masters()) {
      if (master != from && master != to) {
        try (Jedis other = master.jedis()) {
          other.clusterSetSlotNode(slot, toId);
        }
      }
    }
    await("every master sees slot " + slot + " on " + to)
        .atMost(Timing.awaitAtMost())
        .until(() -> cluster.masters().stream().allMatch(m -> ownerPort(m, slot) == to.port()));
  }

  /** The port of the master that {@code master} says serves {@code slot}. */
  private static int ownerPort(RedisServer master, int slot) {
    try (Jedis jedis = master.jedis()) {
      jedis.get(keyInSlot(slot));
      return master.port();
    } catch (JedisMovedDataException e) {
      return e.getTargetNode().getPort();
    }
  }

  /** A key of {@code slot}. */
  private static String keyInSlot(int slot) {
    for (int i = 0; ; i++) {
      String key = "slot-probe:" + i;
      if (JedisClusterCRC16.getSlot(key) == slot) {
        return key;
      }
    }
  }

  /** Whether {@code server} answers a {@code PING} within 50 ms. */
  private static boolean answers(RedisServer server) {
    try (Jedis jedis = server.jedis(Duration.ofMillis(50))) {
      jedis.ping();
      return true;
    } catch (JedisConnectionException e) {
      return false;
    }
  }

  @Test
  void aMasterKilledWithoutReplicaLosesItsHoldsAndServesAgainAfterARestart() {
    String name = prefix + "lock";
    RedisServer master = cluster.masterOf(name);
    RedisDistributedLock lock = factory(b -> b.leaseTime(SHORT_LEASE)).getLock(name);
    lock.lock();
    long fence = lock.getFencingToken();
    master.kill();
    try {
      await().atMost(Timing.awaitAtMost()).until(() -> lostEvents.size() == 1);
      assertThat(lostEvents.get(0).lockName()).isEqualTo(name);
      assertThat(lock.isHeldByCurrentThread()).isFalse();
      assertThatThrownBy(lock::unlock).isInstanceOf(LockLostException.class);
    } finally {
      cluster.restart(master);
    }
    await().atMost(Timing.awaitAtMost()).pollInSameThread().ignoreExceptions().until(lock::tryLock);
    assertThat(lock.getFencingToken()).isGreaterThan(fence);
    lock.unlock();
  }
}
