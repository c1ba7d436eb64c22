package io.github.redislock.testing;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import redis.clients.jedis.HostAndPort;

/**
 * A TCP proxy in front of one Redis server that reads the RESP streams it forwards, so that a test
 * can aim a {@link Fault} at one command or its reply: delay either, split the reply into single
 * bytes, put a RESP3 push frame before or after it, lose it in a reset (the command ran), drop the
 * command in a reset (it did not), or black-hole the connection from then on.
 *
 * <pre>{@code
 * try (RedisServer redis = RedisServer.start(); RespProxy proxy = RespProxy.start(redis.port())) {
 *     // point the client at proxy.uri()
 *     proxy.inject(Fault.onScript("release.lua").after(2).delayReply(Duration.ofMillis(400)));
 *     proxy.inject(Fault.onCommand("SET").loseReply());
 * }
 * }</pre>
 *
 * <p>The client-to-server stream is read as commands (RESP arrays, or inline commands), the
 * server-to-client stream as frames (RESP2 and RESP3 replies, {@code >} push frames, {@code |}
 * attributes with the reply they annotate). Each reply that is not a push frame is matched to the
 * oldest command of its connection still unanswered; on a RESP3 connection the subscription
 * commands, answered by push frames, are skipped; on a RESP2 connection that subscribed, replies
 * are no longer matched. A connection that starts replication ({@code PSYNC}, {@code SYNC}) is
 * passed through as bytes from then on. The proxy notes each connection's client name ({@code HELLO
 * ... SETNAME}, {@code CLIENT SETNAME}) and whether it speaks RESP3 (it got a reply of a type only
 * RESP3 has, as {@code HELLO 3} answers), for the faults' aim and for {@link #connections()}.
 *
 * <p>Each connection has two daemon pump threads named {@code test-resp-proxy-PORT-cN-up} and
 * {@code -down}; {@link #close()} ends them all. Instances are thread-safe.
 */
public final class RespProxy implements AutoCloseable {
  /**
   * How many connections may wait to be accepted: redis-server's default ({@code tcp-backlog 511}).
   * Java's default of 50 overflowed when every client reconnected at once (after a CLIENT KILL of
   * all), and the connections it dropped failed to connect, which a real server would have taken.
   */
  private static final int BACKLOG = 511;

  /** Prefix of the name of every thread the proxy starts. */
  public static final String THREAD_NAME_PREFIX = "test-resp-proxy-";

  private static final String HOST = "127.0.0.1";
  private static final int CONNECT_TIMEOUT_MILLIS = 2_000;
  private static final int COPY_BUFFER = 16 * 1024;
  private static final long PIECE_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
  private static final String RESP3_TYPES = "%~_#,(=";
  private static final Set<String> SUBSCRIBING =
      Set.of(
          "SUBSCRIBE", "PSUBSCRIBE", "SSUBSCRIBE", "UNSUBSCRIBE", "PUNSUBSCRIBE", "SUNSUBSCRIBE");

  private final String label;
  private final int targetPort;
  private final ServerSocket serverSocket;
  private final Thread acceptor;
  private final Set<Pipe> pipes = ConcurrentHashMap.newKeySet();
  private final Set<Integer> serverSidePorts = ConcurrentHashMap.newKeySet();
  private final AtomicInteger pipeIds = new AtomicInteger();
  private final List<Fault> faults = new CopyOnWriteArrayList<>();
  private final AtomicInteger held = new AtomicInteger();
  private final Map<String, Map<String, LongAdder>> seen = new ConcurrentHashMap<>();

  /** Delays and pauses between pieces wait on it; closing wakes them. */
  private final Object waits = new Object();

  private volatile boolean closed;

  private RespProxy(String label, int targetPort, ServerSocket serverSocket) {
    this.label = label;
    this.targetPort = targetPort;
    this.serverSocket = serverSocket;
    this.acceptor =
        new Thread(this::acceptLoop, THREAD_NAME_PREFIX + serverSocket.getLocalPort() + "-accept");
    this.acceptor.setDaemon(true);
  }

