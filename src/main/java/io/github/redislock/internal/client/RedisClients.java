package io.github.redislock.internal.client;

import io.github.redislock.RedisLockException;
import io.github.redislock.internal.jedis.JedisApi;
import io.github.redislock.internal.jedis.ProvidedClient;
import io.github.redislock.internal.jedis.ProvidedCluster;
import io.github.redislock.internal.util.Ticker;
import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisException;

/**
 * Creates the Jedis clients of a {@code RedisLockFactory} from URIs. The forms:
 *
 * <ul>
 *   <li>{@code redis://[user:password@]host:port[/db]}: one server, reached with a {@code
 *       RedisClient};
 *   <li>{@code rediss://[user:password@]host:port[/db]}: the same over TLS;
 *   <li>{@code redis-sentinel://[user:password@]host:port[,host:port...]/masterName[/db]}: the
 *       master the Sentinels at these addresses know as {@code masterName}, followed across
 *       failovers by a {@code RedisSentinelClient}. The user and password authenticate to the
 *       master, not to the Sentinels;
 *   <li>{@code redis-cluster://[user:password@]host:port[,host:port...]}: a Redis Cluster
 *       discovered from these seed nodes, reached with a {@code RedisClusterClient}. There is no
 *       database number: a cluster has only database 0.
 * </ul>
 *
 * <p>{@code rediss-sentinel://} and {@code rediss-cluster://} are the Sentinel and Cluster forms
 * over TLS: to the Sentinels as well as to the data nodes. Every TLS connection is made as a {@link
 * Tls} says: by default the JVM's trust store, with host names verified.
 *
 * <p>Every port must be given. An IPv6 host is written in brackets ({@code [::1]:6379}). The user
 * information is {@code user:password}, or {@code :password} for the default user; both parts are
 * percent-decoded, so a password containing {@code @ : / , ? #} or {@code %} must encode them.
 * Query parameters and fragments are not accepted. Error messages never repeat a password.
 *
 * <p>Every client gets the command timeout as its socket and connect timeout, a pool of at most 64
 * connections per server that waits at most the command timeout for a free one, and the client name
 * {@code redis-lock}. A cluster client makes at most two attempts per command (a redirection or
 * reconnection, then the retry), so it never sleeps between retries in the caller's thread:
 * retrying with a backoff is the lock's job, which it does interruptibly. Sentinel and Cluster
 * clients ask their Sentinels or seed nodes for the topology as soon as they are created.
 *
 * <p>Those are the clients of Jedis 8. On Jedis 7 ({@link JedisApi#MODERN} false) the same clients,
 * with the same settings, are built on Jedis's connection providers ({@link ProvidedClient}, {@link
 * ProvidedCluster}), which Jedis 7 and 8 both have; their connections use RESP2, Jedis 7's default.
 */
public final class RedisClients {
  private static final int MAX_CONNECTIONS_PER_NODE = 64;
  private static final String CLIENT_NAME = "redis-lock";

  private RedisClients() {}

  /**
   * Creates a client for {@code uri}; the caller closes it.
   *
   * @param uri a URI of one of the forms in the class comment
   * @param commandTimeout the socket and connect timeout, and the longest wait for a pooled
   *     connection
   * @return a {@code RedisClient}, {@code RedisSentinelClient} or {@code RedisClusterClient} (on
   *     Jedis 7, a {@link ProvidedClient} or {@link ProvidedCluster})
   * @throws IllegalArgumentException if {@code uri} is not of those forms
   * @throws RedisLockException if a Sentinel or Cluster client cannot learn the topology: no
   *     Sentinel or seed node answered, or the Sentinels do not know the master
   */
  public static UnifiedJedis create(String uri, Duration commandTimeout) {
    return create(uri, commandTimeout, Tls.JVM_DEFAULT);
  }

  /**
   * Creates a client for {@code uri}, whose TLS connections (if it is a TLS URI) are made as {@code
   * tls} says; the caller closes it.
   *
   * @param uri a URI of one of the forms in the class comment
   * @param commandTimeout the socket and connect timeout, and the longest wait for a pooled
   *     connection
   * @param tls how TLS connections are made
   * @return a {@code RedisClient}, {@code RedisSentinelClient} or {@code RedisClusterClient} (on
   *     Jedis 7, a {@link ProvidedClient} or {@link ProvidedCluster})
   * @throws IllegalArgumentException if {@code uri} is not of those forms
   * @throws RedisLockException if a Sentinel or Cluster client cannot learn the topology: no
   *     Sentinel or seed node answered, or the Sentinels do not know the master
   */
  public static UnifiedJedis create(String uri, Duration commandTimeout, Tls tls) {
    RedisUri endpoint = RedisUri.parse(uri);
    Tls connections = endpoint.tls() ? tls : null;
    try {
      return switch (endpoint.kind()) {
        case STANDALONE -> standalone(endpoint, commandTimeout, connections);
        case SENTINEL -> sentinel(endpoint, commandTimeout, connections);
        case CLUSTER -> cluster(endpoint, commandTimeout, connections);
      };
    } catch (JedisException e) {
      RedisLockException failure =
          new RedisLockException("cannot reach " + endpoint + ": " + e.getMessage(), e);
      if (endpoint.kind() == Kind.CLUSTER && e.getCause() == null) {
        // Jedis's cluster client drops why no seed node answered: ask the first one again.
        JedisException why = whyUnreachable(endpoint, commandTimeout, connections);
        if (why != null) {
          failure =
              new RedisLockException(
                  "cannot reach "
                      + endpoint
                      + ": "
                      + e.getMessage()
                      + " "
                      + endpoint.nodes().get(0)
                      + ": "
                      + why.getMessage(),
                  why);
          failure.addSuppressed(e);
        }
      }
      throw failure;
    }
  }

