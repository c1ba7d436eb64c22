package io.github.redislock.testing;

import io.github.redislock.internal.jedis.JedisApi;
import io.github.redislock.test.RedisBinary;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisException;

/**
 * A real {@code redis-server} process on a free loopback port, for tests that need to kill, freeze
 * or restart the server under a client.
 *
 * <p>The server runs in the foreground of a child process with persistence off ({@code --save ""
 * --appendonly no}) and its working directory in a fresh temp directory, where its stdout and
 * stderr go to {@code redis.log} (see {@link #log()}). On Redis 7+ the {@code DEBUG} command is
 * enabled for local clients ({@code --enable-debug-command local}); older servers (the bundled 6.2)
 * allow it anyway and reject that flag.
 *
 * <p>A JVM shutdown hook kills every server not closed yet, so an aborted test run leaves no {@code
 * redis-server} behind. A server that answers is registered in {@link LiveServers} until it is
 * closed, for the {@link LeakCheck} of integration tests. Instances are thread-safe.
 *
 * <pre>{@code
 * try (RedisServer redis = RedisServer.start()) {
 *     try (Jedis j = redis.jedis()) { j.set("k", "v"); }
 *     redis.pause();   // SIGSTOP: commands now time out
 *     redis.resume();  // SIGCONT
 * }
 * }</pre>
 */
public final class RedisServer implements AutoCloseable, LiveServers.Endpoint {

  private static final String HOST = "127.0.0.1";
  private static final int CLUSTER_BUS_OFFSET = 10_000;
  private static final Duration START_TIMEOUT = Duration.ofSeconds(10);
  private static final Duration PROBE_TIMEOUT = Duration.ofMillis(250);
  private static final Duration DEFAULT_CLIENT_TIMEOUT = Duration.ofSeconds(2);
  private static final int START_ATTEMPTS = 5;

  private static final Set<RedisServer> LIVE = ConcurrentHashMap.newKeySet();

  static {
    Thread reaper = new Thread(RedisServer::killAllLive, "redis-server-reaper");
    Runtime.getRuntime().addShutdownHook(reaper);
  }

  private final int port;
  private final Path dir;
  private final Path logFile;
  private final List<String> command;

  private volatile Process process;
  private volatile boolean paused;
  private boolean closed;

  private RedisServer(Path binary, int port, Path dir, Path configFile, List<String> extraArgs) {
    this.port = port;
    this.dir = dir;
    this.logFile = dir.resolve("redis.log");
    List<String> cmd = new ArrayList<>(List.of(binary.toString()));
    if (configFile != null) {
      cmd.add(configFile.toString()); // redis-server takes a config file only as its first argument
    }
    cmd.addAll(
        List.of(
            "--port",
            Integer.toString(port),
            "--bind",
            HOST,
            "--save",
            "",
            "--appendonly",
            "no",
            "--daemonize",
            "no",
            "--dir",
            dir.toString()));
    if (RedisBinary.majorVersion(binary) >= 7) {
      cmd.addAll(List.of("--enable-debug-command", "local"));
    }
    cmd.addAll(extraArgs);
    this.command = List.copyOf(cmd);
  }

  /**
   * Starts a server with the binary chosen by {@link RedisBinary#path()} on a free port and waits
   * until it answers {@code PING}.
   *
   * @param extraArgs further {@code redis-server} arguments, e.g. {@code "--cluster-enabled",
   *     "yes"} (with cluster mode on, the bus port {@code port + 10000} is checked to be free too)
   * @return the running server; close it
   * @throws IllegalStateException if the server does not come up within 10 s (scaled), with its log
   */
  public static RedisServer start(String... extraArgs) {
    return startWith(RedisBinary.path(), extraArgs);
  }

  /**
   * Like {@link #start(String...)}, with an explicit {@code redis-server} binary.
   *
   * @param binary the {@code redis-server} executable
   * @param extraArgs further {@code redis-server} arguments
   * @return the running server; close it
   * @throws IllegalStateException if the server does not come up within 10 s (scaled), with its log
   */
  public static RedisServer startWith(Path binary, String... extraArgs) {
    return start(binary, null, List.of(extraArgs));
  }

