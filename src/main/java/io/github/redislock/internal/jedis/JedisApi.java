package io.github.redislock.internal.jedis;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import redis.clients.jedis.UnifiedJedis;

/**
 * Which Jedis is on the class path, and which of its public API this library may call. The library
 * is compiled against Jedis 8, and runs on Jedis {@value #LOWEST} and later: what Jedis 8 added
 * (the {@code RedisClient}, {@code RedisSentinelClient} and {@code RedisClusterClient} clients with
 * all the methods used here, the RESP3 push API, a public {@code Connection.getHostAndPort()}) is
 * used only when {@link #MODERN} says it is all there, from classes that are loaded only then;
 * otherwise the clients this library creates are built on Jedis's connection providers (see {@link
 * ProvidedClient}). Every look-up here is of public classes and members, once, at class
 * initialisation.
 */
public final class JedisApi {
  /** The lowest Jedis version this library runs on. */
  public static final String LOWEST = "7.0.0";

  /** The version of the Jedis jar on the class path, or {@code "unknown"}. */
  public static final String VERSION = version();

  /** Whether every Jedis 8 API this library prefers is there. */
  public static final boolean MODERN =
      present("redis.clients.jedis.PushConsumerChain")
          && method("redis.clients.jedis.Connection", "getHostAndPort")
          && method("redis.clients.jedis.RedisClient", "builder")
          && method("redis.clients.jedis.RedisSentinelClient", "getPrimaryNodesConnectionMap")
          && method("redis.clients.jedis.RedisClusterClient", "refreshClusterTopology")
          && method(
              "redis.clients.jedis.DefaultJedisClientConfig$Builder",
              "autoNegotiateProtocol",
              boolean.class);

  /** What this library calls on every version, or how it fails: the members Jedis 7.0.0 has. */
  private static final List<String> MISSING = missing();

  private JedisApi() {}

  /**
   * Checks that the Jedis on the class path is one this library runs on.
   *
   * @throws IllegalStateException naming the version found and the lowest one supported
   */
  public static void requireSupported() {
    String problem = problem(VERSION, MISSING);
    if (problem != null) {
      throw new IllegalStateException(problem);
    }
  }

  /**
   * Why Jedis {@code version}, which lacks {@code missing}, cannot run this library, or null when
   * it can.
   *
   * @param version the version found, or {@code "unknown"}
   * @param missing the public classes and members this library needs that it lacks
   * @return the message, or null
   */
  static String problem(String version, List<String> missing) {
    boolean older = olderThanLowest(version);
    if (!older && missing.isEmpty()) {
      return null;
    }
    return "redis-lock needs Jedis "
        + LOWEST
        + " or later (redis.clients:jedis), but Jedis "
        + version
        + " is on the class path"
        + (missing.isEmpty() ? "" : "; it lacks " + String.join(", ", missing));
  }

  /** Whether {@code version} (major.minor.patch...) is older than {@link #LOWEST}. */
  static boolean olderThanLowest(String version) {
    int[] found = numbers(version);
    int[] lowest = numbers(LOWEST);
    if (found == null) {
      return false; // unknown: the look-ups decide
    }
    for (int i = 0; i < lowest.length; i++) {
      int part = i < found.length ? found[i] : 0;
      if (part != lowest[i]) {
        return part < lowest[i];
      }
    }
    return false;
  }

  private static int[] numbers(String version) {
    String[] parts = version.split("[.-]", -1);
    List<Integer> numbers = new ArrayList<>();
    for (String part : parts) {
      if (part.isEmpty() || !part.chars().allMatch(Character::isDigit) || part.length() > 9) {
        break;
      }
      numbers.add(Integer.parseInt(part));
    }
    return numbers.isEmpty() ? null : numbers.stream().mapToInt(Integer::intValue).toArray();
  }

  /** The version in the {@code pom.properties} Jedis keeps beside its classes. */
  private static String version() {
    try (InputStream in = UnifiedJedis.class.getResourceAsStream("pom.properties")) {
      if (in != null) {
        Properties properties = new Properties();
        properties.load(in);
        String version = properties.getProperty("version");
        if (version != null && !version.isBlank()) {
          return version.strip();
        }
      }
    } catch (IOException | RuntimeException e) {
      // unknown
    }
    return "unknown";
  }

  /** The public classes, constructors and methods of Jedis 7.0.0 that this library calls. */
  private static List<String> missing() {
    List<String> missing = new ArrayList<>();
    String providers = "redis.clients.jedis.providers.";
    need(missing, present(providers + "PooledConnectionProvider"), "PooledConnectionProvider");
    need(
        missing,
        method(providers + "SentineledConnectionProvider", "getCurrentMaster"),
        "SentineledConnectionProvider.getCurrentMaster()");
    need(
        missing,
        method(providers + "ClusterConnectionProvider", "getNode", int.class),
        "ClusterConnectionProvider.getNode(int)");
    need(
        missing,
        method("redis.clients.jedis.JedisCluster", "getConnectionFromSlot", int.class),
        "JedisCluster.getConnectionFromSlot(int)");
    need(
        missing,
        method("redis.clients.jedis.Connection", "getRedisProtocol"),
        "Connection.getRedisProtocol()");
    need(missing, present("redis.clients.jedis.JedisShardedPubSub"), "JedisShardedPubSub");
    need(missing, present("redis.clients.jedis.ConnectionPoolConfig"), "ConnectionPoolConfig");
    return List.copyOf(missing);
  }

  private static void need(List<String> missing, boolean present, String what) {
    if (!present) {
      missing.add(what);
    }
  }

  private static boolean present(String className) {
    return load(className) != null;
  }

  private static boolean method(String className, String name, Class<?>... parameters) {
    Class<?> type = load(className);
    if (type == null) {
      return false;
    }
    try {
      type.getMethod(name, parameters); // public only
      return true;
    } catch (NoSuchMethodException | LinkageError e) {
      return false;
    }
  }

  private static Class<?> load(String className) {
    try {
      return Class.forName(className, false, UnifiedJedis.class.getClassLoader());
    } catch (ClassNotFoundException | LinkageError e) {
      return null;
    }
  }
}
