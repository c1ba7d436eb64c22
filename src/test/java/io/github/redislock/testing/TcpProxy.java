package io.github.redislock.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A small TCP proxy on a free loopback port in front of a local port, to inject network faults
 * (this machine has no {@code tc netem}): delay, stall and cut connections.
 *
 * <p>Each accepted connection opens its own connection to the target and gets two daemon pump
 * threads (one per direction) named {@code test-proxy-PORT-...}; the accept thread is {@code
 * test-proxy-PORT-accept}. {@link #close()} ends them all. Instances are thread-safe.
 *
 * <pre>{@code
 * try (RedisServer redis = RedisServer.start(); TcpProxy proxy = TcpProxy.start(redis.port())) {
 *     // point the client at proxy.uri()
 *     proxy.stall();   // bytes stop flowing, connections stay open: clients time out
 *     proxy.unstall();
 *     proxy.cutAll();  // every open connection is reset
 *     proxy.blackHole(port); // one connection goes silent for good, unnoticed by its client
 * }
 * }</pre>
 */
public final class TcpProxy implements AutoCloseable {
  /**
   * How many connections may wait to be accepted: redis-server's default ({@code tcp-backlog 511}).
   * Java's default of 50 overflowed when every client reconnected at once (after a CLIENT KILL of
   * all), and the connections it dropped failed to connect, which a real server would have taken.
   */
  private static final int BACKLOG = 511;

  /** Prefix of the name of every thread the proxy starts. */
  public static final String THREAD_NAME_PREFIX = "test-proxy-";

  private static final String HOST = "127.0.0.1";
  private static final int BUFFER_SIZE = 16 * 1024;
  private static final int CONNECT_TIMEOUT_MILLIS = 2_000;

  private final int targetPort;
  private final ServerSocket serverSocket;
  private final Thread acceptor;
  private final Set<Connection> connections = ConcurrentHashMap.newKeySet();
  private final AtomicInteger connectionIds = new AtomicInteger();

  /**
   * Guards {@link #delayNanos}, {@link #stalled}, {@link #repliesStalled} and the per-connection
   * closed flags; pumps wait on it.
   */
  private final Object lock = new Object();

  private long delayNanos;
  private boolean stalled;
  private boolean repliesStalled;
  private volatile boolean closed;

  private TcpProxy(int targetPort, ServerSocket serverSocket) {
    this.targetPort = targetPort;
    this.serverSocket = serverSocket;
    this.acceptor =
        new Thread(this::acceptLoop, THREAD_NAME_PREFIX + serverSocket.getLocalPort() + "-accept");
    this.acceptor.setDaemon(true);
  }

  /**
   * Starts a proxy on a free port of {@code 127.0.0.1} forwarding to {@code 127.0.0.1:targetPort}.
   *
   * @param targetPort the port to forward to
   * @return the running proxy; close it
   */
  public static TcpProxy start(int targetPort) {
    ServerSocket socket;
    try {
      socket = new ServerSocket(0, BACKLOG, InetAddress.getByName(HOST));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open a proxy port", e);
    }
    TcpProxy proxy = new TcpProxy(targetPort, socket);
    proxy.acceptor.start();
    return proxy;
  }

  /**
   * The port clients connect to.
   *
   * @return the proxy's local port
   */
  public int port() {
    return serverSocket.getLocalPort();
  }

  /**
   * The port the proxy forwards to.
   *
   * @return the target port
   */
  public int targetPort() {
    return targetPort;
  }

  /**
   * The proxy's address as a Redis URI.
   *
   * @return {@code "redis://127.0.0.1:PORT"}
   */
  public String uri() {
    return "redis://" + HOST + ":" + port();
  }

  /**
   * Delays every chunk of bytes forwarded, in both directions, by at least {@code delay} after the
   * proxy read it. Applies to open and new connections; {@link Duration#ZERO} turns it off.
   *
   * @param delay the added latency per direction (a round trip gets twice as much)
   */
  public void setDelay(Duration delay) {
    if (delay.isNegative()) {
      throw new IllegalArgumentException("negative delay: " + delay);
    }
    synchronized (lock) {
      delayNanos = delay.toNanos();
      lock.notifyAll();
    }
  }

  /**
   * Stops forwarding bytes in both directions, keeping every connection open (new connections are
   * still accepted). Clients see a silent network and time out. Undo with {@link #unstall()}.
   */
  public void stall() {
    synchronized (lock) {
      stalled = true;
    }
  }

  /**
   * Stops forwarding bytes from the target back to clients only: requests still reach the server
   * and run, their replies are held (a lost reply, once {@link #cutAll()} follows). Undo with
   * {@link #unstall()}.
   */
  public void stallReplies() {
    synchronized (lock) {
      repliesStalled = true;
    }
  }

  /**
   * Stops forwarding bytes, in both directions, on the connections open now only: they stay open
   * and silent, while connections opened afterwards work normally. A client that gives up on one of
   * them and reconnects gets through at once, while what it sent on the old one is held back (a
   * delayed packet). Undo with {@link #unstall()}, which delivers the held bytes.
   */
  public void holdOpenConnections() {
    synchronized (lock) {
      for (Connection c : connections) {
        c.held = true;
      }
    }
  }

  /**
   * Resumes forwarding after {@link #stall()}, {@link #stallReplies()} or {@link
   * #holdOpenConnections()}; held bytes are delivered.
   */
  public void unstall() {
    synchronized (lock) {
      stalled = false;
      repliesStalled = false;
      for (Connection c : connections) {
        c.held = false;
      }
      lock.notifyAll();
    }
  }

  /**
   * Closes every current connection abruptly (the client side gets a TCP reset); the proxy keeps
   * accepting new ones.
   */
  public void cutAll() {
    for (Connection c : new ArrayList<>(connections)) {
      c.close();
    }
  }

  /**
   * Black-holes one connection, as a partition the client cannot notice: the one whose server side
   * uses local port {@code serverSidePort} (the port Redis shows in {@code CLIENT LIST}'s {@code
   * addr}). The server's side is closed (the server forgets that client); the client's side stays
   * open, and what the client sends is dropped, so it waits for replies forever unless it gives up
   * by itself. Other and new connections are unaffected; {@link #close()} ends it.
   *
   * @param serverSidePort the local port of the proxy's connection to the server
   * @return whether such a connection was open
   */
  public boolean blackHole(int serverSidePort) {
    for (Connection c : connections) {
      if (c.upstream.getLocalPort() == serverSidePort) {
        synchronized (lock) {
          c.blackHoled = true;
          lock.notifyAll();
        }
        closeQuietly(c.upstream);
        return true;
      }
    }
    return false;
  }

  /**
   * Whether the connection whose server side uses local port {@code serverSidePort} is still open:
   * a {@linkplain #blackHole black-holed} one stays open until its client closes it.
   *
   * @param serverSidePort the local port of the proxy's connection to the server
   * @return whether it is open
   */
  public boolean isOpen(int serverSidePort) {
    for (Connection c : connections) {
      if (c.upstream.getLocalPort() == serverSidePort) {
        return true;
      }
    }
    return false;
  }

  /**
   * The number of connections the proxy has opened to its target so far, closed ones included.
   *
   * @return the count
   */
  public int connectionsOpened() {
    return connectionIds.get();
  }

  /**
   * The number of connections currently open through the proxy.
   *
   * @return the count
   */
  public int connectionCount() {
    return connections.size();
  }

  /**
   * Stops accepting, closes every connection and waits (bounded) for the proxy threads to end.
   * Idempotent.
   */
  @Override
  public void close() {
    closed = true;
    try {
      serverSocket.close();
    } catch (IOException e) {
      // Closing anyway.
    }
    List<Thread> threads = new ArrayList<>();
    threads.add(acceptor);
    for (Connection c : new ArrayList<>(connections)) {
      threads.addAll(c.pumps);
      c.close();
    }
    synchronized (lock) {
      lock.notifyAll();
    }
    long deadline = System.nanoTime() + Timing.CLEAN_UP.toNanos();
    for (Thread t : threads) {
      long remainingMillis = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
      if (t == Thread.currentThread() || remainingMillis <= 0) {
        continue;
      }
      try {
        t.join(remainingMillis);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  @Override
  public String toString() {
    return "TcpProxy[" + HOST + ":" + port() + " -> " + targetPort + "]";
  }

  private void acceptLoop() {
    while (!closed) {
      Socket client;
      try {
        client = serverSocket.accept();
      } catch (IOException e) {
        return; // server socket closed
      }
      Socket upstream = new Socket();
      try {
        client.setTcpNoDelay(true);
        upstream.setTcpNoDelay(true);
        upstream.connect(new InetSocketAddress(HOST, targetPort), CONNECT_TIMEOUT_MILLIS);
      } catch (IOException e) {
        closeQuietly(upstream);
        closeQuietly(client); // the target is down: the client sees its connection closed
        continue;
      }
      Connection c = new Connection(connectionIds.incrementAndGet(), client, upstream);
      connections.add(c);
      if (closed) {
        c.close();
        return;
      }
      c.start();
    }
  }

  /**
   * Waits until a chunk read at {@code readAt} may be forwarded; false if the connection is gone.
   */
  private boolean awaitForwardable(Connection c, long readAt, boolean reply) {
    synchronized (lock) {
      while (true) {
        if (c.closed || closed) {
          return false;
        }
        boolean held = stalled || (reply && repliesStalled) || c.held;
        long remaining = readAt + delayNanos - System.nanoTime();
        if (!held && remaining <= 0) {
          return true;
        }
        try {
          if (held) {
            lock.wait();
          } else {
            TimeUnit.NANOSECONDS.timedWait(lock, remaining);
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return false;
        }
      }
    }
  }

  private static void closeQuietly(Socket s) {
    try {
      s.close();
    } catch (IOException e) {
      // Nothing more to do.
    }
  }

  /** One proxied connection: the client's socket, the upstream socket and two pump threads. */
  private final class Connection {
    private final Socket client;
    private final Socket upstream;
    private final List<Thread> pumps;
    private boolean closed; // guarded by lock
    private boolean blackHoled; // guarded by lock
    private boolean held; // guarded by lock

    Connection(int id, Socket client, Socket upstream) {
      this.client = client;
      this.upstream = upstream;
      String prefix = THREAD_NAME_PREFIX + port() + "-c" + id;
      this.pumps =
          List.of(
              pumpThread(prefix + "-up", client, upstream, false),
              pumpThread(prefix + "-down", upstream, client, true));
    }

    void start() {
      pumps.forEach(Thread::start);
    }

    private Thread pumpThread(String name, Socket from, Socket to, boolean replies) {
      Thread t = new Thread(() -> pump(from, to, replies), name);
      t.setDaemon(true);
      return t;
    }

    private void pump(Socket from, Socket to, boolean replies) {
      byte[] buffer = new byte[BUFFER_SIZE];
      try {
        InputStream in = from.getInputStream();
        OutputStream out = to.getOutputStream();
        while (true) {
          int n = in.read(buffer);
          if (n < 0) {
            return; // end of stream: finally closes both sides
          }
          if (isBlackHoled()) {
            continue; // dropped
          }
          if (!awaitForwardable(this, System.nanoTime(), replies)) {
            return;
          }
          out.write(buffer, 0, n);
          out.flush();
        }
      } catch (IOException e) {
        // Cut, reset or closed: close both sides below.
      } finally {
        if (!(replies && isBlackHoled())) {
          close(); // a black-holed client's side stays open until the client closes it
        }
      }
    }

    private boolean isBlackHoled() {
      synchronized (lock) {
        return blackHoled;
      }
    }

    void close() {
      synchronized (lock) {
        if (closed) {
          return;
        }
        closed = true;
        lock.notifyAll();
      }
      connections.remove(this);
      try {
        client.setSoLinger(true, 0); // reset rather than an orderly close
      } catch (IOException e) {
        // Already closed.
      }
      closeQuietly(client);
      closeQuietly(upstream);
    }
  }
}