  /**
   * Starts a server that also listens for TLS connections on a second free port, presenting a
   * certificate of {@code tls} ({@link TlsMaterial#serverArgs}); the plain port stays open for the
   * fixtures' own connections. The arguments are kept across {@link #restart()}.
   *
   * @param tls the certificates
   * @param authClients whether the server requires client certificates
   * @param wrongName whether it presents a certificate for another host name than 127.0.0.1
   * @param extraArgs further {@code redis-server} arguments
   * @return the running server; close it
   */
  public static RedisServer startTls(
      TlsMaterial tls, boolean authClients, boolean wrongName, String... extraArgs) {
    List<String> args = new ArrayList<>(tls.serverArgs(freePort(false), authClients, wrongName));
    args.addAll(List.of(extraArgs));
    return start(RedisBinary.path(), null, args);
  }

  /**
   * Like {@link #startTls}, from a configuration file (a Sentinel's), with {@code tls-replication
   * yes} so that it reaches other servers over TLS.
   *
   * @param tls the certificates
   * @param config the configuration file's text
   * @param extraArgs further {@code redis-server} arguments, e.g. {@code "--sentinel"}
   * @return the running server; close it
   */
  public static RedisServer startTlsWithConfig(
      TlsMaterial tls, String config, String... extraArgs) {
    List<String> args = new ArrayList<>(tls.serverArgs(freePort(false), false, false));
    args.addAll(List.of("--tls-replication", "yes"));
    args.addAll(List.of(extraArgs));
    return start(RedisBinary.path(), config, args);
  }

  /**
   * Starts a server from a configuration file with the given text, written to {@code redis.conf} in
   * the server's own (writable) directory, followed by the usual arguments (which override the
   * file). A Sentinel, for example, rewrites its file as it learns:
   *
   * <pre>{@code
   * RedisServer.startWithConfig("sentinel monitor mymaster 127.0.0.1 6379 2\n", "--sentinel");
   * }</pre>
   *
   * The file is kept across {@link #restart()}, with whatever the server rewrote into it.
   *
   * @param config the configuration file's text
   * @param extraArgs further {@code redis-server} arguments, e.g. {@code "--sentinel"}
   * @return the running server; close it
   * @throws IllegalStateException if the server does not come up within 10 s (scaled), with its log
   */
  public static RedisServer startWithConfig(String config, String... extraArgs) {
    return start(RedisBinary.path(), config, List.of(extraArgs));
  }

  private static RedisServer start(Path binary, String config, List<String> extra) {
    boolean cluster = isClusterEnabled(extra);
    String lastLog = "";
    for (int attempt = 1; attempt <= START_ATTEMPTS; attempt++) {
      Path dir = createTempDir();
      Path configFile = config == null ? null : writeConfig(dir, config);
      RedisServer server = new RedisServer(binary, freePort(cluster), dir, configFile, extra);
      LIVE.add(server);
      boolean ready = false;
      try {
        ready = server.launch();
        if (ready) {
          LiveServers.started(server);
          return server;
        }
        lastLog = server.log();
      } finally {
        if (!ready) {
          server.close();
        }
      }
    }
    throw new IllegalStateException(
        "redis-server could not bind a free port in "
            + START_ATTEMPTS
            + " attempts; last log:\n"
            + lastLog);
  }

  /**
   * The port the server listens on (stable across {@link #restart()}).
   *
   * @return the TCP port
   */
  public int port() {
    return port;
  }

  /**
   * The address the server binds.
   *
   * @return {@code "127.0.0.1"}
   */
  public String host() {
    return HOST;
  }

  /**
   * The server's address as a URI.
   *
   * @return {@code "redis://127.0.0.1:PORT"}
   */
  public String uri() {
    return "redis://" + HOST + ":" + port;
  }

  /**
   * The TLS port, for a server started with {@link #startTls}.
   *
   * @return the port
   * @throws IllegalStateException if the server has no TLS port
   */
  public int tlsPort() {
    String port = argument("--tls-port");
    if (port == null) {
      throw new IllegalStateException("no TLS port: " + this);
    }
    return Integer.parseInt(port);
  }

