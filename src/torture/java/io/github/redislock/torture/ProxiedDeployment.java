package io.github.redislock.torture;

import io.github.redislock.testing.RedisServer;
import io.github.redislock.testing.TcpProxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Collectors;

/**
 * Independent {@code redis-server}s, each behind a {@link TcpProxy} that the workers connect
 * through, so that latency and partitions can be put between workers and servers: one server
 * ({@code single}) or five Redlock masters ({@code redlock}), whose faults hit one or two of them,
 * a minority.
 */
final class ProxiedDeployment implements Deployment {
  private final String id;
  private final List<RedisServer> servers = new ArrayList<>();
  private final List<TcpProxy> proxies = new ArrayList<>();

  private ProxiedDeployment(String id) {
    this.id = id;
  }

  static ProxiedDeployment single() {
    return start("single", 1);
  }

  static ProxiedDeployment redlock() {
    return start("redlock", 5);
  }

  private static ProxiedDeployment start(String id, int count) {
    ProxiedDeployment d = new ProxiedDeployment(id);
    try {
      for (int i = 0; i < count; i++) {
        RedisServer server = RedisServer.start();
        d.servers.add(server);
        d.proxies.add(TcpProxy.start(server.port()));
      }
      return d;
    } catch (RuntimeException e) {
      d.close();
      throw e;
    }
  }

  private boolean isRedlock() {
    return servers.size() > 1;
  }

  @Override
  public String id() {
    return id;
  }

  @Override
  public String describe() {
    return isRedlock()
        ? "Redlock over 5 independent redis-server masters, each behind a TCP proxy"
        : "one redis-server behind a TCP proxy";
  }

  @Override
  public String spec() {
    String uris = proxies.stream().map(TcpProxy::uri).collect(Collectors.joining(","));
    return (isRedlock() ? "redlock " : "standalone ") + uris;
  }

  @Override
  public List<Fault.Type> faultTypes() {
    boolean r = isRedlock();
    String who = r ? "a minority of masters" : "the server";
    List<Fault.Type> types = new ArrayList<>();
    types.add(
        new Fault.Type(
            "kill-restart",
            2,
            false,
            r
                ? "a master restarted without its keys before the lease ran out can join a new"
                    + " majority against a holder that had exactly a majority (redlock.md)"
                : "a server restarted without persistence forgets every lock (guarantees.md)",
            (rnd, s) -> new Object[] {targets(rnd), 0L}));
    types.add(
        new Fault.Type(
            "kill-delayed-restart",
            2,
            true,
            "back only after the lease: every key it granted has expired (a delayed restart)",
            (rnd, s) ->
                new Object[] {targets(rnd), s.lease().toMillis() + Fault.between(rnd, 200, 1000)}));
    types.add(
        new Fault.Type(
            "pause",
            2,
            true,
            "SIGSTOP of " + who + ": renewals fail until it resumes or the lease ends",
            (rnd, s) ->
                new Object[] {
                  targets(rnd), Fault.between(rnd, 100, s.lease().toMillis() * (r ? 2 : 3) / 2)
                }));
    types.add(
        new Fault.Type(
            "client-kill",
            2,
            true,
            "CLIENT KILL of every client: connections are re-made",
            (rnd, s) -> new Object[] {r ? "all" : "", 0L}));
    types.add(
        new Fault.Type(
            "latency",
            2,
            true,
            "a slow network to " + who + " (TCP proxy delay each way)",
            (rnd, s) ->
                new Object[] {
                  targets(rnd)
                      + (r ? " " : "")
                      + "delay="
                      + Fault.between(rnd, 2, r ? 150 : 60)
                      + "ms",
                  Fault.between(rnd, 1500, 4000)
                }));
    if (r) {
      types.add(
          new Fault.Type(
              "latency-all",
              1,
              true,
              "a slow network to every master: validity shrinks",
              (rnd, s) ->
                  new Object[] {
                    "all delay=" + Fault.between(rnd, 1, 15) + "ms", Fault.between(rnd, 1500, 4000)
                  }));
    }
    types.add(
        new Fault.Type(
            "partition",
            2,
            true,
            "a partition from " + who + " (nothing flows), then the held bytes arrive late",
            (rnd, s) ->
                new Object[] {
                  targets(rnd), Fault.between(rnd, 200, s.lease().toMillis() * 3 / 2)
                }));
    types.add(
        new Fault.Type(
            "partition-drop",
            1,
            true,
            "a partition from " + who + ", then every connection through it is cut",
            (rnd, s) ->
                new Object[] {
                  targets(rnd), Fault.between(rnd, 200, s.lease().toMillis() * 3 / 2)
                }));
    return types;
  }

