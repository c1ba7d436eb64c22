package io.github.redislock.torture;

import io.github.redislock.testing.RedisSentinelGroup;
import io.github.redislock.testing.RedisServer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;

/**
 * A master, its replica and three Sentinels ({@link RedisSentinelGroup}: down after 1 s). The
 * workers reach the master through the Sentinels, so network faults here are SIGSTOP and {@code
 * CLIENT KILL}; a failover kills the master, waits for the Sentinels to promote the replica, and
 * brings the old master back as the new replica.
 */
final class SentinelDeployment implements Deployment {
  private static final Duration READY = Duration.ofSeconds(60);

  private final RedisSentinelGroup group;

  private SentinelDeployment(RedisSentinelGroup group) {
    this.group = group;
  }

  static SentinelDeployment start() {
    return new SentinelDeployment(RedisSentinelGroup.start());
  }

  @Override
  public String id() {
    return "sentinel";
  }

  @Override
  public String describe() {
    return "a master, one replica and three Sentinels (quorum 2, down after 1 s)";
  }

  @Override
  public String spec() {
    return "sentinel " + group.uri();
  }

  @Override
  public List<Fault.Type> faultTypes() {
    return List.of(
        new Fault.Type(
            "failover",
            3,
            false,
            "the master is killed and the replica promoted: a key not yet replicated is lost"
                + " (deployments.md)",
            (rnd, s) -> new Object[] {"master", 0L}),
        new Fault.Type(
            "replica-kill-restart",
            2,
            true,
            "the replica dies and comes back, resynced; the master keeps every lock",
            (rnd, s) -> new Object[] {"replica", Fault.between(rnd, 200, 2000)}),
        new Fault.Type(
            "master-pause",
            2,
            true,
            "SIGSTOP of the master for less than the Sentinels' down-after time: no failover",
            (rnd, s) -> new Object[] {"master", Fault.between(rnd, 100, 500)}),
        new Fault.Type(
            "client-kill",
            2,
            true,
            "CLIENT KILL of every client of the master",
            (rnd, s) -> new Object[] {"master", 0L}));
  }

  @Override
  public String inject(Fault fault) throws InterruptedException {
    switch (fault.kind()) {
      case "failover" -> {
        RedisServer old = group.master();
        old.kill();
        group.awaitFailoverFrom(old);
        old.restart();
        awaitReplicaLinked();
      }
      case "replica-kill-restart" -> {
        RedisServer replica = group.replicas().get(0);
        replica.kill();
        ServerFaults.sleep(fault.millis());
        replica.restart();
        awaitReplicaLinked();
      }
      case "master-pause" -> {
        RedisServer master = group.master();
        master.pause();
        ServerFaults.sleep(fault.millis());
        master.resume();
      }
      case "client-kill" -> ServerFaults.clientKill(group.master());
      default -> throw new IllegalArgumentException("unknown fault " + fault);
    }
    return "";
  }

  @Override
  public String masters() {
    try {
      return Integer.toString(group.master().port());
    } catch (RuntimeException e) {
      return "?";
    }
  }

  @Override
  public Map<String, RedisServer> keyServers() {
    return Map.of("master", group.master());
  }

  @Override
  public void healAll() {
    for (RedisServer node : List.of(group.master(), group.replicas().get(0))) {
      ServerFaults.heal(node);
    }
    try {
      awaitReplicaLinked();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Waits until every Sentinel sees the master up and one replica linked to it. */
  private void awaitReplicaLinked() throws InterruptedException {
    long deadline = System.nanoTime() + READY.toNanos();
    while (System.nanoTime() - deadline < 0) {
      if (everySentinelSeesReplica()) {
        return;
      }
      Thread.sleep(100);
    }
    throw new IllegalStateException("the Sentinel group did not settle: " + group);
  }

  private boolean everySentinelSeesReplica() {
    for (HostAndPort sentinel : group.sentinelAddresses()) {
      try (Jedis j = RedisServer.connect(sentinel.getPort(), Duration.ofSeconds(1))) {
        Map<String, String> master = j.sentinelMaster(group.masterName());
        if (!Set.of(master.get("flags").split(",")).equals(Set.of("master"))) {
          return false;
        }
        List<Map<String, String>> replicas = j.sentinelReplicas(group.masterName());
        long linked =
            replicas.stream()
                .filter(r -> r.get("flags").equals("slave"))
                .filter(r -> "ok".equals(r.get("master-link-status")))
                .count();
        if (linked < 1) {
          return false;
        }
      } catch (RuntimeException e) {
        return false;
      }
    }
    return true;
  }

  @Override
  public void close() {
    group.close();
  }
}