  /**
   * The value the server was started with for a command-line option.
   *
   * @param option for example {@code "--cluster-port"}
   * @return its value, or null if it was not given
   */
  public String argument(String option) {
    int i = command.lastIndexOf(option);
    return i < 0 || i + 1 >= command.size() ? null : command.get(i + 1);
  }

  /**
   * A port free now on the loopback interface, for a server's further listeners.
   *
   * @return the port
   */
  public static int freePort() {
    return freePort(false);
  }

  /**
   * Whether the server listens for TLS connections.
   *
   * @return whether it was started with {@link #startTls}
   */
  public boolean hasTls() {
    return argument("--tls-port") != null;
  }

  /**
   * The server's TLS address as a URI.
   *
   * @return {@code "rediss://127.0.0.1:TLSPORT"}
   */
  public String tlsUri() {
    return "rediss://" + HOST + ":" + tlsPort();
  }

  /**
   * The operating-system process id of the current server process.
   *
   * @return the PID (it changes on {@link #restart()})
   */
  public long pid() {
    Process p = process;
    if (p == null) {
      throw new IllegalStateException("not started");
    }
    return p.pid();
  }

  /**
   * Opens a new raw connection with a 2 s connect and socket timeout.
   *
   * @return a new connection; the caller closes it
   */
  public Jedis jedis() {
    return connect(port, DEFAULT_CLIENT_TIMEOUT);
  }

  /**
   * A new raw connection for the leak check ({@link LiveServers}): thaws the server first if a test
   * left it frozen.
   *
   * @return a new connection with a 2 s timeout; the caller closes it
   */
  @Override
  public Jedis connectForCheck() {
    resume();
    return jedis();
  }

  /**
   * Opens a new raw connection with the given connect and socket timeout.
   *
   * @param timeout the connect and socket (read) timeout
   * @return a new connection; the caller closes it
   */
  public Jedis jedis(Duration timeout) {
    return connect(port, timeout);
  }

  /**
   * Opens a raw RESP2 connection to {@code 127.0.0.1:port} (a server or a {@link TcpProxy}). Unlike
   * {@code new Jedis(host, port, timeout)} it does not log Jedis 8's RESP3 auto-negotiation
   * warning. Note that Jedis 8 connects in the constructor, so an unreachable or frozen server
   * makes this method throw {@code JedisConnectionException}.
   *
   * @param port the port to connect to
   * @param timeout the connect and socket (read) timeout
   * @return a new connection; the caller closes it
   */
  public static Jedis connect(int port, Duration timeout) {
    int millis = Math.toIntExact(timeout.toMillis());
    DefaultJedisClientConfig.Builder config =
        DefaultJedisClientConfig.builder()
            .connectionTimeoutMillis(millis)
            .socketTimeoutMillis(millis);
    return new Jedis(new HostAndPort(HOST, port), resp2(config).build());
  }

  /**
   * {@code config} without protocol negotiation: RESP2, the tests' inspection connections'
   * protocol. Jedis 8 negotiates RESP3 unless told not to; Jedis 7 (the {@code -Pjedis7} run)
   * negotiates nothing, and has no such setting.
   */
  public static DefaultJedisClientConfig.Builder resp2(DefaultJedisClientConfig.Builder config) {
    return JedisApi.MODERN ? config.autoNegotiateProtocol(false) : config;
  }

  /**
   * Kills the server with SIGKILL (even while paused) and waits until the process is gone. Does
   * nothing if it is not running. {@link #restart()} brings it back on the same port.
   */
  public synchronized void kill() {
    Process p = process;
    if (p != null && p.isAlive()) {
      ProcessSupport.killAndWait(p);
    }
    paused = false;
  }

  /**
   * Freezes the server with SIGSTOP: connections stay open and are accepted by the kernel, but no
   * command is answered until {@link #resume()}. Returns once the process is stopped.
   *
   * @throws IllegalStateException if the server is not running
   */
  public synchronized void pause() {
    requireRunning();
    long pid = pid();
    ProcessSupport.signal(pid, "STOP");
    paused = true;
    awaitProcState(pid, true);
  }

