package io.github.redislock.test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import redis.clients.jedis.Jedis;

/**
 * A Sentinel-managed Redis of a test's own: a master, its replica and one Sentinel, each a {@link
 * ThrowawayRedis} on a free loopback port, started by {@link #start()} and killed by {@link
 * #close()}. For tests of code that reaches Redis through a Sentinel ({@code
 * RedisLockFactory.builder().sentinel(uri())}), not of failovers: with one Sentinel (quorum 1) that
 * only declares the master down after {@value #DOWN_AFTER_MILLIS} ms without an answer, the master
 * stays the master while the test runs.
 *
 * <pre>{@code
 * try (ThrowawaySentinel redis = ThrowawaySentinel.start()) {
 *   RedisLockFactory factory = RedisLockFactory.builder().sentinel(redis.uri()).build();
 *   try (Jedis master = redis.master().jedis()) { ... }   // the keys, as the factory sees them
 * }
 * }</pre>
 */
public final class ThrowawaySentinel implements AutoCloseable {

  /** The name the Sentinel knows the master by. */
  public static final String MASTER_NAME = "mymaster";

  /** How long the master may not answer before the Sentinel declares it down. */
  public static final int DOWN_AFTER_MILLIS = 30_000;

  private static final Duration READY_TIMEOUT = Duration.ofSeconds(30);

  private final ThrowawayRedis master;
  private final ThrowawayRedis replica;
  private final ThrowawayRedis sentinel;

  private ThrowawaySentinel(
      ThrowawayRedis master, ThrowawayRedis replica, ThrowawayRedis sentinel) {
    this.master = master;
    this.replica = replica;
    this.sentinel = sentinel;
  }

  /**
   * Starts the master, its replica and the Sentinel, and waits until the Sentinel names the master,
   * and the replica is linked to it and known to the Sentinel.
   *
   * @return the running deployment; close it
   * @throws IllegalStateException if a server could not be started, or the deployment was not ready
   *     within 30 s; the servers started are killed then
   */
  public static ThrowawaySentinel start() {
    ThrowawayRedis master = null;
    ThrowawayRedis replica = null;
    ThrowawayRedis sentinel = null;
    try {
      master = ThrowawayRedis.start();
      replica = ThrowawayRedis.start("--replicaof", master.host(), Integer.toString(master.port()));
      awaitLinked(replica); // so that the Sentinel's first look at the master finds it
      String config =
          String.join(
              "\n",
              "sentinel monitor " + MASTER_NAME + " " + master.host() + " " + master.port() + " 1",
              "sentinel down-after-milliseconds " + MASTER_NAME + " " + DOWN_AFTER_MILLIS,
              "sentinel failover-timeout " + MASTER_NAME + " " + 2 * DOWN_AFTER_MILLIS,
              "");
      sentinel = ThrowawayRedis.start(ThrowawayRedis::freePort, config, "--sentinel");
      ThrowawaySentinel deployment = new ThrowawaySentinel(master, replica, sentinel);
      deployment.awaitReady();
      return deployment;
    } catch (RuntimeException | Error e) {
      for (ThrowawayRedis server : new ThrowawayRedis[] {sentinel, replica, master}) {
        if (server != null) {
          server.close();
        }
      }
      throw e;
    }
  }

  private static void awaitLinked(ThrowawayRedis replica) {
    Polling.until(
        "linked to its master",
        READY_TIMEOUT,
        () -> {
          try (Jedis r = replica.jedis()) {
            return r.info("replication").contains("master_link_status:up");
          }
        },
        replica::toString);
  }

  private void awaitReady() {
    Polling.until(
        "ready",
        READY_TIMEOUT,
        () -> {
          try (Jedis s = sentinel.jedis();
              Jedis r = replica.jedis()) {
            List<String> named = s.sentinelGetMasterAddrByName(MASTER_NAME);
            Map<String, String> known = s.sentinelMaster(MASTER_NAME);
            List<Map<String, String>> replicas = s.sentinelReplicas(MASTER_NAME);
            return named.equals(List.of(master.host(), Integer.toString(master.port())))
                && flags(known).equals(Set.of("master"))
                && replicas.size() == 1
                && flags(replicas.get(0)).equals(Set.of("slave"))
                && "ok".equals(replicas.get(0).get("master-link-status"))
                && r.info("replication").contains("master_link_status:up");
          }
        },
        this::toString);
  }

  private static Set<String> flags(Map<String, String> instance) {
    return Set.of(instance.get("flags").split(","));
  }

  /**
   * The deployment as a URI, for {@code RedisLockFactory.builder().sentinel(uri)}.
   *
   * @return {@code redis-sentinel://127.0.0.1:PORT/mymaster}, naming the Sentinel
   */
  public String uri() {
    return "redis-sentinel://" + sentinel.host() + ":" + sentinel.port() + "/" + MASTER_NAME;
  }

  /**
   * The name the Sentinel knows the master by.
   *
   * @return {@value #MASTER_NAME}
   */
  public String masterName() {
    return MASTER_NAME;
  }

  /**
   * The master: where clients write, and where a test reads what they wrote.
   *
   * @return the master's server
   */
  public ThrowawayRedis master() {
    return master;
  }

  /**
   * The master's replica.
   *
   * @return the replica's server
   */
  public ThrowawayRedis replica() {
    return replica;
  }

  /**
   * The Sentinel.
   *
   * @return the Sentinel's server
   */
  public ThrowawayRedis sentinel() {
    return sentinel;
  }

  /** Deletes every key, on the master (and so, by replication, on the replica). */
  public void flushAll() {
    master.flushAll();
  }

  /** Kills the Sentinel, then the replica and the master. */
  @Override
  public void close() {
    try {
      sentinel.close();
    } finally {
      try {
        replica.close();
      } finally {
        master.close();
      }
    }
  }

  @Override
  public String toString() {
    return "ThrowawaySentinel[master="
        + master
        + ", replica="
        + replica
        + ", sentinel="
        + sentinel
        + "]";
  }
}
