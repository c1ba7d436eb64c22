package io.github.redislock.test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * A Redis Cluster of a test's own: masters without replicas, each a {@link ThrowawayRedis} with
 * {@code --cluster-enabled yes} on a free loopback port whose bus port ({@code port + 10000}) is
 * free too, started by {@link #start()} and killed by {@link #close()}. Master {@code i} serves the
 * {@code i}-th of equal ranges of the 16384 slots, which never move, so a test finds the master of
 * a key by its slot ({@link #masterOf}). The cluster is made without {@code redis-cli}: each master
 * gets its slots and a config epoch of its own, then the first meets the others.
 *
 * <pre>{@code
 * try (ThrowawayCluster cluster = ThrowawayCluster.start()) {
 *   RedisLockFactory factory = RedisLockFactory.builder().cluster(cluster.uri()).build();
 *   try (Jedis raw = cluster.jedisFor("orders")) { ... }   // the master of the key "orders"
 * }
 * }</pre>
 */
public final class ThrowawayCluster implements AutoCloseable {

  /** The number of hash slots of every Redis Cluster. */
  public static final int SLOTS = 16_384;

  private static final int BUS_PORT_OFFSET = 10_000;
  private static final Duration READY_TIMEOUT = Duration.ofSeconds(30);

  private final List<ThrowawayRedis> masters;

  private ThrowawayCluster(List<ThrowawayRedis> masters) {
    this.masters = masters;
  }

  /**
   * Starts a cluster of three masters and waits until it serves every slot.
   *
   * @return the running cluster; close it
   * @throws IllegalStateException if a server could not be started, or the cluster was not ready
   *     within 30 s; the servers started are killed then
   */
  public static ThrowawayCluster start() {
    return start(3);
  }

  /**
   * Starts a cluster of {@code count} masters and waits until it serves every slot.
   *
   * @param count the number of masters, at least 1
   * @return the running cluster; close it
   * @throws IllegalArgumentException if {@code count} is less than 1
   * @throws IllegalStateException if a server could not be started, or the cluster was not ready
   *     within 30 s; the servers started are killed then
   */
  public static ThrowawayCluster start(int count) {
    if (count < 1) {
      throw new IllegalArgumentException("count must be at least 1, got " + count);
    }
    List<ThrowawayRedis> masters = new ArrayList<>();
    ThrowawayCluster cluster = new ThrowawayCluster(masters);
    try {
      for (int i = 0; i < count; i++) {
        masters.add(
            ThrowawayRedis.start(ThrowawayCluster::freePortPair, null, "--cluster-enabled", "yes"));
      }
      cluster.create();
      cluster.awaitReady();
      return cluster;
    } catch (RuntimeException | Error e) {
      try {
        cluster.close();
      } catch (RuntimeException closing) {
        e.addSuppressed(closing);
      }
      throw e;
    }
  }

  /** A free port whose bus port is free too. */
  private static int freePortPair() {
    for (int i = 0; i < 100; i++) {
      int port = ThrowawayRedis.freePort();
      if (port + BUS_PORT_OFFSET <= 65_535 && ThrowawayRedis.isFree(port + BUS_PORT_OFFSET)) {
        return port;
      }
    }
    throw new IllegalStateException("no free pair of ports (port, port + " + BUS_PORT_OFFSET + ")");
  }

  private void create() {
    boolean ranges = RedisBinary.majorVersion() >= 7;
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
      for (ThrowawayRedis other : masters.subList(1, masters.size())) {
        first.clusterMeet(other.host(), other.port());
      }
    }
  }

  private void awaitReady() {
    List<String> expected =
        List.of(
            "cluster_state:ok",
            "cluster_slots_assigned:" + SLOTS,
            "cluster_slots_ok:" + SLOTS,
            "cluster_known_nodes:" + masters.size());
    Polling.until(
        "ready",
        READY_TIMEOUT,
        () -> {
          for (ThrowawayRedis master : masters) {
            try (Jedis j = master.jedis()) {
              if (!j.clusterInfo().lines().map(String::trim).toList().containsAll(expected)) {
                return false;
              }
            }
          }
          return true;
        },
        this::toString);
  }

  private int firstSlot(int index) {
    return (int) ((long) SLOTS * index / masters.size());
  }

  /**
   * The cluster as a URI naming every master as a seed node, for {@code
   * RedisLockFactory.builder().cluster(uri)}.
   *
   * @return {@code redis-cluster://127.0.0.1:P1,127.0.0.1:P2,...}
   */
  public String uri() {
    return "redis-cluster://"
        + masters.stream().map(m -> m.host() + ":" + m.port()).collect(Collectors.joining(","));
  }

  /**
   * The masters, in slot order: master {@code i} serves the {@code i}-th range of slots.
   *
   * @return the masters
   */
  public List<ThrowawayRedis> masters() {
    return List.copyOf(masters);
  }

  /**
   * The master that serves {@code key}'s slot.
   *
   * @param key a Redis key
   * @return its master
   */
  public ThrowawayRedis masterOf(String key) {
    int slot = JedisClusterCRC16.getSlot(key);
    for (int i = masters.size() - 1; i >= 0; i--) {
      if (slot >= firstSlot(i)) {
        return masters.get(i);
      }
    }
    throw new IllegalStateException("no master serves slot " + slot);
  }

  /**
   * A new connection to the master that serves {@code key}'s slot, to read or write the key.
   *
   * @param key a Redis key
   * @return the connection, which the caller closes
   */
  public Jedis jedisFor(String key) {
    return masterOf(key).jedis();
  }

  /** Deletes every key, on every master. */
  public void flushAll() {
    masters.forEach(ThrowawayRedis::flushAll);
  }

  /** Kills every master. */
  @Override
  public void close() {
    RuntimeException failure = null;
    for (ThrowawayRedis master : masters) {
      try {
        master.close();
      } catch (RuntimeException e) {
        if (failure == null) {
          failure = e;
        } else {
          failure.addSuppressed(e);
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
  }

  @Override
  public String toString() {
    return "ThrowawayCluster" + masters;
  }
}
