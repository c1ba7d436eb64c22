package io.github.redislock.internal.engine;

import io.github.redislock.internal.Settings;
import io.github.redislock.internal.backend.LockBackend;
import io.github.redislock.internal.backend.RedlockBackend;
import io.github.redislock.internal.backend.SingleNodeBackend;
import io.github.redislock.internal.client.RedisClients;
import io.github.redislock.internal.client.Tls;
import io.github.redislock.internal.transport.Dial;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.UnifiedJedis;

/**
 * Builds a factory's parts from its settings: the Redis clients (for endpoints given as URIs), the
 * backend on them, and the engine on the backend. The only place that knows the concrete classes of
 * all three layers.
 */
public final class Assembly {
  private Assembly() {}

  /**
   * An engine on one Redis deployment given by URI, with a client it creates and closes.
   *
   * @param uri a standalone, Sentinel or Cluster URI (see {@link RedisClients})
   * @param tls how its TLS connections are made, if it is a TLS URI
   * @param settings the factory's settings
   * @return the engine
   */
  public static LockEngine singleNode(String uri, Tls tls, Settings settings) {
    RedisClients.Owned created =
        RedisClients.createOwned(uri, Duration.ofNanos(settings.commandTimeoutNanos), tls);
    return singleNode(created.client(), created.close(), settings);
  }

  /**
   * An engine on one Redis deployment reached with a caller's client, which it never closes.
   *
   * @param client a standalone, Sentinel or Cluster client
   * @param settings the factory's settings
   * @return the engine
   */
  public static LockEngine singleNode(UnifiedJedis client, Settings settings) {
    return singleNode(client, null, settings);
  }

  /**
   * @param closeClient closes the client, when the engine made it; {@code null} for a caller's
   */
  private static LockEngine singleNode(
      UnifiedJedis client, Runnable closeClient, Settings settings) {
    LockBackend backend =
        new SingleNodeBackend(client, closeClient, settings.leaseMillis, settings.ticker);
    return new LockEngine(backend, List.of(client), settings);
  }

  /**
   * An engine running Redlock over masters given by URI, with clients it creates and closes.
   *
   * @param uris one {@code redis://} or {@code rediss://} URI per master
   * @param tls how the TLS connections are made, for {@code rediss://} masters
   * @param nodeTimeout how long one operation waits for each master
   * @param settings the factory's settings; when {@code commandTimeoutSet} is false, the clients'
   *     socket timeout is derived from the node timeout instead of the settings' command timeout
   * @param commandTimeoutSet whether the command timeout was set by the user
   * @return the engine
   */
  public static LockEngine redlock(
      List<String> uris,
      Tls tls,
      Duration nodeTimeout,
      Settings settings,
      boolean commandTimeoutSet) {
    // A frozen master holds a fan-out thread until its socket times out: keep that short.
    Duration socketTimeout =
        commandTimeoutSet
            ? Duration.ofNanos(settings.commandTimeoutNanos)
            : Duration.ofMillis(Math.max(200, nodeTimeout.toMillis() * 10));
    List<UnifiedJedis> masters = new ArrayList<>();
    List<String> labels = new ArrayList<>();
    List<Dial> dials = new ArrayList<>();
    for (String uri : uris) {
      masters.add(RedisClients.create(uri, socketTimeout, tls));
      labels.add(RedisClients.describe(uri));
      HostAndPort address = RedisClients.standaloneAddress(uri);
      dials.add(
          address == null
              ? null
              : new Dial(address, RedisClients.nodeConfig(uri, socketTimeout, tls)));
    }
    Settings effective = settings.withCommandTimeout(socketTimeout);
    return redlock(masters, labels, dials, true, nodeTimeout, effective);
  }

  /**
   * An engine running Redlock over caller's clients, which it never closes.
   *
   * @param masters one client per master
   * @param nodeTimeout how long one operation waits for each master
   * @param settings the factory's settings
   * @return the engine
   */
  public static LockEngine redlockClients(
      List<? extends UnifiedJedis> masters, Duration nodeTimeout, Settings settings) {
    List<String> labels = new ArrayList<>();
    for (int i = 1; i <= masters.size(); i++) {
      labels.add("master " + i);
    }
    // Jedis does not tell a client's configuration: the transport uses the clients themselves.
    List<Dial> dials = new ArrayList<>(Collections.nCopies(masters.size(), null));
    return redlock(masters, labels, dials, false, nodeTimeout, settings);
  }

  private static LockEngine redlock(
      List<? extends UnifiedJedis> masters,
      List<String> labels,
      List<Dial> dials,
      boolean owned,
      Duration nodeTimeout,
      Settings settings) {
    RedlockBackend backend =
        new RedlockBackend(
            masters,
            labels,
            dials,
            owned,
            settings.leaseMillis,
            nodeTimeout.toNanos(),
            settings.commandTimeoutNanos,
            settings.ticker);
    try {
      backend.checkDistinctMasters();
    } catch (RuntimeException e) {
      backend.close();
      throw e;
    }
    return new LockEngine(backend, List.copyOf(masters), settings);
  }
}
