package io.github.redislock.spring.boot;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;

/**
 * Where the auto-configured factory's Redis is, and how the builder is told: read from {@code
 * redis-lock.redlock.masters}, else {@code redis-lock.uri}, else the {@code spring.data.redis.*}
 * connection keys, bound here by name, so that the starter needs neither Spring Data Redis nor
 * Boot's spring-boot-data-redis module. Of those keys, as Boot reads them: a Sentinel master wins
 * over Cluster nodes, which win over the URL, which wins over host, port, username, password and
 * database; SSL is on for a {@code rediss://} URL, {@code ssl.enabled=true} or an SSL bundle.
 *
 * @param kind which builder method takes {@code uris}
 * @param uris the URIs, one for every kind but Redlock
 * @param sslBundle the SSL bundle for the TLS connections, or null
 */
record RedisEndpoint(Kind kind, List<String> uris, String sslBundle) {
  /** The builder method. */
  enum Kind {
    STANDALONE,
    SENTINEL,
    CLUSTER,
    REDLOCK
  }

  private static final String PREFIX = "spring.data.redis";

  /** The {@code spring.data.redis.*} keys the starter reads. */
  record DataRedis(
      String url,
      String host,
      Integer port,
      String username,
      String password,
      Integer database,
      Ssl ssl,
      Sentinel sentinel,
      Cluster cluster) {}

  /** {@code spring.data.redis.ssl.*}. */
  record Ssl(Boolean enabled, String bundle) {}

  /** {@code spring.data.redis.sentinel.*}. */
  record Sentinel(String master, List<String> nodes, String username, String password) {}

  /** {@code spring.data.redis.cluster.*}. */
  record Cluster(List<String> nodes) {}

  static RedisEndpoint of(RedisLockProperties properties, Environment environment) {
    List<String> masters = properties.getRedlock().getMasters();
    if (masters != null && !masters.isEmpty()) {
      return new RedisEndpoint(Kind.REDLOCK, List.copyOf(masters), properties.getSslBundle());
    }
    if (properties.getUri() != null && !properties.getUri().isBlank()) {
      String uri = properties.getUri().trim();
      String scheme = uri.substring(0, Math.max(0, uri.indexOf("://"))).toLowerCase(Locale.ROOT);
      Kind kind =
          scheme.endsWith("-sentinel")
              ? Kind.SENTINEL
              : scheme.endsWith("-cluster") ? Kind.CLUSTER : Kind.STANDALONE;
      return new RedisEndpoint(kind, List.of(uri), properties.getSslBundle());
    }
    DataRedis redis =
        Binder.get(environment)
            .bind(PREFIX, Bindable.of(DataRedis.class))
            .orElse(new DataRedis(null, null, null, null, null, null, null, null, null));
    return fromDataRedis(redis, properties.getSslBundle());
  }