  /**
   * What asking the first node of {@code endpoint} for the cluster's slots, as the cluster client
   * does, fails with (a refused connection, password or certificate, or {@code NOPERM}), or null.
   */
  // CLUSTER SLOTS, deprecated in Redis 7, is what the cluster client asks: its failure is the one
  // to report.
  @SuppressWarnings("deprecation")
  private static JedisException whyUnreachable(RedisUri endpoint, Duration timeout, Tls tls) {
    try (Jedis jedis = new Jedis(endpoint.nodes().get(0), nodeConfig(endpoint, timeout, tls))) {
      jedis.clusterSlots();
      return null;
    } catch (JedisException e) {
      return e;
    }
  }

  /**
   * Checks that {@code uri} is of one of the forms in the class comment.
   *
   * @param uri the URI
   * @throws NullPointerException if {@code uri} is null
   * @throws IllegalArgumentException naming the part that is wrong
   */
  public static void validate(String uri) {
    RedisUri.parse(uri);
  }

  /**
   * Validates {@code uri} and tells which kind of deployment it names.
   *
   * @param uri the URI
   * @return its kind
   * @throws NullPointerException if {@code uri} is null
   * @throws IllegalArgumentException naming the part that is wrong
   */
  public static Kind kind(String uri) {
    return RedisUri.parse(uri).kind();
  }

  /**
   * Describes the deployment {@code uri} names, without its user information, for messages.
   *
   * @param uri the URI
   * @return for example {@code "redis-sentinel://10.0.0.1:26379,10.0.0.2:26379/mymaster"}
   * @throws IllegalArgumentException if {@code uri} is malformed
   */
  public static String describe(String uri) {
    return RedisUri.parse(uri).toString();
  }

  /**
   * Whether {@code uri} is a TLS URI: {@code rediss://}, {@code rediss-sentinel://} or {@code
   * rediss-cluster://}.
   *
   * @param uri the URI
   * @return whether its connections use TLS
   * @throws IllegalArgumentException if {@code uri} is malformed
   */
  public static boolean isTls(String uri) {
    return RedisUri.parse(uri).tls();
  }

  // ssl(boolean) is deprecated in Jedis 8 in favour of SslOptions, which builds its own
  // SSLContext from key store files; a socket factory and parameters are the plain form of TLS.
  @SuppressWarnings("deprecation")
  private static DefaultJedisClientConfig.Builder config(Duration timeout, Tls tls) {
    int millis = (int) timeout.toMillis();
    DefaultJedisClientConfig.Builder config =
        DefaultJedisClientConfig.builder()
            .socketTimeoutMillis(millis)
            .connectionTimeoutMillis(millis)
            .clientName(CLIENT_NAME);
    if (tls != null) {
      config
          .ssl(true)
          .sslSocketFactory(tls.socketFactory())
          .sslParameters(tls.effectiveParameters());
    }
    return config;
  }

  /**
   * The address of the server a standalone URI names, for connections of one's own made with {@link
   * #nodeConfig(String, Duration, Tls)}.
   *
   * @param uri a URI of one of the forms in the class comment
   * @return its server's address, or {@code null} for a Sentinel or Cluster URI
   */
  public static HostAndPort standaloneAddress(String uri) {
    RedisUri endpoint = RedisUri.parse(uri);
    return endpoint.kind() == Kind.STANDALONE ? endpoint.nodes().get(0) : null;
  }

  /**
   * The configuration {@link #create(String, Duration, Tls)} gives the connections to the data
   * nodes of {@code uri}.
   *
   * @param uri a URI of one of the forms in the class comment
   * @param commandTimeout the socket and connect timeout
   * @param tls how TLS connections are made
   * @return the configuration
   */
  public static JedisClientConfig nodeConfig(String uri, Duration commandTimeout, Tls tls) {
    RedisUri endpoint = RedisUri.parse(uri);
    return nodeConfig(endpoint, commandTimeout, endpoint.tls() ? tls : null);
  }

