package io.github.redislock.testing;

import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;

/**
 * A real Redis Sentinel deployment: a master, one replica and three Sentinels (quorum 2), each a
 * {@link RedisServer}. The Sentinels declare a master down after 1 s without an answer ({@code
 * down-after-milliseconds 1000}) and fail over in about 2 s ({@code failover-timeout 2000}); each
 * runs from its own writable config file.
 *
 * <p>{@link #start()} returns once every Sentinel sees the master up, the replica up and linked,
 * and the two other Sentinels: a failover can happen from then on. The master is whichever data
 * node the Sentinels name, so it changes with {@link #killMaster()}.
 *
 * <pre>{@code
 * try (RedisSentinelGroup group = RedisSentinelGroup.start()) {
 *     RedisLockFactory locks = RedisLockFactory.builder().sentinel(group.uri()).build();
 *     RedisServer newMaster = group.killMaster();   // returns after the failover
 * }
 * }</pre>
 */
public final class RedisSentinelGroup implements AutoCloseable {

  /** The name the Sentinels know the master by. */
  public static final String MASTER_NAME = "mymaster";

  private static final int SENTINELS = 3;
  private static final int QUORUM = 2;
  private static final Duration DOWN_AFTER = Duration.ofSeconds(1);
  private static final Duration FAILOVER_TIMEOUT = Duration.ofSeconds(2);
  private static final Duration POLL = Duration.ofMillis(50);

  private final List<RedisServer> dataNodes;
  private final List<RedisServer> sentinels;

  private RedisSentinelGroup(List<RedisServer> dataNodes, List<RedisServer> sentinels) {
    this.dataNodes = dataNodes;
    this.sentinels = sentinels;
  }

  /**
   * Starts the master, its replica and three Sentinels, and waits until a failover could happen.
   *
   * @return the running group; close it
   */
  public static RedisSentinelGroup start() {
    return start(null);
  }

  /**
   * Like {@link #start()}, with every server (the data nodes and the Sentinels) also listening for
   * TLS connections ({@link RedisServer#startTls}), replication and the Sentinels' connections to
   * the data nodes over TLS: the Sentinels name the master by its TLS port. {@link #tlsUri()} names
   * the Sentinels' TLS ports.
   *
   * @param tls the certificates
   * @return the running group; close it
   */
  public static RedisSentinelGroup startTls(TlsMaterial tls) {
    return start(tls);
  }

  private static RedisSentinelGroup start(TlsMaterial tls) {
    List<RedisServer> dataNodes = new ArrayList<>();
    List<RedisServer> sentinels = new ArrayList<>();
    RedisSentinelGroup group = new RedisSentinelGroup(dataNodes, sentinels);
    try {
      RedisServer master =
          tls == null
              ? RedisServer.start()
              : RedisServer.startTls(tls, false, false, "--tls-replication", "yes");
      dataNodes.add(master);
      dataNodes.add(
          tls == null
              ? RedisServer.start("--replicaof", master.host(), Integer.toString(master.port()))
              : RedisServer.startTls(
                  tls,
                  false,
                  false,
                  "--tls-replication",
                  "yes",
                  "--replicaof",
                  master.host(),
                  Integer.toString(master.tlsPort())));
      String config =
          "sentinel monitor "
              + MASTER_NAME
              + " "
              + master.host()
              + " "
              + (tls == null ? master.port() : master.tlsPort())
              + " "
              + QUORUM
              + "\n"
              + "sentinel down-after-milliseconds "
              + MASTER_NAME
              + " "
              + DOWN_AFTER.toMillis()
              + "\n"
              + "sentinel failover-timeout "
              + MASTER_NAME
              + " "
              + FAILOVER_TIMEOUT.toMillis()
              + "\n";
      for (int i = 0; i < SENTINELS; i++) {
        sentinels.add(
            tls == null
                ? RedisServer.startWithConfig(config, "--sentinel")
                : RedisServer.startTlsWithConfig(tls, config, "--sentinel"));
      }
      group.awaitReady();
      return group;
    } catch (RuntimeException | Error e) {
      group.close();
      throw e;
    }
  }

  /**
   * The name the Sentinels know the master by.
   *
   * @return {@value #MASTER_NAME}
   */
  public String masterName() {
    return MASTER_NAME;
  }

  /**
   * The Sentinels' addresses.
   *
   * @return one address per Sentinel
   */
  public List<HostAndPort> sentinelAddresses() {
    return sentinels.stream().map(s -> new HostAndPort(s.host(), s.port())).toList();
  }

  /**
   * The deployment as a URI naming every Sentinel and the master name.
   *
   * @return {@code "redis-sentinel://127.0.0.1:S1,127.0.0.1:S2,127.0.0.1:S3/mymaster"}
   */
  public String uri() {
    return "redis-sentinel://"
        + sentinelAddresses().stream().map(HostAndPort::toString).collect(Collectors.joining(","))
        + "/"
        + MASTER_NAME;
  }

  /**
   * The deployment as a TLS URI naming every Sentinel's TLS port, for a group started with {@link
   * #startTls}.
   *
   * @return {@code "rediss-sentinel://127.0.0.1:T1,127.0.0.1:T2,127.0.0.1:T3/mymaster"}
   */
  public String tlsUri() {
    return "rediss-sentinel://"
        + sentinels.stream().map(s -> s.host() + ":" + s.tlsPort()).collect(Collectors.joining(","))
        + "/"
        + MASTER_NAME;
  }

