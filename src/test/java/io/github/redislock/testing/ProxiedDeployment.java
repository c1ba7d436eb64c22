package io.github.redislock.testing;

import static org.awaitility.Awaitility.await;

import io.github.redislock.RedisLockFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import redis.clients.jedis.Jedis;

/**
 * A Redis deployment whose every client connection goes through a {@link RespProxy}, so that faults
 * can be aimed at any command a lock factory sends: one server; a master monitored by three
 * Sentinels; a Redis Cluster of three masters; or independent Redlock masters.
 *
 * <p>Clients learn some addresses from the servers, so those name the proxies: the Sentinels
 * monitor the master through its proxy (and so tell clients the proxy's address), and each Cluster
 * node announces its proxy's port ({@code cluster-announce-port}) in {@code CLUSTER SLOTS}, {@code
 * CLUSTER SHARDS} and {@code MOVED} replies, while the cluster bus stays direct. {@link
 * #unproxiedClients()} checks that it works: every client connection a server has, but those of
 * Redis's own machinery, came through a proxy.
 *
 * <pre>{@code
 * try (ProxiedDeployment cluster = ProxiedDeployment.cluster()) {
 *     RedisLockFactory locks = cluster.builder(Duration.ofMillis(500)).build();
 *     cluster.proxies().forEach(p -> p.inject(Fault.onScript("release.lua").loseReply()));
 * }
 * }</pre>
 */
public final class ProxiedDeployment implements AutoCloseable {
  private static final Duration POLL = Duration.ofMillis(50);
  private static final int SENTINELS = 3;
  private static final String MASTER_NAME = "mymaster";

  private final String description;
  private final List<RedisServer> servers; // those that hold the locks' keys
  private final List<RedisServer> others; // Sentinels
  private final List<RespProxy> proxies; // proxy i is in front of server i
  private final RedisCluster cluster;
  private final String uri; // null for Redlock

  private ProxiedDeployment(
      String description,
      List<RedisServer> servers,
      List<RedisServer> others,
      List<RespProxy> proxies,
      RedisCluster cluster,
      String uri) {
    this.description = description;
    this.servers = List.copyOf(servers);
    this.others = List.copyOf(others);
    this.proxies = List.copyOf(proxies);
    this.cluster = cluster;
    this.uri = uri;
  }

  /**
   * One server behind one proxy.
   *
   * @return the running deployment; close it
   */
  public static ProxiedDeployment standalone() {
    RedisServer server = RedisServer.start();
    RespProxy proxy = RespProxy.start("standalone", server.port());
    return new ProxiedDeployment(
        "standalone", List.of(server), List.of(), List.of(proxy), null, proxy.uri());
  }

  /**
   * A master behind a proxy, monitored through it by three Sentinels (quorum 2); no replica, and a
   * master declared down only after 10 s, so that no failover happens under the faults.
   *
   * @return the running deployment, once every Sentinel sees the master up
   */
  public static ProxiedDeployment sentinel() {
    RedisServer master = RedisServer.start();
    RespProxy proxy = RespProxy.start("master", master.port());
    List<RedisServer> sentinels = new ArrayList<>();
    try {
      String config =
          "sentinel monitor "
              + MASTER_NAME
              + " 127.0.0.1 "
              + proxy.port()
              + " 2\n"
              + "sentinel down-after-milliseconds "
              + MASTER_NAME
              + " 10000\n";
      for (int i = 0; i < SENTINELS; i++) {
        sentinels.add(RedisServer.startWithConfig(config, "--sentinel"));
      }
      awaitSentinels(sentinels, proxy);
    } catch (RuntimeException | Error e) {
      sentinels.forEach(RedisServer::close);
      proxy.close();
      master.close();
      throw e;
    }
    String uri =
        "redis-sentinel://"
            + sentinels.stream().map(s -> "127.0.0.1:" + s.port()).collect(Collectors.joining(","))
            + "/"
            + MASTER_NAME;
    return new ProxiedDeployment("sentinel", List.of(master), sentinels, List.of(proxy), null, uri);
  }

  /**
   * A Redis Cluster of three masters, each behind a proxy whose port it announces.
   *
   * @return the running deployment, once every node names only proxies for every slot
   */
  public static ProxiedDeployment cluster() {
    RedisCluster cluster = RedisCluster.start();
    List<RespProxy> proxies = new ArrayList<>();
    try {
      for (int i = 0; i < cluster.masters().size(); i++) {
        RedisServer master = cluster.masters().get(i);
        RespProxy proxy = RespProxy.start("node-" + (i + 1), master.port());
        proxies.add(proxy);
        try (Jedis j = master.jedis()) {
          j.configSet("cluster-announce-port", Integer.toString(proxy.port()));
        }
      }
      Set<String> announced =
          proxies.stream().map(p -> Integer.toString(p.port())).collect(Collectors.toSet());
      await("every cluster node announces its proxy's port")
          .atMost(Timing.awaitAtMost())
          .pollInterval(POLL)
          .ignoreExceptions()
          .until(() -> cluster.masters().stream().allMatch(m -> slotPorts(m).equals(announced)));
    } catch (RuntimeException | Error e) {
      proxies.forEach(RespProxy::close);
      cluster.close();
      throw e;
    }
    String uri =
        "redis-cluster://"
            + proxies.stream().map(p -> "127.0.0.1:" + p.port()).collect(Collectors.joining(","));
    return new ProxiedDeployment("cluster", cluster.masters(), List.of(), proxies, cluster, uri);
  }