  /** The configuration of the data nodes: credentials, database, timeouts, TLS. */
  private static JedisClientConfig nodeConfig(RedisUri endpoint, Duration timeout, Tls tls) {
    return config(timeout, tls)
        .user(endpoint.user())
        .password(endpoint.password())
        .database(endpoint.database())
        .build();
  }

  private static ConnectionPoolConfig pool(Duration timeout) {
    ConnectionPoolConfig pool = new ConnectionPoolConfig();
    pool.setMaxTotal(MAX_CONNECTIONS_PER_NODE);
    pool.setMaxIdle(MAX_CONNECTIONS_PER_NODE);
    pool.setMinIdle(0);
    pool.setJmxEnabled(false);
    pool.setMaxWait(timeout);
    return pool;
  }

  private static UnifiedJedis standalone(RedisUri endpoint, Duration timeout, Tls tls) {
    HostAndPort node = endpoint.nodes().get(0);
    JedisClientConfig config = nodeConfig(endpoint, timeout, tls);
    return JedisApi.MODERN
        ? ModernClients.standalone(node, config, pool(timeout))
        : ProvidedClient.standalone(node, config, pool(timeout));
  }

  /**
   * A client this library created, and how to close it for good.
   *
   * @param client the client
   * @param close closes it, and waits (a bounded time) for the threads it started to end
   */
  public record Owned(UnifiedJedis client, Runnable close) {}

  /** How long {@link Owned#close} waits for a Sentinel client's listener threads to end. */
  static final long LISTENERS_END_MILLIS = 2000;

  /**
   * Creates a client for {@code uri}, as {@link #create(String, Duration, Tls)} does, with how to
   * close it for good.
   *
   * <p>A Sentinel client starts a listener thread per Sentinel as it is built, subscribed to the
   * Sentinel's {@code +switch-master} events. Jedis's listener marks itself running when its thread
   * starts, so a close that came before (a factory closed right after it was built) is undone, and
   * the listener would run on for good, subscribed. So the close waits for the listeners this
   * client started to end, closing the client again while one still runs (which stops it for good),
   * for at most {@value #LISTENERS_END_MILLIS} ms.
   */
  public static Owned createOwned(String uri, Duration commandTimeout, Tls tls) {
    if (RedisUri.parse(uri).kind() != Kind.SENTINEL) {
      UnifiedJedis client = create(uri, commandTimeout, tls);
      return new Owned(client, client::close);
    }
    Set<Thread> before = sentinelListeners();
    UnifiedJedis client = create(uri, commandTimeout, tls);
    Set<Thread> started = sentinelListeners();
    started.removeAll(before);
    return new Owned(client, () -> closeSentinelClient(client, started));
  }

  /** The Sentinel listener threads of this JVM's Sentinel clients (Jedis names them so). */
  private static Set<Thread> sentinelListeners() {
    Set<Thread> listeners = new HashSet<>();
    for (Thread thread : Thread.getAllStackTraces().keySet()) {
      if (thread.getName().contains("-SentinelListener-")) {
        listeners.add(thread);
      }
    }
    return listeners;
  }

  private static void closeSentinelClient(UnifiedJedis client, Set<Thread> listeners) {
    client.close();
    long deadline = Ticker.SYSTEM.read() + TimeUnit.MILLISECONDS.toNanos(LISTENERS_END_MILLIS);
    boolean interrupted = false;
    for (Thread listener : listeners) {
      while (listener.isAlive() && Ticker.SYSTEM.read() - deadline < 0) {
        try {
          listener.join(10);
        } catch (InterruptedException e) {
          interrupted = true;
        }
        if (listener.isAlive()) {
          client.close(); // it started after the close: this one stops it
        }
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  private static UnifiedJedis sentinel(RedisUri endpoint, Duration timeout, Tls tls) {
    JedisClientConfig config = nodeConfig(endpoint, timeout, tls);
    if (JedisApi.MODERN) {
      return ModernClients.sentinel(
          endpoint.masterName(), endpoint.nodes(), config(timeout, tls), config, pool(timeout));
    }
    // Jedis 7 speaks RESP2 to the Sentinels without being told.
    return ProvidedClient.sentinel(
        endpoint.masterName(),
        config,
        pool(timeout),
        new LinkedHashSet<>(endpoint.nodes()),
        config(timeout, tls).build());
  }

  private static UnifiedJedis cluster(RedisUri endpoint, Duration timeout, Tls tls) {
    JedisClientConfig config = nodeConfig(endpoint, timeout, tls);
    Duration retries = timeout.multipliedBy(2);
    return JedisApi.MODERN
        ? ModernClients.cluster(endpoint.nodes(), 2, retries, config, pool(timeout))
        : ProvidedCluster.create(
            new LinkedHashSet<>(endpoint.nodes()), config, pool(timeout), 2, retries);
  }
}