  /** Continues a server frozen by {@link #pause()} with SIGCONT. Does nothing if not paused. */
  public synchronized void resume() {
    if (!paused) {
      return;
    }
    Process p = process;
    if (p != null && p.isAlive()) {
      ProcessSupport.signal(p.pid(), "CONT");
      awaitProcState(p.pid(), false);
    }
    paused = false;
  }

  /**
   * Starts the server again on the same port with the same arguments (killing it first if it is
   * still running) and waits until it answers {@code PING}. Data is not kept (persistence is off),
   * but files in the working directory such as a cluster's {@code nodes.conf} are. Retries while
   * the port is briefly still taken.
   *
   * @throws IllegalStateException if closed, or if the server does not come up in time
   */
  public synchronized void restart() {
    if (closed) {
      throw new IllegalStateException("closed: " + this);
    }
    kill();
    long deadline = System.nanoTime() + Timing.scaled(START_TIMEOUT).toNanos();
    while (!launch()) {
      if (System.nanoTime() - deadline > 0) {
        throw new IllegalStateException(
            "port " + port + " stayed in use; cannot restart " + this + "; log:\n" + log());
      }
      ProcessSupport.pollPause();
    }
  }

  /**
   * Whether the server process is alive (a paused server is running).
   *
   * @return true while the process exists
   */
  @Override
  public boolean isRunning() {
    Process p = process;
    return p != null && p.isAlive();
  }

  /**
   * Whether the server is frozen by {@link #pause()}.
   *
   * @return true between {@code pause()} and {@code resume()}
   */
  public boolean isPaused() {
    return paused;
  }

  /** Deletes every key in every database ({@code FLUSHALL}). */
  public void flushAll() {
    try (Jedis j = jedis()) {
      j.flushAll();
    }
  }

  /**
   * The server's combined stdout and stderr so far (across restarts), for failure messages.
   *
   * @return the log text, or an empty string if there is none yet
   */
  public String log() {
    return ProcessSupport.readQuietly(logFile);
  }

