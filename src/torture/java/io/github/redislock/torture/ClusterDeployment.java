package io.github.redislock.torture;

import io.github.redislock.testing.RedisServer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * A Redis Cluster of three masters, each with a replica (six {@link RedisServer}s with {@code
 * --cluster-enabled yes} and a node timeout of {@value #NODE_TIMEOUT_MILLIS} ms), made here since
 * the test fixture's {@code RedisCluster} has no replicas. The workers reach it through a cluster
 * client; network faults here are SIGSTOP and {@code CLIENT KILL}. A shard is a pair of servers,
 * either of which may be its master as failovers go.
 */
final class ClusterDeployment implements Deployment {
  static final int NODE_TIMEOUT_MILLIS = 5000;
  private static final int SLOTS = 16_384;
  private static final int SHARDS = 3;
  private static final Duration READY = Duration.ofSeconds(90);
  private static final Duration PROBE = Duration.ofMillis(300);

  private final List<RedisServer> servers = new ArrayList<>();

  private ClusterDeployment() {}

  static ClusterDeployment start() {
    ClusterDeployment d = new ClusterDeployment();
    try {
      for (int i = 0; i < 2 * SHARDS; i++) {
        d.servers.add(
            RedisServer.start(
                "--cluster-enabled",
                "yes",
                "--cluster-node-timeout",
                Integer.toString(NODE_TIMEOUT_MILLIS),
                "--cluster-replica-validity-factor",
                "0"));
      }
      d.create();
      return d;
    } catch (RuntimeException | InterruptedException e) {
      d.close();
      throw new IllegalStateException("cannot start the cluster", e);
    }
  }

  private void create() throws InterruptedException {
    for (int i = 0; i < SHARDS; i++) {
      try (Jedis j = servers.get(i).jedis()) {
        j.clusterSetConfigEpoch(i + 1);
        j.clusterAddSlotsRange(SLOTS * i / SHARDS, SLOTS * (i + 1) / SHARDS - 1);
      }
    }
    try (Jedis first = servers.get(0).jedis()) {
      for (RedisServer other : servers.subList(1, servers.size())) {
        first.clusterMeet(other.host(), other.port());
      }
    }
    awaitAll("every node knows the others", j -> clusterInfo(j).contains("cluster_known_nodes:6"));
    for (int i = 0; i < SHARDS; i++) {
      String masterId;
      try (Jedis m = servers.get(i).jedis()) {
        masterId = m.clusterMyId();
      }
      RedisServer replica = servers.get(i + SHARDS);
      long deadline = System.nanoTime() + READY.toNanos();
      while (true) {
        try (Jedis r = replica.jedis()) {
          r.clusterReplicate(masterId);
          break;
        } catch (RuntimeException e) {
          if (System.nanoTime() - deadline > 0) {
            throw e;
          }
          Thread.sleep(100);
        }
      }
    }
    awaitReady();
  }

  @Override
  public String id() {
    return "cluster";
  }

  @Override
  public String describe() {
    return "a Redis Cluster of 3 masters, each with a replica (node timeout "
        + NODE_TIMEOUT_MILLIS
        + " ms)";
  }

  @Override
  public String spec() {
    return "cluster redis-cluster://"
        + servers.stream().map(s -> s.host() + ":" + s.port()).collect(Collectors.joining(","));
  }

  @Override
  public List<Fault.Type> faultTypes() {
    return List.of(
        new Fault.Type(
            "manual-failover",
            2,
            true,
            "CLUSTER FAILOVER: the replica catches up with its master before it takes over, so"
                + " no key is lost",
            (rnd, s) -> new Object[] {"shard" + rnd.nextInt(SHARDS), 0L}),
        new Fault.Type(
            "failover-kill",
            3,
            false,
            "a master is killed and its replica promoted: a key not yet replicated is lost"
                + " (deployments.md)",
            (rnd, s) -> new Object[] {"shard" + rnd.nextInt(SHARDS), 0L}),
        new Fault.Type(
            "replica-kill-restart",
            1,
            true,
            "a replica dies and comes back; its master keeps every lock",
            (rnd, s) ->
                new Object[] {"shard" + rnd.nextInt(SHARDS), Fault.between(rnd, 200, 2000)}),
        new Fault.Type(
            "master-pause",
            2,
            true,
            "SIGSTOP of a master for less than a sixth of the node timeout: no failover",
            (rnd, s) -> new Object[] {"shard" + rnd.nextInt(SHARDS), Fault.between(rnd, 100, 800)}),
        new Fault.Type(
            "shard-freeze",
            3,
            true,
            "SIGSTOP of one master for longer than the lease but shorter than the node timeout"
                + " (no failover): holds on its names may be lost, holds on the other shards must"
                + " be kept and renewed all along (RedisLockFactory: a stalled node delays only"
                + " its own holds' renewals)",
            (rnd, s) -> {
              long from = s.lease().toMillis() + 200;
              long to = Math.max(from + 300, NODE_TIMEOUT_MILLIS - 2500);
              return new Object[] {"shard" + rnd.nextInt(SHARDS), Fault.between(rnd, from, to)};
            }),
        new Fault.Type(
            "client-kill",
            2,
            true,
            "CLIENT KILL of every client of every node",
            (rnd, s) -> new Object[] {"all", 0L}));
  }

  @Override
  public String inject(Fault fault) throws InterruptedException {
    int shard =
        fault.target().startsWith("shard")
            ? Integer.parseInt(fault.target().substring("shard".length()))
            : -1;
    switch (fault.kind()) {
      case "manual-failover" -> {
        RedisServer replica = replicaOf(shard);
        try (Jedis j = replica.jedis()) {
          j.clusterFailover();
        }
        awaitRole(replica, "master");
        awaitReady();
      }
      case "failover-kill" -> {
        RedisServer master = masterOf(shard);
        RedisServer replica = replicaOf(shard);
        master.kill();
        awaitRole(replica, "master");
        master.restart();
        awaitReady();
      }
      case "replica-kill-restart" -> {
        RedisServer replica = replicaOf(shard);
        replica.kill();
        ServerFaults.sleep(fault.millis());
        replica.restart();
        awaitReady();
      }
      case "master-pause", "shard-freeze" -> {
        RedisServer master = masterOf(shard);
        master.pause();
        ServerFaults.sleep(fault.millis());
        master.resume();
      }
      case "client-kill" -> servers.forEach(ServerFaults::clientKill);
      default -> throw new IllegalArgumentException("unknown fault " + fault);
    }
    return "";
  }

  @Override
  public String masters() {
    List<String> ports = new ArrayList<>();
    for (int shard = 0; shard < SHARDS; shard++) {
      String master = "?";
      for (RedisServer s : List.of(servers.get(shard), servers.get(shard + SHARDS))) {
        if ("master".equals(role(s))) {
          master = Integer.toString(s.port());
        }
      }
      ports.add(master);
    }
    return String.join(",", ports);
  }

  @Override
  public boolean keepers() {
    return true;
  }

  /**
   * The shard whose master serves each lock name ({@code shard0}...): the slot of its key (the
   * workers use no key prefix) in the ranges the shards were made with, which failovers keep.
   */
  @Override
  public Map<String, String> shardsOf(List<String> names) {
    Map<String, String> out = new LinkedHashMap<>();
    for (String name : names) {
      int slot = JedisClusterCRC16.getSlot(name);
      int shard = SHARDS - 1;
      while (slot < SLOTS * shard / SHARDS) {
        shard--;
      }
      out.put(name, "shard" + shard);
    }
    return out;
  }

  @Override
  public Map<String, RedisServer> keyServers() {
    Map<String, RedisServer> out = new LinkedHashMap<>();
    for (int shard = 0; shard < SHARDS; shard++) {
      out.put("shard" + shard, masterOf(shard));
    }
    return out;
  }

  @Override
  public void healAll() {
    servers.forEach(ServerFaults::heal);
    try {
      awaitReady();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private RedisServer masterOf(int shard) {
    RedisServer a = servers.get(shard);
    return "master".equals(role(a)) ? a : servers.get(shard + SHARDS);
  }

  private RedisServer replicaOf(int shard) {
    RedisServer master = masterOf(shard);
    return master == servers.get(shard) ? servers.get(shard + SHARDS) : servers.get(shard);
  }

  /** {@code master}, {@code slave}, or null when the server does not answer. */
  private static String role(RedisServer server) {
    if (!server.isRunning() || server.isPaused()) {
      return null;
    }
    try (Jedis j = server.jedis(PROBE)) {
      Object first = j.role().get(0);
      return first instanceof byte[] b
          ? new String(b, StandardCharsets.UTF_8)
          : String.valueOf(first);
    } catch (RuntimeException e) {
      return null;
    }
  }

  private void awaitRole(RedisServer server, String role) throws InterruptedException {
    long deadline = System.nanoTime() + READY.toNanos();
    while (!role.equals(role(server))) {
      if (System.nanoTime() - deadline > 0) {
        throw new IllegalStateException(server + " did not become " + role);
      }
      Thread.sleep(50);
    }
  }

  /**
   * Waits until every node answers with {@code cluster_state:ok}, each shard has one master and one
   * replica whose link to it is up.
   */
  private void awaitReady() throws InterruptedException {
    long deadline = System.nanoTime() + READY.toNanos();
    while (!ready()) {
      if (System.nanoTime() - deadline > 0) {
        throw new IllegalStateException("the cluster did not settle: " + servers);
      }
      Thread.sleep(100);
    }
  }

  private boolean ready() {
    for (int shard = 0; shard < SHARDS; shard++) {
      String a = role(servers.get(shard));
      String b = role(servers.get(shard + SHARDS));
      if (a == null || b == null || a.equals(b)) {
        return false;
      }
      RedisServer replica = "master".equals(a) ? servers.get(shard + SHARDS) : servers.get(shard);
      try (Jedis j = replica.jedis(PROBE)) {
        if (!j.info("replication").contains("master_link_status:up")) {
          return false;
        }
      } catch (RuntimeException e) {
        return false;
      }
    }
    for (RedisServer s : servers) {
      try (Jedis j = s.jedis(PROBE)) {
        if (!clusterInfo(j).contains("cluster_state:ok")) {
          return false;
        }
      } catch (RuntimeException e) {
        return false;
      }
    }
    return true;
  }

  private static String clusterInfo(Jedis j) {
    return j.clusterInfo();
  }

  private interface Check {
    boolean test(Jedis j);
  }

  private void awaitAll(String what, Check check) throws InterruptedException {
    long deadline = System.nanoTime() + READY.toNanos();
    while (true) {
      boolean all = true;
      for (RedisServer s : servers) {
        try (Jedis j = s.jedis(PROBE)) {
          all &= check.test(j);
        } catch (RuntimeException e) {
          all = false;
        }
      }
      if (all) {
        return;
      }
      if (System.nanoTime() - deadline > 0) {
        throw new IllegalStateException("cluster: not in time: " + what);
      }
      Thread.sleep(100);
    }
  }

  @Override
  public void close() {
    servers.forEach(RedisServer::close);
  }
}