  /**
   * The data node the first Sentinel that answers names as the master.
   *
   * @return the current master
   * @throws IllegalStateException if no Sentinel answers, or it names no data node of this group
   */
  public RedisServer master() {
    RuntimeException failure = null;
    for (RedisServer sentinel : sentinels) {
      try (Jedis j = sentinel.jedis()) {
        return dataNode(j.sentinelGetMasterAddrByName(MASTER_NAME));
      } catch (RuntimeException e) {
        failure = e;
      }
    }
    throw new IllegalStateException("no Sentinel names the master", failure);
  }

  /**
   * The data nodes other than the current master, running or not.
   *
   * @return the replicas (one before any failover)
   */
  public List<RedisServer> replicas() {
    RedisServer master = master();
    return dataNodes.stream().filter(n -> n != master).toList();
  }

  /**
   * Kills the master (SIGKILL) and waits until the Sentinels have failed over to the replica.
   *
   * @return the new master
   */
  public RedisServer killMaster() {
    RedisServer old = master();
    old.kill();
    return awaitFailoverFrom(old);
  }

  /**
   * Waits until every Sentinel names the same master other than {@code old}, and that master
   * answers {@code ROLE} as a master.
   *
   * @param old the master that went away
   * @return the new master
   */
  public RedisServer awaitFailoverFrom(RedisServer old) {
    return await("failover away from " + old)
        .atMost(Timing.awaitAtMost())
        .pollInterval(POLL)
        .ignoreExceptions()
        .until(
            () -> {
              Set<Integer> named = new HashSet<>();
              for (RedisServer sentinel : sentinels) {
                try (Jedis j = sentinel.jedis()) {
                  named.add(Integer.parseInt(j.sentinelGetMasterAddrByName(MASTER_NAME).get(1)));
                }
              }
              if (named.size() != 1
                  || named.contains(old.port())
                  || (old.hasTls() && named.contains(old.tlsPort()))) {
                return null;
              }
              RedisServer candidate = master();
              return role(candidate).equals("master") ? candidate : null;
            },
            candidate -> candidate != null);
  }

  /**
   * Kills every data node (not the Sentinels): connections are refused, and nobody can be promoted.
   */
  public void killDataNodes() {
    dataNodes.forEach(RedisServer::kill);
  }

  /**
   * Starts the killed data nodes again, empty: the master first, and its replicas once every
   * Sentinel sees the master up (so none of them can promote a replica meanwhile), then waits until
   * the group is ready for a failover again.
   */
  public void restartDataNodes() {
    RedisServer master = master();
    master.restart();
    awaitEverySentinel(
        "master " + master + " up",
        j -> flags(j.sentinelMaster(MASTER_NAME)).equals(Set.of("master")));
    for (RedisServer replica : dataNodes) {
      if (replica != master) {
        replica.restart();
      }
    }
    awaitReady();
  }

  /** Freezes every data node (SIGSTOP); a frozen replica cannot be promoted. */
  public void pauseDataNodes() {
    dataNodes.forEach(RedisServer::pause);
  }

  /** Thaws the data nodes frozen by {@link #pauseDataNodes()}. */
  public void resumeDataNodes() {
    dataNodes.forEach(RedisServer::resume);
  }

  /** Kills the Sentinels, then the data nodes, and deletes their directories. Idempotent. */
  @Override
  public void close() {
    sentinels.forEach(RedisServer::close);
    dataNodes.forEach(RedisServer::close);
  }

  @Override
  public String toString() {
    return "RedisSentinelGroup[data=" + dataNodes + ", sentinels=" + sentinels + "]";
  }

  /**
   * Waits until every Sentinel sees the master and one linked replica up, and the other Sentinels.
   */
  private void awaitReady() {
    int others = sentinels.size() - 1;
    int replicas = dataNodes.size() - 1;
    awaitEverySentinel(
        "ready for a failover",
        j -> {
          Map<String, String> master = j.sentinelMaster(MASTER_NAME);
          if (!flags(master).equals(Set.of("master"))
              || Integer.parseInt(master.get("num-other-sentinels")) != others) {
            return false;
          }
          List<Map<String, String>> known = j.sentinelReplicas(MASTER_NAME);
          return known.size() == replicas
              && known.stream()
                  .allMatch(
                      r ->
                          flags(r).equals(Set.of("slave"))
                              && "ok".equals(r.get("master-link-status")));
        });
  }

  private void awaitEverySentinel(String what, SentinelCheck check) {
    await(what + " in " + this)
        .atMost(Timing.awaitAtMost())
        .pollInterval(POLL)
        .ignoreExceptions()
        .until(
            () -> {
              for (RedisServer sentinel : sentinels) {
                try (Jedis j = sentinel.jedis()) {
                  if (!check.test(j)) {
                    return false;
                  }
                }
              }
              return true;
            });
  }

  private RedisServer dataNode(List<String> address) {
    int port = Integer.parseInt(address.get(1));
    return dataNodes.stream()
        .filter(n -> n.port() == port || (n.hasTls() && n.tlsPort() == port))
        .findFirst()
        .orElseThrow(
            () ->
                new IllegalStateException(
                    "the Sentinels name " + address + ", which is no data node of " + this));
  }

  private static Set<String> flags(Map<String, String> instance) {
    return Set.of(instance.get("flags").split(","));
  }

  private static String role(RedisServer server) {
    try (Jedis j = server.jedis()) {
      Object first = j.role().get(0);
      return first instanceof byte[] bytes
          ? new String(bytes, StandardCharsets.UTF_8)
          : String.valueOf(first);
    }
  }

  /** A check of one Sentinel's view. */
  @FunctionalInterface
  private interface SentinelCheck {
    boolean test(Jedis sentinel);
  }
}
