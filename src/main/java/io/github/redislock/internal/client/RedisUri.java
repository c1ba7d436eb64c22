package io.github.redislock.internal.client;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.stream.Collectors;
import redis.clients.jedis.HostAndPort;

/**
 * A parsed endpoint URI of one of the forms {@link RedisClients} documents. Parsed by hand: {@code
 * java.net.URI} cannot read comma-separated hosts. {@link #toString()} leaves the user information
 * out, and so does every error message.
 *
 * @param kind the deployment
 * @param tls whether to use TLS ({@code rediss://}, {@code rediss-sentinel://}, {@code
 *     rediss-cluster://})
 * @param nodes the server, the Sentinels or the cluster's seed nodes, in the URI's order
 * @param user the user name, or null for the default user
 * @param password the password, or null for none
 * @param masterName the Sentinel master name, or null for other kinds
 * @param database the database number (0 when not given)
 */
record RedisUri(
    Kind kind,
    boolean tls,
    List<HostAndPort> nodes,
    String user,
    String password,
    String masterName,
    int database) {

  /**
   * Parses {@code uri}.
   *
   * @throws NullPointerException if {@code uri} is null
   * @throws IllegalArgumentException naming the part that is wrong
   */
  static RedisUri parse(String uri) {
    Objects.requireNonNull(uri, "uri");
    return new Parser(uri).parse();
  }

  @Override
  public String toString() {
    String hosts = nodes.stream().map(HostAndPort::toString).collect(Collectors.joining(","));
    String db = database != 0 ? "/" + database : "";
    String scheme = tls ? "rediss" : "redis";
    return switch (kind) {
      case STANDALONE -> scheme + "://" + hosts + db;
      case SENTINEL -> scheme + "-sentinel://" + hosts + "/" + masterName + db;
      case CLUSTER -> scheme + "-cluster://" + hosts;
    };
  }

  private static final class Parser {
    private final String uri;

    Parser(String uri) {
      this.uri = uri;
    }

    RedisUri parse() {
      int schemeEnd = uri.indexOf("://");
      if (schemeEnd < 0) {
        throw bad("it has no scheme such as redis://", null);
      }
      String scheme = uri.substring(0, schemeEnd).toLowerCase(Locale.ROOT);
      Kind kind =
          switch (scheme) {
            case "redis", "rediss" -> Kind.STANDALONE;
            case "redis-sentinel", "rediss-sentinel" -> Kind.SENTINEL;
            case "redis-cluster", "rediss-cluster" -> Kind.CLUSTER;
            default -> throw bad("unknown scheme '" + uri.substring(0, schemeEnd) + "'", null);
          };
      String rest = uri.substring(schemeEnd + 3);
      int authorityEnd = indexOfAny(rest, "/?#");
      String authority = authorityEnd < 0 ? rest : rest.substring(0, authorityEnd);
      String tail = authorityEnd < 0 ? "" : rest.substring(authorityEnd);
      if (tail.indexOf('?') >= 0 || tail.indexOf('#') >= 0) {
        throw bad("query parameters and fragments are not supported", kind);
      }
      int at = authority.lastIndexOf('@');
      String user = null;
      String password = null;
      if (at >= 0) {
        String userInfo = authority.substring(0, at);
        int colon = userInfo.indexOf(':');
        if (colon < 0) {
          throw bad("the user information must be user:password or :password", kind);
        }
        user = colon == 0 ? null : decode(userInfo.substring(0, colon), "user name", kind);
        password = decode(userInfo.substring(colon + 1), "password", kind);
        if (password.isEmpty()) {
          throw bad("the password is empty", kind);
        }
      }
      List<HostAndPort> nodes = hosts(authority.substring(at + 1), kind);
      String path = tail.isEmpty() ? "" : tail.substring(1);
      String masterName = null;
      int database = 0;
      switch (kind) {
        case STANDALONE -> database = path.isEmpty() ? 0 : database(path, kind);
        case SENTINEL -> {
          int slash = path.indexOf('/');
          String name = slash < 0 ? path : path.substring(0, slash);
          if (name.isEmpty()) {
            throw bad("the Sentinel master name is missing after the addresses", kind);
          }
          masterName = decode(name, "master name", kind);
          String db = slash < 0 ? "" : path.substring(slash + 1);
          database = db.isEmpty() ? 0 : database(db, kind);
        }
        default -> {
          if (!path.isEmpty()) {
            throw bad("a Redis Cluster has only database 0; remove '/" + path + "'", kind);
          }
        }
      }
      return new RedisUri(
          kind, scheme.startsWith("rediss"), nodes, user, password, masterName, database);
    }

    private List<HostAndPort> hosts(String list, Kind kind) {
      if (list.isEmpty()) {
        throw bad("the host is missing", kind);
      }
      String[] parts = list.split(",", -1);
      if (kind == Kind.STANDALONE && parts.length > 1) {
        throw bad("it names " + parts.length + " hosts where one is expected", kind);
      }
      List<HostAndPort> nodes = new ArrayList<>();
      for (String part : parts) {
        nodes.add(host(part, kind));
      }
      return List.copyOf(nodes);
    }

    private HostAndPort host(String part, Kind kind) {
      if (part.isEmpty()) {
        throw bad("an address in the host list is empty", kind);
      }
      String host;
      String port;
      if (part.startsWith("[")) {
        int close = part.indexOf(']');
        if (close < 0 || close + 1 >= part.length() || part.charAt(close + 1) != ':') {
          throw bad("the address '" + part + "' is not [ipv6]:port", kind);
        }
        host = part.substring(1, close);
        port = part.substring(close + 2);
      } else {
        int colon = part.lastIndexOf(':');
        if (colon < 0) {
          throw bad("the address '" + part + "' has no port", kind);
        }
        host = part.substring(0, colon);
        port = part.substring(colon + 1);
        if (host.indexOf(':') >= 0) {
          throw bad(
              "the address '" + part + "' is not host:port (an IPv6 host goes in brackets)", kind);
        }
      }
      if (host.isEmpty()) {
        throw bad("the address '" + part + "' has no host", kind);
      }
      return new HostAndPort(host, port(port, part, kind));
    }

    private int port(String text, String part, Kind kind) {
      int port = digits(text, 5);
      if (port < 1 || port > 65_535) {
        throw bad("the port of '" + part + "' is not a number from 1 to 65535", kind);
      }
      return port;
    }

    private int database(String text, Kind kind) {
      int database = digits(text, 9);
      if (database < 0) {
        throw bad("the database '" + text + "' is not a non-negative number", kind);
      }
      return database;
    }

    /** The number {@code text} spells with at most {@code max} digits, or -1. */
    private static int digits(String text, int max) {
      if (text.isEmpty()
          || text.length() > max
          || !text.chars().allMatch(c -> c >= '0' && c <= '9')) {
        return -1;
      }
      return Integer.parseInt(text);
    }

    /**
     * Percent-decodes {@code text} as UTF-8, refusing bytes that are not UTF-8 ({@code %C3} alone);
     * unlike URLDecoder it leaves '+' alone.
     */
    private String decode(String text, String part, Kind kind) {
      byte[] bytes = new byte[text.length() * 4];
      int length = 0;
      for (int i = 0; i < text.length(); i++) {
        char c = text.charAt(i);
        if (c == '%') {
          int high = i + 2 < text.length() ? Character.digit(text.charAt(i + 1), 16) : -1;
          int low = i + 2 < text.length() ? Character.digit(text.charAt(i + 2), 16) : -1;
          if (high < 0 || low < 0) {
            throw bad("the " + part + " has a '%' that is not followed by two hex digits", kind);
          }
          bytes[length++] = (byte) (high * 16 + low);
          i += 2;
        } else {
          byte[] encoded = String.valueOf(c).getBytes(StandardCharsets.UTF_8);
          if (Character.isHighSurrogate(c) && i + 1 < text.length()) {
            encoded = text.substring(i, i + 2).getBytes(StandardCharsets.UTF_8);
            i++;
          }
          System.arraycopy(encoded, 0, bytes, length, encoded.length);
          length += encoded.length;
        }
      }
      try {
        return StandardCharsets.UTF_8
            .newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT)
            .decode(ByteBuffer.wrap(bytes, 0, length))
            .toString();
      } catch (CharacterCodingException e) {
        // Decoded leniently, the bad bytes would become U+FFFD: a password nobody chose.
        throw bad("the " + part + " is not UTF-8 once its '%' escapes are decoded", kind);
      }
    }

    private IllegalArgumentException bad(String problem, Kind kind) {
      String expected =
          kind != null
              ? kind.form()
              : Kind.STANDALONE.form() + ", " + Kind.SENTINEL.form() + " or " + Kind.CLUSTER.form();
      return new IllegalArgumentException(
          "not a Redis URI: '" + redacted() + "': " + problem + "; expected " + expected);
    }

    /** The URI with its user information replaced, so that no password reaches a message. */
    private String redacted() {
      int schemeEnd = uri.indexOf("://");
      int start = schemeEnd < 0 ? 0 : schemeEnd + 3;
      int end = indexOfAny(uri.substring(start), "/?#");
      String authority = end < 0 ? uri.substring(start) : uri.substring(start, start + end);
      int at = authority.lastIndexOf('@');
      return at < 0 ? uri : uri.substring(0, start) + "***@" + uri.substring(start + at + 1);
    }

    private static int indexOfAny(String text, String chars) {
      for (int i = 0; i < text.length(); i++) {
        if (chars.indexOf(text.charAt(i)) >= 0) {
          return i;
        }
      }
      return -1;
    }
  }
}