  /** One or two masters of five ({@code m1,m4}), or the single server ({@code ""}). */
  private String targets(SplittableRandom random) {
    if (!isRedlock()) {
      return "";
    }
    int first = random.nextInt(servers.size());
    if (random.nextBoolean()) {
      return "m" + (first + 1);
    }
    int second = (first + 1 + random.nextInt(servers.size() - 1)) % servers.size();
    return "m" + (Math.min(first, second) + 1) + ",m" + (Math.max(first, second) + 1);
  }

  /** The indexes a target names. */
  private List<Integer> indexes(String target) {
    String list = target.split(" ")[0];
    List<Integer> out = new ArrayList<>();
    if (!isRedlock() || list.isEmpty() || list.startsWith("all")) {
      for (int i = 0; i < servers.size(); i++) {
        out.add(i);
      }
      return out;
    }
    for (String m : list.split(",")) {
      out.add(Integer.parseInt(m.substring(1)) - 1);
    }
    return out;
  }

  private static long delayOf(String target) {
    int at = target.indexOf("delay=");
    return Long.parseLong(target.substring(at + 6, target.length() - 2));
  }

  @Override
  public void inject(Fault fault) throws InterruptedException {
    List<Integer> hit = indexes(fault.target());
    switch (fault.kind()) {
      case "kill-restart" -> {
        hit.forEach(i -> servers.get(i).kill());
        hit.forEach(i -> servers.get(i).restart());
      }
      case "kill-delayed-restart" -> {
        hit.forEach(i -> servers.get(i).kill());
        ServerFaults.sleep(fault.millis());
        hit.forEach(i -> servers.get(i).restart());
      }
      case "pause" -> {
        hit.forEach(i -> servers.get(i).pause());
        ServerFaults.sleep(fault.millis());
        hit.forEach(i -> servers.get(i).resume());
      }
      case "client-kill" -> hit.forEach(i -> ServerFaults.clientKill(servers.get(i)));
      case "latency", "latency-all" -> {
        Duration delay = Duration.ofMillis(delayOf(fault.target()));
        hit.forEach(i -> proxies.get(i).setDelay(delay));
        ServerFaults.sleep(fault.millis());
        hit.forEach(i -> proxies.get(i).setDelay(Duration.ZERO));
      }
      case "partition" -> {
        hit.forEach(i -> proxies.get(i).stall());
        ServerFaults.sleep(fault.millis());
        hit.forEach(i -> proxies.get(i).unstall());
      }
      case "partition-drop" -> {
        hit.forEach(i -> proxies.get(i).stall());
        ServerFaults.sleep(fault.millis());
        hit.forEach(i -> proxies.get(i).cutAll());
        hit.forEach(i -> proxies.get(i).unstall());
      }
      default -> throw new IllegalArgumentException("unknown fault " + fault);
    }
  }

  @Override
  public Map<String, RedisServer> keyServers() {
    Map<String, RedisServer> out = new LinkedHashMap<>();
    for (int i = 0; i < servers.size(); i++) {
      out.put(isRedlock() ? "m" + (i + 1) : "server", servers.get(i));
    }
    return out;
  }

  @Override
  public void healAll() {
    for (int i = 0; i < servers.size(); i++) {
      proxies.get(i).unstall();
      proxies.get(i).setDelay(Duration.ZERO);
      ServerFaults.heal(servers.get(i));
    }
  }

  @Override
  public void close() {
    proxies.forEach(TcpProxy::close);
    servers.forEach(RedisServer::close);
  }
}
