package io.github.redislock.testing;

import static org.awaitility.Awaitility.await;

import io.github.redislock.test.RedisBinary;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * A real Redis Cluster of masters without replicas, each a {@link RedisServer} started with {@code
 * --cluster-enabled yes} on a free port whose bus port ({@code port + 10000}) is free too.
 *
 * <p>The cluster is created without {@code redis-cli} (the bundled 6.2 binary comes without it):
 * each node gets its own config epoch and a contiguous range of the 16384 slots ({@code CLUSTER
 * ADDSLOTSRANGE} on 7.0+, {@code CLUSTER ADDSLOTS} before), then the first node meets the others.
 * {@link #start()} returns once every node reports {@code cluster_state:ok}, knows every node and
 * sees all slots assigned to reachable masters. Slots never move, so the master of a key is
 * computed from the key's slot.
 *
 * <pre>{@code
 * try (RedisCluster cluster = RedisCluster.start()) {
 *     RedisLockFactory locks = RedisLockFactory.builder().cluster(cluster.uri()).build();
 *     try (Jedis raw = cluster.jedisFor("orders")) { ... }   // the master of "orders"
 * }
 * }</pre>
 */
public final class RedisCluster implements AutoCloseable {

  /** The number of hash slots of every Redis Cluster. */
  public static final int SLOTS = 16_384;

  private static final int DEFAULT_MASTERS = 3;
  private static final Duration POLL = Duration.ofMillis(50);

  private final List<RedisServer> masters;
  private final Path binary;

  private RedisCluster(List<RedisServer> masters, Path binary) {
    this.masters = List.copyOf(masters);
    this.binary = binary;
  }

  /**
   * Starts a cluster of three masters and waits until it is ready.
   *
   * @return the running cluster; close it
   */
  public static RedisCluster start() {
    return start(DEFAULT_MASTERS);
  }

  /**
   * Starts a cluster of {@code count} masters and waits until it is ready.
   *
   * @param count the number of masters, at least 1
   * @return the running cluster; close it
   */
  public static RedisCluster start(int count) {
    return startWith(RedisBinary.path(), count);
  }

  /**
   * Starts a cluster of {@code count} masters of an explicit {@code redis-server} binary (for
   * example {@link RedisBinary#extractBundled()}, Redis 6.2) and waits until it is ready.
   *
   * @param binary the {@code redis-server} executable
   * @param count the number of masters, at least 1
   * @return the running cluster; close it
   */
  public static RedisCluster startWith(Path binary, int count) {
    return start(binary, count, null);
  }

  /**
   * Starts a cluster of three masters that also listen for TLS connections, and talk to each other
   * over TLS ({@code tls-cluster yes}, on a bus port of their own): the cluster then names each
   * node by its TLS port to clients connected by TLS. {@link #tlsUri()} names the TLS ports.
   *
   * @param tls the certificates
   * @return the running cluster; close it
   */
  public static RedisCluster startTls(TlsMaterial tls) {
    return start(RedisBinary.path(), DEFAULT_MASTERS, tls);
  }

  private static RedisCluster start(Path binary, int count, TlsMaterial tls) {
    List<RedisServer> started = new ArrayList<>();
    try {
      for (int i = 0; i < count; i++) {
        started.add(
            tls == null
                ? RedisServer.startWith(binary, "--cluster-enabled", "yes")
                : RedisServer.startTls(
                    tls,
                    false,
                    false,
                    "--cluster-enabled",
                    "yes",
                    "--tls-cluster",
                    "yes",
                    "--tls-replication",
                    "yes",
                    "--cluster-port",
                    Integer.toString(RedisServer.freePort())));
      }
      RedisCluster cluster = new RedisCluster(started, binary);
      cluster.create();
      cluster.awaitReady();
      return cluster;
    } catch (RuntimeException | Error e) {
      started.forEach(RedisServer::close);
      throw e;
    }
  }

  /**
   * The masters, in slot order: master {@code i} serves the {@code i}-th range of slots.
   *
   * @return the masters
   */
  public List<RedisServer> masters() {
    return masters;
  }

  /**
   * The addresses of every master, for a cluster client's seed nodes.
   *
   * @return one address per master
   */
  public List<HostAndPort> seeds() {
    return masters.stream().map(m -> new HostAndPort(m.host(), m.port())).toList();
  }

  /**
   * The cluster as a URI naming every master as a seed node.
   *
   * @return {@code "redis-cluster://127.0.0.1:P1,127.0.0.1:P2,..."}
   */
  public String uri() {
    return "redis-cluster://"
        + seeds().stream().map(HostAndPort::toString).collect(Collectors.joining(","));
  }

  /**
   * The cluster as a TLS URI naming every master's TLS port, for a cluster started with {@link
   * #startTls}.
   *
   * @return {@code "rediss-cluster://127.0.0.1:T1,127.0.0.1:T2,..."}
   */
  public String tlsUri() {
    return "rediss-cluster://"
        + masters.stream().map(m -> m.host() + ":" + m.tlsPort()).collect(Collectors.joining(","));
  }

  /**
   * The master serving {@code key}'s slot.
   *
   * @param key a Redis key
   * @return its master
   */
  public RedisServer masterOf(String key) {
    return masters.get(indexOfSlot(JedisClusterCRC16.getSlot(key)));
  }

  /**
   * A new raw connection to the master serving {@code key}'s slot.
   *
   * @param key a Redis key
   * @return a connection; the caller closes it
   */
  public Jedis jedisFor(String key) {
    return masterOf(key).jedis();
  }

  /**
   * A new raw connection to every master.
   *
   * @return one connection per master; the caller closes each
   */
  public List<Jedis> jedisAll() {
    return masters.stream().map(RedisServer::jedis).toList();
  }

  /** Kills every master (SIGKILL): connections are refused until {@link #restartAll()}. */
  public void killAll() {
    masters.forEach(RedisServer::kill);
  }

  /**
   * Starts every master again on its port, empty, and waits until the cluster is ready. Each node
   * keeps its {@code nodes.conf}, so the cluster forms again with the same node ids and slots.
   */
  public void restartAll() {
    masters.forEach(RedisServer::restart);
    awaitReady();
  }

  /**
   * Starts one killed master again, empty, and waits until the cluster is ready.
   *
   * @param master one of {@link #masters()}
   */
  public void restart(RedisServer master) {
    master.restart();
    awaitReady();
  }

  /** Freezes every master (SIGSTOP). */
  public void pauseAll() {
    masters.forEach(RedisServer::pause);
  }

  /** Thaws every master frozen by {@link #pauseAll()}. */
  public void resumeAll() {
    masters.forEach(RedisServer::resume);
  }

  /** Kills every master and deletes its directory. Idempotent. */
  @Override
  public void close() {
    masters.forEach(RedisServer::close);
  }

  @Override
  public String toString() {
    return "RedisCluster" + masters;
  }

  /** Gives each master its config epoch and slots, then lets the first meet the others. */
  private void create() {
    boolean ranges = RedisBinary.majorVersion(binary) >= 7;
    for (int i = 0; i < masters.size(); i++) {
      try (Jedis j = masters.get(i).jedis()) {
        j.clusterSetConfigEpoch(i + 1);
        int first = firstSlot(i);
        int last = firstSlot(i + 1) - 1;
        if (ranges) {
          j.clusterAddSlotsRange(first, last);
        } else {
          j.clusterAddSlots(IntStream.rangeClosed(first, last).toArray());
        }
      }
    }
    try (Jedis first = masters.get(0).jedis()) {
      for (RedisServer other : masters.subList(1, masters.size())) {
        String busPort = other.argument("--cluster-port");
        if (busPort == null) {
          first.clusterMeet(other.host(), other.port());
        } else {
          first.sendCommand(
              Protocol.Command.CLUSTER,
              "MEET",
              other.host(),
              Integer.toString(other.tlsPort()),
              busPort);
        }
      }
    }
  }

  /** Waits until every node is in state ok, knows every node and sees every slot assigned. */
  private void awaitReady() {
    await("cluster ready: " + this)
        .atMost(Timing.awaitAtMost())
        .pollInterval(POLL)
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              for (RedisServer master : masters) {
                String info;
                try (Jedis j = master.jedis()) {
                  info = j.clusterInfo();
                }
                List<String> lines = info.lines().map(String::trim).toList();
                for (String expected :
                    List.of(
                        "cluster_state:ok",
                        "cluster_slots_assigned:" + SLOTS,
                        "cluster_slots_ok:" + SLOTS,
                        "cluster_known_nodes:" + masters.size())) {
                  if (!lines.contains(expected)) {
                    throw new AssertionError(master + " lacks " + expected + " in\n" + info);
                  }
                }
              }
            });
  }

  private int firstSlot(int index) {
    return (int) ((long) SLOTS * index / masters.size());
  }

  private int indexOfSlot(int slot) {
    for (int i = masters.size() - 1; i >= 0; i--) {
      if (slot >= firstSlot(i)) {
        return i;
      }
    }
    throw new IllegalArgumentException("no slot " + slot);
  }
}
