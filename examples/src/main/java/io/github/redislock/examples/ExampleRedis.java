package io.github.redislock.examples;

import io.github.redislock.test.RedisBinary;
import io.github.redislock.testing.RedisServer;

/**
 * Where the examples find Redis: the URI in the system property {@code redis.url}, else in the
 * environment variable {@code REDIS_URL}, else a {@code redis-server} started for the example (on a
 * free local port, with the test fixture) and stopped by {@link #close()}.
 *
 * <pre>{@code
 * try (ExampleRedis redis = ExampleRedis.locate()) {
 *   run(redis.uri());
 * }
 * }</pre>
 */
public final class ExampleRedis implements AutoCloseable {
  /** The system property naming an existing Redis, e.g. {@code -Dredis.url=redis://host:6379}. */
  public static final String PROPERTY = "redis.url";

  /** The environment variable naming an existing Redis. */
  public static final String ENVIRONMENT = "REDIS_URL";

  private final String uri;
  private final String origin;
  private final RedisServer started;

  private ExampleRedis(String uri, String origin, RedisServer started) {
    this.uri = uri;
    this.origin = origin;
    this.started = started;
  }

  /**
   * Finds the Redis to use, starting one if none is given.
   *
   * @return the Redis; close it to stop a server it started
   */
  public static ExampleRedis locate() {
    String fromProperty = System.getProperty(PROPERTY);
    if (fromProperty != null && !fromProperty.isBlank()) {
      return new ExampleRedis(fromProperty.trim(), "-D" + PROPERTY, null);
    }
    String fromEnvironment = System.getenv(ENVIRONMENT);
    if (fromEnvironment != null && !fromEnvironment.isBlank()) {
      return new ExampleRedis(fromEnvironment.trim(), "$" + ENVIRONMENT, null);
    }
    RedisServer server = RedisServer.start();
    String version = RedisBinary.describe().replaceFirst("^.*\\bv=(\\S+).*$", "$1");
    return new ExampleRedis(server.uri(), "started for this run, redis-server " + version, server);
  }

  /**
   * Returns the Redis URI.
   *
   * @return e.g. {@code redis://127.0.0.1:6379}
   */
  public String uri() {
    return uri;
  }

  /**
   * Describes the Redis for the examples' first line of output.
   *
   * @return the URI and where it came from
   */
  public String describe() {
    return uri + " (" + origin + ")";
  }

  /** Stops the {@code redis-server} this object started, if any. */
  @Override
  public void close() {
    if (started != null) {
      started.close();
    }
  }
}