  static RedisEndpoint fromDataRedis(DataRedis redis, String sslBundleOverride) {
    String username = redis.username();
    String password = redis.password();
    int database = redis.database() != null ? redis.database() : 0;
    String host = redis.host() != null ? redis.host() : "localhost";
    int port = redis.port() != null ? redis.port() : 6379;
    boolean urlSsl = false;
    if (redis.url() != null && !redis.url().isBlank()) {
      URI url = parseUrl(redis.url());
      urlSsl = "rediss".equalsIgnoreCase(url.getScheme());
      host = url.getHost();
      port = url.getPort() >= 0 ? url.getPort() : 6379;
      username = null;
      password = null;
      if (url.getUserInfo() != null) { // as Boot: user:password, or the password alone
        String info = url.getUserInfo();
        int colon = info.indexOf(':');
        username = colon >= 0 ? emptyToNull(info.substring(0, colon)) : null;
        password = colon >= 0 ? info.substring(colon + 1) : info;
      }
      String path = url.getPath();
      database = path == null || path.length() <= 1 ? 0 : parseDatabase(path.substring(1));
    }
    Ssl ssl = redis.ssl();
    String bundle =
        sslBundleOverride != null ? sslBundleOverride : ssl != null ? ssl.bundle() : null;
    boolean tls =
        urlSsl
            || (ssl != null && ssl.enabled() != null
                ? ssl.enabled()
                : ssl != null && ssl.bundle() != null);
    String userInfo = userInfo(username, password);
    Sentinel sentinel = redis.sentinel();
    if (sentinel != null && sentinel.master() != null && !sentinel.master().isBlank()) {
      if (sentinel.password() != null || sentinel.username() != null) {
        throw new IllegalStateException(
            "redis-lock reaches the Sentinels without authentication, and cannot use"
                + " spring.data.redis.sentinel.username or .password: give the lock its own"
                + " redis-lock.uri, or leave them unset");
      }
      String nodes = String.join(",", require(sentinel.nodes(), "spring.data.redis.sentinel"));
      return new RedisEndpoint(
          Kind.SENTINEL,
          List.of(
              (tls ? "rediss-sentinel://" : "redis-sentinel://")
                  + userInfo
                  + nodes
                  + "/"
                  + encode(sentinel.master())
                  + (database != 0 ? "/" + database : "")),
          tls ? bundle : null);
    }
    Cluster cluster = redis.cluster();
    if (cluster != null && cluster.nodes() != null && !cluster.nodes().isEmpty()) {
      return new RedisEndpoint(
          Kind.CLUSTER,
          List.of(
              (tls ? "rediss-cluster://" : "redis-cluster://")
                  + userInfo
                  + String.join(",", cluster.nodes())),
          tls ? bundle : null);
    }
    return new RedisEndpoint(
        Kind.STANDALONE,
        List.of(
            (tls ? "rediss://" : "redis://")
                + userInfo
                + hostPort(host, port)
                + (database != 0 ? "/" + database : "")),
        tls ? bundle : null);
  }

  private static List<String> require(List<String> nodes, String what) {
    if (nodes == null || nodes.isEmpty()) {
      throw new IllegalStateException(what + ".master is set but " + what + ".nodes is empty");
    }
    return nodes;
  }

  private static URI parseUrl(String url) {
    try {
      URI uri = new URI(url.trim());
      if (uri.getScheme() == null
          || !(uri.getScheme().equalsIgnoreCase("redis")
              || uri.getScheme().equalsIgnoreCase("rediss"))
          || uri.getHost() == null) {
        throw new IllegalStateException(
            "spring.data.redis.url must be redis://[user:password@]host[:port][/database] or"
                + " rediss://...");
      }
      return uri;
    } catch (URISyntaxException e) { // no message: it would repeat the password
      throw new IllegalStateException("spring.data.redis.url is not a URI");
    }
  }

  private static int parseDatabase(String text) {
    try {
      return Integer.parseInt(text);
    } catch (NumberFormatException e) {
      throw new IllegalStateException(
          "the path of spring.data.redis.url must be a database number, not '" + text + "'");
    }
  }

  private static String hostPort(String host, int port) {
    boolean ipv6 = host.indexOf(':') >= 0 && !host.startsWith("[");
    return (ipv6 ? "[" + host + "]" : host) + ":" + port;
  }

  private static String userInfo(String username, String password) {
    if (password == null || password.isEmpty()) {
      if (username != null && !username.isEmpty()) {
        throw new IllegalStateException(
            "spring.data.redis.username is set without a password: redis-lock authenticates"
                + " with both, or with the password alone");
      }
      return "";
    }
    return (username != null ? encode(username) : "") + ":" + encode(password) + "@";
  }

  private static String emptyToNull(String text) {
    return text.isEmpty() ? null : text;
  }

  /** Percent-encodes everything but RFC 3986's unreserved characters, as UTF-8. */
  static String encode(String text) {
    StringBuilder encoded = new StringBuilder();
    for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
      char c = (char) (b & 0xff);
      if ((c >= 'a' && c <= 'z')
          || (c >= 'A' && c <= 'Z')
          || (c >= '0' && c <= '9')
          || c == '-'
          || c == '.'
          || c == '_'
          || c == '~') {
        encoded.append(c);
      } else {
        encoded.append('%').append(String.format("%02X", b & 0xff));
      }
    }
    return encoded.toString();
  }
}