  /**
   * Starts a proxy on a free port of {@code 127.0.0.1} forwarding to {@code 127.0.0.1:targetPort}.
   *
   * @param targetPort the Redis server's port
   * @return the running proxy; close it
   */
  public static RespProxy start(int targetPort) {
    return start("proxy:" + targetPort, targetPort);
  }

  /**
   * Like {@link #start(int)}, with a label that names the proxy in the faults' records (such as
   * {@code "master-2"}).
   *
   * @param label the name
   * @param targetPort the Redis server's port
   * @return the running proxy; close it
   */
  public static RespProxy start(String label, int targetPort) {
    ServerSocket socket;
    try {
      socket = new ServerSocket(0, BACKLOG, InetAddress.getByName(HOST));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open a proxy port", e);
    }
    RespProxy proxy = new RespProxy(label, targetPort, socket);
    proxy.acceptor.start();
    return proxy;
  }

  /**
   * The proxy's label.
   *
   * @return the name given at the start
   */
  public String label() {
    return label;
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
   * @return the server's port
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
   * The proxy's address.
   *
   * @return {@code 127.0.0.1:PORT}
   */
  public HostAndPort address() {
    return new HostAndPort(HOST, port());
  }

  /**
   * Starts injecting {@code fault} on every connection, open or new, until it is removed. One fault
   * may be injected into several proxies: it then counts matches over all of them.
   *
   * @param fault the fault, with its action set
   * @throws IllegalStateException if the fault has no action
   */
  public void inject(Fault fault) {
    fault.checkComplete();
    faults.add(fault);
  }

  /**
   * Stops injecting {@code fault}; replies it already holds back are still delivered as it said.
   *
   * @param fault a fault injected before
   */
  public void remove(Fault fault) {
    faults.remove(fault);
  }

  /** Stops injecting every fault. */
  public void clearFaults() {
    faults.clear();
  }

  /**
   * Whether nothing is being held back right now: no delayed command, no delayed reply, no reply
   * being sent piece by piece.
   *
   * @return true when everything that came was forwarded, dropped or reset
   */
  public boolean isQuiet() {
    return held.get() == 0;
  }

  /**
   * The number of connections accepted so far, closed ones included.
   *
   * @return the count
   */
  public int connectionsOpened() {
    return pipeIds.get();
  }

  /** One open connection through the proxy, as the proxy sees it. */
  public record ConnectionInfo(
      int id,
      String clientName,
      boolean resp3,
      int serverSidePort,
      boolean replication,
      boolean blackHoled,
      int commands,
      String lastCommand) {}

  /**
   * The connections open now, black-holed ones included until their client closes them.
   *
   * @return a snapshot, one entry per connection
   */
  public List<ConnectionInfo> connections() {
    List<ConnectionInfo> open = new ArrayList<>();
    for (Pipe p : pipes) {
      open.add(p.info());
    }
    return open;
  }

  /**
   * The local ports of the proxy's connections to the server, the ports the server shows for them
   * ({@code addr} in {@code CLIENT LIST}): of every connection the proxy opened, including those
   * closed since or being opened now.
   *
   * @return the ports
   */
  public Set<Integer> serverSidePorts() {
    return Set.copyOf(serverSidePorts);
  }

  /**
   * How many commands of each label ({@code "SET"}, {@code "EVALSHA release.lua"}, ...: see {@link
   * Fault#on(String)}) the proxy has seen on connections whose client name starts with {@code
   * clientPrefix}, replication excepted.
   *
   * @param clientPrefix the start of the client name; empty for every connection, named or not
   * @return the counts by label, sorted by label
   */
  public Map<String, Long> commandsSeen(String clientPrefix) {
    Map<String, Long> counts = new TreeMap<>();
    seen.forEach(
        (client, labels) -> {
          if (client.startsWith(clientPrefix)) {
            labels.forEach((label, n) -> counts.merge(label, n.sum(), Long::sum));
          }
        });
    return counts;
  }

  /** Resets every open connection; the proxy keeps accepting new ones. */
  public void cutAll() {
    for (Pipe p : new ArrayList<>(pipes)) {
      p.close();
    }
  }

  /** Stops accepting, closes every connection and waits (bounded) for its threads. Idempotent. */
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
    for (Pipe p : new ArrayList<>(pipes)) {
      threads.add(p.up);
      threads.add(p.down);
      p.close();
    }
    synchronized (waits) {
      waits.notifyAll();
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
    return "RespProxy[" + label + " " + HOST + ":" + port() + " -> " + targetPort + "]";
  }

  private void acceptLoop() {
    while (!closed) {
      Socket client;
      try {
        client = serverSocket.accept();
      } catch (IOException e) {
        return; // closed
      }
      Socket upstream = new Socket();
      try {
        client.setTcpNoDelay(true);
        upstream.setTcpNoDelay(true);
        upstream.bind(new InetSocketAddress(HOST, 0));
        serverSidePorts.add(upstream.getLocalPort()); // before the server can list it
        upstream.connect(new InetSocketAddress(HOST, targetPort), CONNECT_TIMEOUT_MILLIS);
      } catch (IOException e) {
        closeQuietly(upstream);
        closeQuietly(client); // the server is down: the client sees its connection closed
        continue;
      }
      Pipe p = new Pipe(pipeIds.incrementAndGet(), client, upstream);
      pipes.add(p);
      if (closed) {
        p.close();
        return;
      }
      p.up.start();
      p.down.start();
    }
  }

  /** The first injected fault that hits {@code c} on {@code p}, counted as a hit; or null. */
  private Fault faultFor(RespCommand c, Pipe p) {
    for (Fault f : faults) {
      if (f.hits(c, label, p.id, p.clientName, p.resp3, p.subscribed)) {
        return f;
      }
    }
    return null;
  }

  /** Waits {@code nanos} unless {@code p} or the proxy closes first; false if it did. */
  private boolean pause(Pipe p, long nanos) {
    long deadline = System.nanoTime() + nanos;
    synchronized (waits) {
      while (!closed && !p.closed) {
        long remaining = deadline - System.nanoTime();
        if (remaining <= 0) {
          return true;
        }
        try {
          TimeUnit.NANOSECONDS.timedWait(waits, remaining);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return false;
        }
      }
      return false;
    }
  }

  private static void closeQuietly(Socket s) {
    try {
      s.close();
    } catch (IOException e) {
      // Nothing more to do.
    }
  }

  /** A command still waiting for its reply, and what to do with that reply. */
  private record Pending(Fault fault, boolean answeredByPush, boolean subscribe, boolean sync) {}

  /** One proxied connection: the client's socket, the server's, and a pump thread for each way. */
  private final class Pipe {
    private final int id;
    private final Socket client;
    private final Socket upstream;
    private final Thread up;
    private final Thread down;

    /** Commands sent and not answered yet, oldest first; guarded by this. */
    private final ArrayDeque<Pending> pending = new ArrayDeque<>();

    private volatile String clientName;
    private final AtomicInteger commands = new AtomicInteger();
    private volatile String lastCommand;
    private volatile boolean resp3;
    private volatile boolean subscribed; // a RESP2 connection that subscribed: replies unmatched
    private volatile boolean replication;
    private volatile boolean swallowing; // client bytes dropped: a black hole after the reply
    private volatile boolean blackHoled;
    private volatile boolean closed;

    Pipe(int id, Socket client, Socket upstream) {
      this.id = id;
      this.client = client;
      this.upstream = upstream;
      String prefix = THREAD_NAME_PREFIX + port() + "-c" + id;
      this.up = daemon(prefix + "-up", this::pumpCommands);
      this.down = daemon(prefix + "-down", this::pumpReplies);
    }

    ConnectionInfo info() {
      return new ConnectionInfo(
          id,
          clientName,
          resp3,
          upstream.getLocalPort(),
          replication,
          blackHoled,
          commands.get(),
          lastCommand);
    }

    private Thread daemon(String name, Runnable body) {
      Thread t = new Thread(body, name);
      t.setDaemon(true);
      return t;
    }

    /** Client to server: one command at a time, each checked against the faults. */
    private void pumpCommands() {
      try {
        RespReader reader = new RespReader(new BufferedInputStream(client.getInputStream()));
        OutputStream out = new BufferedOutputStream(upstream.getOutputStream());
        while (true) {
          RespCommand c = reader.readCommand();
          if (c == null) {
            return;
          }
          if (blackHoled || swallowing) {
            continue; // dropped
          }
          if (replication) {
            forward(out, c.bytes(), reader);
            continue;
          }
          notice(c);
          commands.incrementAndGet();
          lastCommand = c.describe();
          seen.computeIfAbsent(clientName == null ? "" : clientName, k -> new ConcurrentHashMap<>())
              .computeIfAbsent(c.label(), k -> new LongAdder())
              .increment();
          Fault fault = faultFor(c, this);
          Fault.Action action = fault == null ? null : fault.action();
          if (action == Fault.Action.RESET_BEFORE_COMMAND) {
            close();
            return;
          }
          if (action == Fault.Action.BLACK_HOLE_BEFORE_COMMAND) {
            blackHole();
            continue;
          }
          String name = c.name();
          boolean subscribing = SUBSCRIBING.contains(name);
          boolean sync = name.equals("PSYNC") || name.equals("SYNC");
          if (subscribing && !resp3) {
            subscribed = true;
          }
          Fault onReply = action != null && action.onReply() ? fault : null;
          synchronized (this) {
            pending.add(new Pending(onReply, subscribing && resp3, subscribing && !resp3, sync));
          }
          if (sync) {
            replication = true;
          }
          if (action == Fault.Action.DELAY_COMMAND) {
            out.flush();
            held.incrementAndGet();
            try {
              if (!pause(this, fault.delay().toNanos())) {
                return;
              }
            } finally {
              held.decrementAndGet();
            }
          }
          if (action == Fault.Action.BLACK_HOLE_AFTER_COMMAND) {
            swallowing = true;
            out.write(c.bytes());
            out.flush();
            continue;
          }
          forward(out, c.bytes(), reader);
        }
      } catch (IOException e) {
        // Reset, closed or not RESP: closed below.
      } finally {
        if (blackHoled) {
          closeClientSide(); // the client closed its silent connection
        } else {
          close();
        }
      }
    }

    /** Server to client: one frame at a time, each reply matched to its command. */
    private void pumpReplies() {
      try {
        RespReader reader = new RespReader(new BufferedInputStream(upstream.getInputStream()));
        OutputStream out = new BufferedOutputStream(client.getOutputStream());
        boolean unmatched = false;
        while (true) {
          RespReader.Frame frame = reader.readFrame();
          if (frame == null) {
            return;
          }
          if (blackHoled) {
            continue;
          }
          if (frame.isPush() || frame.type() == '\n') {
            forward(out, frame.bytes(), reader);
            continue;
          }
          Pending p = unmatched ? null : nextPending();
          if (p != null && p.subscribe()) {
            unmatched = true; // RESP2 subscribed: replies can no longer be matched
          }
          if (p != null && p.sync()) {
            out.write(frame.bytes());
            out.flush();
            copy(reader.stream(), out); // the replication stream, as bytes
            return;
          }
          if (RESP3_TYPES.indexOf(frame.type()) >= 0) {
            resp3 = true; // HELLO 3 answers with a map, a type RESP2 does not have
          }
          Fault fault = p == null ? null : p.fault();
          if (fault == null) {
            forward(out, frame.bytes(), reader);
          } else if (!apply(fault, frame.bytes(), out)) {
            return;
          }
        }
      } catch (IOException e) {
        // Reset, closed or not RESP: closed below.
      } finally {
        if (!blackHoled) {
          close();
        }
      }
    }

    /** Applies a reply fault; false when the connection is gone. */
    private boolean apply(Fault fault, byte[] reply, OutputStream out) throws IOException {
      switch (fault.action()) {
        case DELAY_REPLY -> {
          out.flush();
          held.incrementAndGet();
          try {
            if (!pause(this, fault.delay().toNanos())) {
              return false;
            }
            out.write(reply);
            out.flush();
          } finally {
            held.decrementAndGet();
          }
        }
        case SPLIT_REPLY -> {
          out.flush();
          held.incrementAndGet();
          try {
            int piece = fault.pieceSize();
            for (int i = 0; i < reply.length; i += piece) {
              out.write(reply, i, Math.min(piece, reply.length - i));
              out.flush();
              if (i + piece < reply.length && !pause(this, PIECE_PAUSE_NANOS)) {
                return false;
              }
            }
          } finally {
            held.decrementAndGet();
          }
        }
        case PUSH_BEFORE_REPLY -> {
          out.write(fault.pushFrame());
          out.write(reply);
          out.flush();
        }
        case PUSH_AFTER_REPLY -> {
          out.write(reply);
          out.write(fault.pushFrame());
          out.flush();
        }
        case LOSE_REPLY -> {
          close();
          return false;
        }
        case BLACK_HOLE_AFTER_COMMAND -> blackHole();
        case DELAY_COMMAND, RESET_BEFORE_COMMAND, BLACK_HOLE_BEFORE_COMMAND ->
            throw new IllegalStateException("not a reply fault: " + fault);
      }
      return true;
    }

    /** Notes the client name a command sets. */
    private void notice(RespCommand c) {
      String name = c.name();
      if (name.equals("HELLO")) {
        for (int i = 2; i + 1 < c.args().size(); i++) {
          if (c.argumentIs(i, "SETNAME")) {
            clientName = c.text(i + 1);
          }
        }
      } else if (name.equals("CLIENT") && c.argumentIs(1, "SETNAME") && c.args().size() > 2) {
        clientName = c.text(2);
      }
    }

    private synchronized Pending nextPending() {
      while (true) {
        Pending p = pending.poll();
        if (p == null || !p.answeredByPush()) {
          return p;
        }
      }
    }

    private void forward(OutputStream out, byte[] bytes, RespReader reader) throws IOException {
      out.write(bytes);
      if (!reader.hasBuffered()) {
        out.flush();
      }
    }

    private void copy(InputStream in, OutputStream out) throws IOException {
      byte[] buffer = new byte[COPY_BUFFER];
      while (true) {
        int n = in.read(buffer);
        if (n < 0) {
          return;
        }
        out.write(buffer, 0, n);
        if (in.available() == 0) {
          out.flush();
        }
      }
    }

    /** Drops everything from now on; the server's side closes, the client's stays open. */
    private void blackHole() {
      blackHoled = true;
      closeQuietly(upstream);
    }

    private void closeClientSide() {
      closed = true;
      pipes.remove(this);
      closeQuietly(client);
      wakeWaits();
    }

    /** Resets both sides. Idempotent. */
    void close() {
      if (closed) {
        return;
      }
      closed = true;
      pipes.remove(this);
      try {
        client.setSoLinger(true, 0); // a reset rather than an orderly close
      } catch (IOException e) {
        // Already closed.
      }
      closeQuietly(client);
      closeQuietly(upstream);
      wakeWaits();
    }

    private void wakeWaits() {
      synchronized (waits) {
        waits.notifyAll();
      }
    }
  }
}
