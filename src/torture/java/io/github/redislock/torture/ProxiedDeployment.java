package io.github.redislock.torture;

import io.github.redislock.testing.RedisServer;
import io.github.redislock.testing.RespProxy;
import io.github.redislock.testing.TcpProxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Collectors;

/**
 * Independent {@code redis-server}s, each behind two proxies that the workers connect through: a
 * {@link RespProxy}, which reads the commands and replies and can delay or lose one chosen reply,
 * in front of a {@link TcpProxy}, which puts latency and partitions between workers and servers.
 * One server ({@code single}) or five Redlock masters ({@code redlock}, and {@code
 * redlock-caching}, whose workers reach them through RESP3 clients whose connections track keys,
 * {@link TrackingClients}), whose faults hit one or two of them, a minority.
 */
final class ProxiedDeployment implements Deployment {
  /** The Redlock node timeout the workers' factories use (the builder's default). */
  static final long REDLOCK_NODE_TIMEOUT_MILLIS = 50;

  /*
   * The commands a fault on one reply aims at. No plain SET: the workers ask every hold's fencing
   * token, so their acquisitions run the acquire script from the first one on.
   */

  /** Under Redlock: acquisition, fencing, renewal, release. */
  private static final List<String> REDLOCK_COMMANDS =
      List.of("acquire.lua", "fence.lua", "extend.lua", "release.lua");

  /** On one node, for every kind of lock. */
  private static final List<String> SINGLE_COMMANDS =
      List.of(
          "acquire.lua",
          "extend.lua",
          "release.lua",
          "refence.lua",
          "fair_acquire.lua",
          "fair_release.lua",
          "fair_leave.lua",
          "rw_read.lua",
          "rw_read_release.lua",
          "rw_write.lua",
          "rw_leave.lua",
          "condition.lua");

  /** How long a fault on one reply waits for its command to come by. */
  private static final long AIM_MILLIS = 8000;

  private final String id;
  private final List<RedisServer> servers = new ArrayList<>();
  private final List<TcpProxy> proxies = new ArrayList<>();
  private final List<RespProxy> respProxies = new ArrayList<>();

  private ProxiedDeployment(String id) {
    this.id = id;
  }

  static ProxiedDeployment single() {
    return start("single", 1);
  }

  static ProxiedDeployment redlock() {
    return start("redlock", 5);
  }

  /** Redlock whose workers reach the masters through clients that track keys. */
  static ProxiedDeployment redlockCaching() {
    return start("redlock-caching", 5);
  }