  /**
   * Independent Redlock masters, each behind a proxy.
   *
   * @param masters how many, at least 3
   * @return the running deployment; close it
   */
  public static ProxiedDeployment redlock(int masters) {
    List<RedisServer> servers = new ArrayList<>();
    List<RespProxy> proxies = new ArrayList<>();
    try {
      for (int i = 0; i < masters; i++) {
        RedisServer server = RedisServer.start();
        servers.add(server);
        proxies.add(RespProxy.start("master-" + (i + 1), server.port()));
      }
    } catch (RuntimeException | Error e) {
      proxies.forEach(RespProxy::close);
      servers.forEach(RedisServer::close);
      throw e;
    }
    return new ProxiedDeployment(
        "redlock over " + masters + " masters", servers, List.of(), proxies, null, null);
  }

  /**
   * A builder with this deployment's endpoint (through the proxies) and command timeout set; for
   * Redlock, the node timeout too, {@code commandTimeout / 3}.
   *
   * @param commandTimeout the clients' socket and connect timeout
   * @return the builder
   */
  public RedisLockFactory.Builder builder(Duration commandTimeout) {
    RedisLockFactory.Builder builder = RedisLockFactory.builder();
    if (uri == null) {
      builder
          .redlock(proxies.stream().map(RespProxy::uri).toArray(String[]::new))
          .redlockNodeTimeout(commandTimeout.dividedBy(3));
    } else if (uri.startsWith("redis-sentinel://")) {
      builder.sentinel(uri);
    } else if (uri.startsWith("redis-cluster://")) {
      builder.cluster(uri);
    } else {
      builder.standalone(uri);
    }
    return builder.commandTimeout(commandTimeout);
  }

  /**
   * Whether this is a Redlock deployment.
   *
   * @return true for {@link #redlock}
   */
  public boolean isRedlock() {
    return uri == null;
  }

  /**
   * The proxies, one in front of each server of {@link #servers()}, in the same order.
   *
   * @return the proxies
   */
  public List<RespProxy> proxies() {
    return proxies;
  }

  /**
   * The servers that hold the locks' keys: the one server, the master, the cluster's masters or the
   * Redlock masters.
   *
   * @return the servers
   */
  public List<RedisServer> servers() {
    return servers;
  }

  /**
   * The client connections the servers of {@link #servers()} have that did not come through a
   * proxy, leaving out the caller's own connection for the check and those of Redis's own machinery
   * (Sentinels, replicas).
   *
   * @return one {@code CLIENT LIST} line per such connection; empty when every client is proxied
   */
  public List<String> unproxiedClients() {
    Map<RedisServer, String> lists = new java.util.LinkedHashMap<>();
    Map<RedisServer, Long> selves = new java.util.HashMap<>();
    for (RedisServer server : servers) {
      try (Jedis j = server.jedis()) {
        selves.put(server, j.clientId());
        lists.put(server, j.clientList());
      }
    }
    Set<Integer> proxied = new HashSet<>(); // after the lists: a port is registered before use
    proxies.forEach(p -> proxied.addAll(p.serverSidePorts()));
    List<String> unproxied = new ArrayList<>();
    lists.forEach(
        (server, list) -> {
          for (String line : list.split("\n")) {
            if (line.isBlank()) {
              continue;
            }
            Map<String, String> fields = fields(line);
            String name = fields.getOrDefault("name", "");
            String flags = fields.getOrDefault("flags", "");
            if (Long.parseLong(fields.get("id")) == selves.get(server)
                || name.startsWith("sentinel-")
                || flags.contains("S")
                || flags.contains("M")) {
              continue;
            }
            String addr = fields.get("addr");
            int port = Integer.parseInt(addr.substring(addr.lastIndexOf(':') + 1));
            if (!proxied.contains(port)) {
              unproxied.add(server + ": " + line.trim());
            }
          }
        });
    return unproxied;
  }

  /** Closes the proxies, then the servers. Idempotent. */
  @Override
  public void close() {
    proxies.forEach(RespProxy::close);
    others.forEach(RedisServer::close);
    if (cluster != null) {
      cluster.close();
    }
    servers.forEach(RedisServer::close);
  }

  @Override
  public String toString() {
    return description
        + " behind "
        + proxies.size()
        + " prox"
        + (proxies.size() == 1 ? "y" : "ies");
  }

  private static Map<String, String> fields(String clientListLine) {
    return java.util.Arrays.stream(clientListLine.trim().split(" "))
        .filter(f -> f.indexOf('=') > 0)
        .collect(
            Collectors.toMap(
                f -> f.substring(0, f.indexOf('=')),
                f -> f.substring(f.indexOf('=') + 1),
                (a, b) -> a));
  }

  /** The ports {@code CLUSTER SLOTS} names on {@code node}, as text. */
  private static Set<String> slotPorts(RedisServer node) {
    Set<String> ports = new HashSet<>();
    try (Jedis j = node.jedis()) {
      for (Object range : j.clusterSlots()) {
        List<?> fields = (List<?>) range;
        for (Object master : fields.subList(2, fields.size())) {
          ports.add(String.valueOf(((List<?>) master).get(1)));
        }
      }
    }
    return ports;
  }

  /**
   * Waits until every Sentinel sees the master up, through the proxy. (Not until they know each
   * other, as a failover would need: none happens here.)
   */
  private static void awaitSentinels(List<RedisServer> sentinels, RespProxy proxy) {
    await("the Sentinels see the master through its proxy")
        .atMost(Timing.awaitAtMost())
        .pollInterval(POLL)
        .ignoreExceptions()
        .until(
            () -> {
              for (RedisServer sentinel : sentinels) {
                try (Jedis j = sentinel.jedis()) {
                  Map<String, String> master = j.sentinelMaster(MASTER_NAME);
                  if (!"master".equals(master.get("flags"))
                      || !Integer.toString(proxy.port()).equals(master.get("port"))) {
                    return false;
                  }
                }
              }
              return true;
            });
  }
}
