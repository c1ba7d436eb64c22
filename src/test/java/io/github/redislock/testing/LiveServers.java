package io.github.redislock.testing;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import redis.clients.jedis.Jedis;

/**
 * The Redis servers that the fixtures of this JVM started and have not stopped yet: what {@link
 * LeakCheck} inspects after each test. {@link RedisServer} registers itself once it answers {@code
 * PING} and deregisters as it closes (so every {@link RedisCluster}, {@link RedisSentinelGroup},
 * {@link RedisServerExtension} and contract {@code Deployment} built on it is covered); a fixture
 * that runs a server some other way (a container) registers an {@link Endpoint} of its own.
 *
 * <p>Thread-safe. Just before an endpoint stops, the listener that {@link LeakCheck} installs may
 * inspect it (see {@link #stopping}).
 */
public final class LiveServers {

  /** A running server that the leak check can reach. */
  public interface Endpoint {
    /**
     * Whether the server process runs (a frozen one runs): one that was killed is not inspected.
     *
     * @return true while it runs
     */
    boolean isRunning();

    /**
     * A new raw RESP2 connection for inspection, with a short timeout; a server frozen by the test
     * is thawed first.
     *
     * @return a new connection; the caller closes it
     */
    Jedis connectForCheck();

    /** Stops the server for good (used for servers a test class left running). */
    void close();
  }

  private static final Set<Endpoint> LIVE = new LinkedHashSet<>();
  private static volatile Consumer<Endpoint> stoppingListener = endpoint -> {};

  private LiveServers() {}

  /**
   * Registers a server that has started and answers.
   *
   * @param endpoint the server
   */
  public static void started(Endpoint endpoint) {
    synchronized (LIVE) {
      LIVE.add(endpoint);
    }
  }

  /**
   * Gives the listener (the leak check) a last look at a registered server that is about to stop,
   * while it still runs. Does nothing for a server that is not registered.
   *
   * @param endpoint the server, still running
   */
  public static void stopping(Endpoint endpoint) {
    boolean registered;
    synchronized (LIVE) {
      registered = LIVE.contains(endpoint);
    }
    if (registered) {
      stoppingListener.accept(endpoint);
    }
  }

  /**
   * Deregisters a server that has stopped (or failed to stop: it is not looked at again).
   *
   * @param endpoint the server
   */
  public static void stopped(Endpoint endpoint) {
    synchronized (LIVE) {
      LIVE.remove(endpoint);
    }
  }

  /**
   * The servers running now, oldest first.
   *
   * @return a copy
   */
  public static List<Endpoint> snapshot() {
    synchronized (LIVE) {
      return new ArrayList<>(LIVE);
    }
  }

  /** Sets what runs just before a registered server stops; it must not throw. */
  static void onStopping(Consumer<Endpoint> listener) {
    stoppingListener = listener;
  }
}
