package io.github.redislock.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import java.util.stream.Stream;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisProtocol;

/**
 * A {@code redis-server} process of a test's own, on a free port of the loopback interface, without
 * persistence, in a temp directory of its own: started by {@link #start(String...)}, killed by
 * {@link #close()}, which deletes the directory. The binary is the one {@link RedisBinary} finds
 * ({@code $REDIS_SERVER}, the {@code PATH}, or the one bundled in embedded-redis).
 *
 * <pre>{@code
 * try (ThrowawayRedis redis = ThrowawayRedis.start()) {
 *   RedisLockFactory factory = RedisLockFactory.builder().standalone(redis.uri()).build();
 *   ...
 * }
 * }</pre>
 */
public final class ThrowawayRedis implements AutoCloseable {
  private static final String HOST = "127.0.0.1";
  private static final Duration START_TIMEOUT = Duration.ofSeconds(20);
  private static final int ATTEMPTS = 3;

  private final Process process;
  private final int port;
  private final Path dir;
  private final Path log;

  private ThrowawayRedis(Process process, int port, Path dir) {
    this.process = process;
    this.port = port;
    this.dir = dir;
    this.log = dir.resolve("redis.log");
  }

  /**
   * Starts a server and waits until it answers {@code PING}.
   *
   * @param arguments further {@code redis-server} arguments, e.g. {@code "--maxmemory", "10mb"}
   * @return the running server
   * @throws IllegalStateException if no server could be started; its output is in the message
   */
  public static ThrowawayRedis start(String... arguments) {
    return start(ThrowawayRedis::freePort, null, arguments);
  }

  /**
   * Starts a server on a port of {@code ports}, from a configuration file with the text {@code
   * config} (written to the server's directory, where a Sentinel may rewrite it) when it is not
   * null, and waits until it answers {@code PING}. For the fixtures of this package: a Sentinel
   * needs a configuration file, a Cluster node a bus port.
   */
  static ThrowawayRedis start(IntSupplier ports, String config, String... arguments) {
    IllegalStateException failure = null;
    for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
      try {
        return startOnce(ports.getAsInt(), config, arguments);
      } catch (IllegalStateException e) { // another process took the port first: try another
        if (failure == null) {
          failure = e;
        } else {
          failure.addSuppressed(e);
        }
      }
    }
    throw failure;
  }

  private static ThrowawayRedis startOnce(int port, String config, String... arguments) {
    Path dir;
    try {
      dir = Files.createTempDirectory("throwaway-redis-" + port + "-");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a directory for redis-server", e);
    }
    List<String> command = new ArrayList<>();
    command.add(RedisBinary.path().toString());
    if (config != null) { // redis-server takes a file only as its first argument
      command.add(writeConfig(dir, config).toString());
    }
    command.addAll(
        List.of(
            "--port", Integer.toString(port),
            "--bind", HOST,
            "--save", "",
            "--appendonly", "no",
            "--protected-mode", "no",
            "--daemonize", "no"));
    command.addAll(List.of(arguments));
    Process process;
    try {
      // Its working directory, where a replica keeps the data it receives, a cluster node its
      // nodes.conf: deleted by close().
      process =
          new ProcessBuilder(command)
              .directory(dir.toFile())
              .redirectErrorStream(true)
              .redirectOutput(dir.resolve("redis.log").toFile())
              .start();
    } catch (IOException e) {
      deleteTree(dir);
      throw new UncheckedIOException("cannot start " + command, e);
    }
    ThrowawayRedis redis = new ThrowawayRedis(process, port, dir);
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    while (!redis.answers()) {
      if (!process.isAlive() || System.nanoTime() - deadline > 0) {
        String output = redis.output();
        redis.close();
        throw new IllegalStateException(
            "redis-server on port "
                + port
                + " did not start ("
                + RedisBinary.describe()
                + "):\n"
                + output);
      }
      try {
        process.waitFor(20, TimeUnit.MILLISECONDS); // a pause that ends early if it exits
      } catch (InterruptedException e) {
        redis.close();
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while starting redis-server", e);
      }
    }
    return redis;
  }

  private boolean answers() {
    try (Socket probe = new Socket()) {
      probe.connect(new InetSocketAddress(HOST, port), 200);
    } catch (IOException e) {
      return false;
    }
    try (Jedis jedis = jedis(1_000)) {
      return "PONG".equals(jedis.ping());
    } catch (RuntimeException e) { // still loading, or not listening yet
      return false;
    }
  }

  private static Path writeConfig(Path dir, String config) {
    Path file = dir.resolve("redis.conf");
    try {
      Files.writeString(file, config, StandardCharsets.UTF_8);
      return file;
    } catch (IOException e) {
      deleteTree(dir);
      throw new UncheckedIOException("cannot write " + file, e);
    }
  }

  /** A port free now on the loopback interface. */
  static int freePort() {
    try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getByName(HOST))) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("no free port", e);
    }
  }

  /** Whether {@code port} is free now on the loopback interface. */
  static boolean isFree(int port) {
    try (ServerSocket socket = new ServerSocket(port, 1, java.net.InetAddress.getByName(HOST))) {
      return socket.getLocalPort() == port;
    } catch (IOException e) {
      return false;
    }
  }

  private static void deleteTree(Path dir) {
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(path);
      }
    } catch (IOException | UncheckedIOException e) {
      // a temp directory: left to the system
    }
  }

  /**
   * The host it listens on.
   *
   * @return {@code 127.0.0.1}
   */
  public String host() {
    return HOST;
  }

  /**
   * Its port.
   *
   * @return the port it listens on
   */
  public int port() {
    return port;
  }

  /**
   * Its URI, for {@code RedisLockFactory.builder().standalone(uri)}.
   *
   * @return {@code redis://host:port}
   */
  public String uri() {
    return "redis://" + HOST + ":" + port;
  }

  /**
   * A new connection of the test's own, speaking RESP2 (it says so with {@code HELLO 2}, rather
   * than have Jedis 8 log on every connection that it does not negotiate the protocol).
   *
   * @return the connection, which the caller closes
   */
  public Jedis jedis() {
    return jedis(5_000);
  }

  /** A new RESP2 connection with the given connect and read timeout. */
  Jedis jedis(int timeoutMillis) {
    return new Jedis(
        new HostAndPort(HOST, port),
        DefaultJedisClientConfig.builder()
            .connectionTimeoutMillis(timeoutMillis)
            .socketTimeoutMillis(timeoutMillis)
            .protocol(RedisProtocol.RESP2)
            .build());
  }

  /** Deletes every key, e.g. between two tests that share the server. */
  public void flushAll() {
    try (Jedis jedis = jedis()) {
      jedis.flushAll();
    }
  }

  /**
   * Whether the process still runs.
   *
   * @return {@code true} until it ended
   */
  public boolean isRunning() {
    return process.isAlive();
  }

  /**
   * What the server printed so far.
   *
   * @return its output
   */
  public String output() {
    try {
      return Files.readString(log, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "<cannot read " + log + ": " + e.getMessage() + ">";
    }
  }

  /** Kills the server and waits for it to end. */
  @Override
  public void close() {
    process.destroyForcibly();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        throw new IllegalStateException("redis-server on port " + port + " did not end");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      deleteTree(dir);
    }
  }

  @Override
  public String toString() {
    return "ThrowawayRedis[" + uri() + "]";
  }
}