  /**
   * Stops the server for good: resumes it if paused, kills it and deletes its temp directory.
   * Idempotent.
   */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      if (paused) {
        resume();
      }
      LiveServers.stopping(this); // the leak check's last look, while it still runs
    } finally {
      kill();
      LiveServers.stopped(this);
      LIVE.remove(this);
      ProcessSupport.deleteTreeQuietly(dir);
    }
  }

  @Override
  public String toString() {
    Process p = process;
    return "RedisServer["
        + HOST
        + ":"
        + port
        + (p == null ? "" : " pid=" + p.pid())
        + (paused ? " paused" : "")
        + (closed ? " closed" : "")
        + "]";
  }

  /**
   * Launches the process and waits until this very process answers PING.
   *
   * @return true when ready; false if it exited because the port was in use
   * @throws IllegalStateException if it exited for another reason or did not answer in time
   */
  private synchronized boolean launch() {
    long logStart = logSize();
    Process p;
    try {
      p =
          new ProcessBuilder(command)
              .directory(dir.toFile())
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()))
              .start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + String.join(" ", command), e);
    }
    process = p;
    paused = false;
    long deadline = System.nanoTime() + Timing.scaled(START_TIMEOUT).toNanos();
    RuntimeException lastProbeFailure = null;
    while (true) {
      if (!p.isAlive()) {
        String newLog = logSince(logStart);
        if (newLog.contains("Address already in use")) {
          return false;
        }
        throw new IllegalStateException(
            "redis-server exited with "
                + p.exitValue()
                + " ("
                + String.join(" ", command)
                + "); log:\n"
                + newLog);
      }
      try {
        if (answersAsThisProcess(p.pid())) {
          return true;
        }
      } catch (JedisException e) {
        lastProbeFailure = e;
      }
      if (System.nanoTime() - deadline > 0) {
        ProcessSupport.killAndWait(p);
        throw new IllegalStateException(
            "redis-server on port "
                + port
                + " did not answer PING within "
                + Timing.scaled(START_TIMEOUT)
                + " (last error: "
                + lastProbeFailure
                + "); log:\n"
                + logSince(logStart));
      }
      ProcessSupport.pollPause();
    }
  }

  /** PINGs the port and checks the answer comes from our process, not another one on the port. */
  private boolean answersAsThisProcess(long pid) {
    try (Jedis j = connect(port, PROBE_TIMEOUT)) {
      if (!"PONG".equals(j.ping())) {
        return false;
      }
      String info = j.info("server");
      return info.lines().anyMatch(line -> line.trim().equals("process_id:" + pid));
    }
  }

  private void requireRunning() {
    if (!isRunning()) {
      throw new IllegalStateException("not running: " + this);
    }
  }

  /** Waits (bounded) until procfs shows the process stopped (or no longer stopped). */
  private static void awaitProcState(long pid, boolean stopped) {
    long deadline = System.nanoTime() + Timing.scaled(Duration.ofSeconds(5)).toNanos();
    while (true) {
      char state = ProcessSupport.procState(pid);
      if (state == '?' || (state == 'T') == stopped) {
        return;
      }
      if (System.nanoTime() - deadline > 0) {
        throw new IllegalStateException(
            "process "
                + pid
                + " did not become "
                + (stopped ? "stopped" : "running")
                + "; state "
                + state);
      }
      ProcessSupport.pollPause();
    }
  }

  private long logSize() {
    try {
      return Files.exists(logFile) ? Files.size(logFile) : 0;
    } catch (IOException e) {
      return 0;
    }
  }

  /** The log written after byte {@code offset}, i.e. by the latest launch. */
  private String logSince(long offset) {
    try {
      byte[] all = Files.readAllBytes(logFile);
      int from = offset <= all.length ? (int) offset : 0;
      return new String(all, from, all.length - from, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return log();
    }
  }

  private static boolean isClusterEnabled(List<String> args) {
    for (int i = 0; i + 1 < args.size(); i++) {
      if (args.get(i).equals("--cluster-enabled") && args.get(i + 1).equalsIgnoreCase("yes")) {
        return true;
      }
    }
    return false;
  }

  /** A free port; in cluster mode one whose bus port (port + 10000) is free as well. */
  private static int freePort(boolean cluster) {
    for (int i = 0; i < 100; i++) {
      int candidate;
      try (ServerSocket socket = new ServerSocket(0)) {
        candidate = socket.getLocalPort();
      } catch (IOException e) {
        throw new UncheckedIOException("cannot pick a free port", e);
      }
      if (!cluster) {
        return candidate;
      }
      if (candidate + CLUSTER_BUS_OFFSET <= 65_535 && isFree(candidate + CLUSTER_BUS_OFFSET)) {
        return candidate;
      }
    }
    throw new IllegalStateException(
        "no free port pair (port, port + " + CLUSTER_BUS_OFFSET + ") found");
  }

  private static boolean isFree(int port) {
    try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getByName(HOST))) {
      return socket.getLocalPort() == port;
    } catch (IOException e) {
      return false;
    }
  }

  private static Path writeConfig(Path dir, String config) {
    Path file = dir.resolve("redis.conf");
    try {
      Files.writeString(file, config, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file, e);
    }
    return file;
  }

  private static Path createTempDir() {
    try {
      return Files.createTempDirectory("redis-test-");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a temp directory", e);
    }
  }

  /** Shutdown hook: SIGKILLs every server not closed yet (SIGKILL also ends stopped processes). */
  private static void killAllLive() {
    for (RedisServer server : LIVE) {
      Process p = server.process;
      if (p != null) {
        p.destroyForcibly();
      }
    }
    for (RedisServer server : LIVE) {
      Process p = server.process;
      if (p != null) {
        ProcessSupport.waitFor(p, Duration.ofSeconds(2));
      }
      ProcessSupport.deleteTreeQuietly(server.dir);
    }
  }
}
