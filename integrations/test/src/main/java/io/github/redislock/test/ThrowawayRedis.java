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
import java.util.List;
import java.util.concurrent.TimeUnit;
import redis.clients.jedis.Jedis;

/**
 * A {@code redis-server} process of a test's own, on a free port of the loopback interface, without
 * persistence: started by {@link #start(String...)}, killed by {@link #close()}. The binary is the
 * one {@link RedisBinary} finds ({@code $REDIS_SERVER}, the {@code PATH}, or the one bundled in
 * embedded-redis).
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
  private final Path log;

  private ThrowawayRedis(Process process, int port, Path log) {
    this.process = process;
    this.port = port;
    this.log = log;
  }

  /**
   * Starts a server and waits until it answers {@code PING}.
   *
   * @param arguments further {@code redis-server} arguments, e.g. {@code "--maxmemory", "10mb"}
   * @return the running server
   * @throws IllegalStateException if no server could be started; its output is in the message
   */
  public static ThrowawayRedis start(String... arguments) {
    IllegalStateException failure = null;
    for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
      try {
        return startOnce(freePort(), arguments);
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

  private static ThrowawayRedis startOnce(int port, String... arguments) {
    List<String> command = new ArrayList<>();
    command.add(RedisBinary.path().toString());
    command.addAll(
        List.of(
            "--port", Integer.toString(port),
            "--bind", HOST,
            "--save", "",
            "--appendonly", "no",
            "--protected-mode", "no",
            "--daemonize", "no"));
    command.addAll(List.of(arguments));
    Path log;
    Process process;
    try {
      log = Files.createTempFile("throwaway-redis-" + port + "-", ".log");
      process =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(log.toFile())
              .start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + command, e);
    }
    ThrowawayRedis redis = new ThrowawayRedis(process, port, log);
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
    try (Jedis jedis = new Jedis(HOST, port, 1_000)) {
      return "PONG".equals(jedis.ping());
    } catch (RuntimeException e) { // still loading, or not listening yet
      return false;
    }
  }

  private static int freePort() {
    try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getByName(HOST))) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("no free port", e);
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
   * A new connection of the test's own.
   *
   * @return the connection, which the caller closes
   */
  public Jedis jedis() {
    return new Jedis(HOST, port, 5_000);
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
      try {
        Files.deleteIfExists(log);
      } catch (IOException e) {
        // a temp file: left to the system
      }
    }
  }

  @Override
  public String toString() {
    return "ThrowawayRedis[" + uri() + "]";
  }
}