  private static ProxiedDeployment start(String id, int count) {
    ProxiedDeployment d = new ProxiedDeployment(id);
    try {
      for (int i = 0; i < count; i++) {
        RedisServer server = RedisServer.start();
        d.servers.add(server);
        TcpProxy tcp = TcpProxy.start(server.port());
        d.proxies.add(tcp);
        d.respProxies.add(RespProxy.start(count > 1 ? "m" + (i + 1) : "server", tcp.port()));
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

  private boolean isCaching() {
    return id.equals("redlock-caching");
  }

  @Override
  public String describe() {
    return isCaching()
        ? "Redlock over 5 independent redis-server masters, each behind a RESP and a TCP proxy,"
            + " reached through RESP3 clients whose connections track keys (redlockClients)"
        : isRedlock()
            ? "Redlock over 5 independent redis-server masters, each behind a RESP and a TCP proxy"
            : "one redis-server behind a RESP and a TCP proxy";
  }

  @Override
  public String spec() {
    String uris = respProxies.stream().map(RespProxy::uri).collect(Collectors.joining(","));
    return (isCaching() ? "redlock-caching " : isRedlock() ? "redlock " : "standalone ") + uris;
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
            "back only after the longest lease (a lease given per call included): every key it"
                + " granted has expired (a delayed restart)",
            (rnd, s) ->
                new Object[] {
                  targets(rnd), s.longestLease().toMillis() + Fault.between(rnd, 200, 1000)
                }));
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
    types.add(
        new Fault.Type(
            "late-reply",
            2,
            true,
            "one reply of one chosen command (a SET or one of the library's scripts) on "
                + (r ? "one master" : "the server")
                + " held back past the "
                + (r ? "node" : "command")
                + " timeout: the command ran, the client gave up on it and must clean up what it"
                + " may have done",
            (rnd, s) -> {
              String aim = oneTarget(rnd) + aim(rnd);
              long delay = lateDelay(rnd, s);
              return new Object[] {aim + " delay=" + delay + "ms", delay};
            }));
    types.add(
        new Fault.Type(
            "lost-reply",
            2,
            true,
            "one chosen command runs on "
                + (r ? "one master" : "the server")
                + " and its reply is lost in a connection reset: the client cannot tell whether"
                + " it ran",
            (rnd, s) -> new Object[] {oneTarget(rnd) + aim(rnd), 0L}));
    if (isCaching()) {
      types.add(
          new Fault.Type(
              "push-frame",
              2,
              true,
              "an invalidation push frame, as a tracking connection gets one, just before or"
                  + " after one reply on one master: it is not a reply",
              (rnd, s) ->
                  new Object[] {
                    oneTarget(rnd)
                        + " after="
                        + rnd.nextInt(20)
                        + (rnd.nextBoolean() ? " before" : " behind")
                        + " key=x"
                        + rnd.nextInt(s.names()),
                    0L
                  }));
    }
    return types;
  }

  /** One master ({@code "m3 "}) under Redlock, nothing on one node. */
  private String oneTarget(SplittableRandom random) {
    return isRedlock() ? "m" + (random.nextInt(servers.size()) + 1) + " " : "";
  }

  /** The command a fault on one reply aims at, and how many of them pass first. */
  private String aim(SplittableRandom random) {
    List<String> commands = isRedlock() ? REDLOCK_COMMANDS : SINGLE_COMMANDS;
    return commands.get(random.nextInt(commands.size())) + " after=" + random.nextInt(3);
  }

  /** Past the node timeout (Redlock) or the command timeout (one node), up to about a lease. */
  private long lateDelay(SplittableRandom random, TortureSettings s) {
    long from = isRedlock() ? 2 * REDLOCK_NODE_TIMEOUT_MILLIS : s.commandTimeout().toMillis() + 100;
    return Fault.between(random, from, from + s.lease().toMillis());
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
    if (!list.startsWith("m") && !list.startsWith("all")) {
      list = "";
    }
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

  /** The value of {@code key=} in a target, or null. */
  private static String option(String target, String key) {
    for (String part : target.split(" ")) {
      if (part.startsWith(key + "=")) {
        return part.substring(key.length() + 1);
      }
    }
    return null;
  }

  /** The command a target aims at: the word before {@code after=}. */
  private static String command(String target) {
    String[] parts = target.split(" ");
    for (int i = 1; i < parts.length; i++) {
      if (parts[i].startsWith("after=")) {
        return parts[i - 1];
      }
    }
    throw new IllegalArgumentException("no command in " + target);
  }

  /**
   * Injects one fault of the kit into the proxy of {@code index}, waits (bounded) until it hit, and
   * as long again as {@code hold} ms; returns what it hit.
   */
  private String aimed(int index, io.github.redislock.testing.Fault kit, long hold)
      throws InterruptedException {
    RespProxy proxy = respProxies.get(index);
    proxy.inject(kit);
    try {
      long deadline = System.nanoTime() + AIM_MILLIS * 1_000_000;
      while (kit.hitCount() == 0 && System.nanoTime() - deadline < 0) {
        Thread.sleep(10);
      }
      if (kit.hitCount() > 0) {
        ServerFaults.sleep(hold);
      }
    } finally {
      proxy.remove(kit);
    }
    return kit.hitCount() == 0
        ? "no " + kit + " hit within " + AIM_MILLIS + " ms"
        : "hit: " + String.join("; ", kit.hits());
  }

  private static io.github.redislock.testing.Fault onCommand(String command) {
    return command.endsWith(".lua")
        ? io.github.redislock.testing.Fault.onScript(command)
        : io.github.redislock.testing.Fault.onCommand(command);
  }

  @Override
  public String inject(Fault fault) throws InterruptedException {
    List<Integer> hit = indexes(fault.target());
    String target = fault.target();
    switch (fault.kind()) {
      case "late-reply" -> {
        long delay = Long.parseLong(option(target, "delay").replace("ms", ""));
        return aimed(
            hit.get(0),
            onCommand(command(target))
                .after(Integer.parseInt(option(target, "after")))
                .delayReply(Duration.ofMillis(delay)),
            delay + 200);
      }
      case "lost-reply" -> {
        return aimed(
            hit.get(0),
            onCommand(command(target)).after(Integer.parseInt(option(target, "after"))).loseReply(),
            0);
      }
      case "push-frame" -> {
        byte[] frame = io.github.redislock.testing.Fault.invalidation(option(target, "key"));
        io.github.redislock.testing.Fault kit =
            io.github.redislock.testing.Fault.onAnyCommand()
                .after(Integer.parseInt(option(target, "after")));
        return aimed(
            hit.get(0),
            target.contains(" before") ? kit.pushBeforeReply(frame) : kit.pushAfterReply(frame),
            0);
      }
      default -> {
        // the faults below
      }
    }
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
    return "";
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
      respProxies.get(i).clearFaults();
      proxies.get(i).unstall();
      proxies.get(i).setDelay(Duration.ZERO);
      ServerFaults.heal(servers.get(i));
    }
  }

  @Override
  public void close() {
    respProxies.forEach(RespProxy::close);
    proxies.forEach(TcpProxy::close);
    servers.forEach(RedisServer::close);
  }
}
