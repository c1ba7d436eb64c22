package io.github.redislock.internal.transport;

import io.github.redislock.internal.jedis.JedisApi;
import java.io.IOException;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Connection;
import redis.clients.jedis.DefaultJedisSocketFactory;
import redis.clients.jedis.JedisSocketFactory;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.PushConsumer;
import redis.clients.jedis.PushConsumerChain;
import redis.clients.jedis.PushMessage;
import redis.clients.jedis.RedisProtocol;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.util.RedisInputStream;
import redis.clients.jedis.util.RedisOutputStream;

/**
 * One connection to one node, driven by the {@link Pipelined} transport without a pool: commands
 * are written and flushed, and replies read, by whoever owns the link. That is the caller that took
 * it from its {@link Endpoint}, or, once a reply is late, a background drainer, which reads the
 * late replies as they come and records each in its round ({@link #owe}). A command that must not
 * overtake a late one is written behind it on the same connection ({@link #appendIfOwing}), so that
 * the node runs it after, never before.
 *
 * <p>The connection is Jedis's own ({@link Connection}, on a {@link DefaultJedisSocketFactory}):
 * its handshake does the credentials, database, client name and protocol, the socket factory the
 * TLS and timeouts, as for the node's client, from the same configuration ({@link Dial}). Then the
 * link reads and writes the socket through streams of its own, Jedis's public {@link
 * RedisInputStream} and {@link RedisOutputStream}, so that a reply can be awaited without consuming
 * it ({@link #awaitReply}, {@link #ready}) and a late reply leaves the connection usable.
 *
 * <p>A RESP3 push frame ({@code >}) is never a reply: it is read and dropped wherever a reply is
 * awaited or read. A connection the link opens has no key tracking (its configuration has no
 * cache), but a push taken for the next reply would shift every reply by one, so none is trusted.
 * Jedis 7 has no push API to read one with ({@link JedisApi#MODERN}): there the link speaks RESP2,
 * in which no push frame exists (Jedis 7 negotiates no protocol unless told to, and the
 * configurations of the links never tell it to); a link that finds itself on RESP3 there refuses to
 * open.
 */
final class Link {
  private static final Logger log = LoggerFactory.getLogger(Link.class);
  private static final byte PUSH = '>';

  private final Connection connection;
  private final Socket socket;
  private final RedisInputStream in;
  private final RedisOutputStream out;
  private final int socketTimeoutMillis;
  private int timeoutMillis;

  /** Guards {@link #owed} and writes while a drainer owns the link. */
  private final ReentrantLock lock = new ReentrantLock();

  /** The late replies a drainer still has to read, in order; empty unless one is late. */
  private final ArrayDeque<Late<?>> owed = new ArrayDeque<>(1);

  private Link(Connection connection, Socket socket, int socketTimeoutMillis) throws IOException {
    this.connection = connection;
    this.socket = socket;
    this.in = new RedisInputStream(socket.getInputStream());
    this.out = new RedisOutputStream(socket.getOutputStream());
    this.socketTimeoutMillis = socketTimeoutMillis;
    this.timeoutMillis = socket.getSoTimeout();
  }

  /**
   * Opens a connection to the node {@code dial} names, handshake included; blocks up to the
   * configuration's connect and socket timeouts.
   *
   * @throws JedisConnectionException when the node cannot be reached, or refuses the handshake
   */
  static Link open(Dial dial) {
    SocketKept sockets =
        new SocketKept(new DefaultJedisSocketFactory(dial.address(), dial.config()));
    Connection connection;
    try {
      connection = new Connection(sockets, dial.config()); // connects, and shakes hands
    } catch (RuntimeException e) {
      sockets.close();
      throw e;
    }
    if (!JedisApi.MODERN && connection.getRedisProtocol() == RedisProtocol.RESP3) {
      connection.close();
      throw new JedisConnectionException(
          "a Redlock connection on RESP3 needs Jedis 8's push API to drop push frames; Jedis "
              + JedisApi.VERSION
              + " has none: configure RESP2");
    }
    try {
      return new Link(connection, sockets.socket, dial.config().getSocketTimeoutMillis());
    } catch (IOException | RuntimeException e) {
      connection.close();
      throw new JedisConnectionException("cannot use a new connection's socket", e);
    }
  }

  /** Jedis's socket factory, keeping the socket it made for the link to use. */
  private static final class SocketKept implements JedisSocketFactory {
    private final JedisSocketFactory sockets;
    private Socket socket;

    SocketKept(JedisSocketFactory sockets) {
      this.sockets = sockets;
    }

    @Override
    public Socket createSocket() {
      socket = sockets.createSocket();
      return socket;
    }

    void close() {
      if (socket != null) {
        try {
          socket.close();
        } catch (IOException e) {
          log.debug("closing a connection that failed its handshake failed", e);
        }
      }
    }
  }

  /**
   * Runs {@code commands} (a backend's {@code SCRIPT LOAD}s) and reads their replies, ignoring
   * error replies; blocks up to the socket timeout per reply.
   *
   * @throws JedisConnectionException when the connection fails
   */
  void greet(List<CommandArguments> commands) {
    commands.forEach(this::write);
    flush();
    for (int i = 0; i < commands.size(); i++) {
      try {
        read(socketTimeoutMillis);
      } catch (JedisDataException e) {
        log.debug("a greeting command failed", e);
      }
    }
  }

  /** Writes {@code command} into the connection's buffer; {@link #flush} sends it. */
  void write(CommandArguments command) {
    Protocol.sendCommand(out, command);
  }

  /** Sends what was written. */
  void flush() {
    try {
      out.flush();
    } catch (IOException e) {
      throw new JedisConnectionException(e);
    }
  }

  /**
   * Waits until a reply starts to arrive, for at most {@code millis} (at least 1), without reading
   * it; push frames that come meanwhile are dropped.
   *
   * @return whether one is arriving; false when the time ran out, and the link is still usable
   * @throws JedisConnectionException when the connection failed
   */
  boolean awaitReply(long millis) {
    timeout(millis);
    try {
      while (true) {
        in.peek((byte) 0); // blocks until a byte has come
        if (!in.peek(PUSH)) {
          return true;
        }
        dropPush();
      }
    } catch (JedisConnectionException e) {
      if (e.getCause() instanceof SocketTimeoutException) {
        return false;
      }
      throw e;
    }
  }

  /**
   * Whether a reply has started to arrive, without waiting; push frames that have come are dropped.
   *
   * @throws JedisConnectionException when the connection failed
   */
  boolean ready() {
    try {
      while (in.available() > 0) {
        if (!in.peek(PUSH)) {
          return true;
        }
        dropPush();
      }
      return false;
    } catch (IOException e) {
      throw new JedisConnectionException(e);
    }
  }

  /**
   * Reads one reply, which has started to arrive ({@link #awaitReply}, {@link #ready}), skipping
   * push frames.
   *
   * @param restMillis how long the rest of the reply may take to come
   * @throws JedisDataException for an error reply: the link stays usable
   * @throws JedisConnectionException when the connection failed, or the rest of the reply did not
   *     come in time: the link is not usable any more
   */
  Object read(long restMillis) {
    timeout(restMillis);
    return JedisApi.MODERN ? Pushes.readReply(in) : readResp2(in);
  }

  /**
   * Reads a reply on Jedis 7, whose connections here speak RESP2. Deprecated in Jedis 8 for the
   * push-aware read, which Jedis 7 lacks.
   */
  @SuppressWarnings("deprecation")
  private Object readResp2(RedisInputStream in) {
    return Protocol.read(in);
  }

  /** Reads the push frame that has started to arrive, and drops it. */
  private void dropPush() {
    Object push = JedisApi.MODERN ? Pushes.readPush(in) : readResp2(in);
    if (log.isDebugEnabled()) {
      log.debug("dropped a push frame on a Redlock connection: {}", describe(push));
    }
  }

  private static String describe(Object push) {
    return push instanceof List<?> list && !list.isEmpty() && list.get(0) instanceof byte[] type
        ? new String(type, StandardCharsets.UTF_8)
        : String.valueOf(push);
  }

  /** Sets the socket timeout of the next reads (Java keeps it: no system call). */
  private void timeout(long millis) {
    int timeout = (int) Math.max(1, Math.min(millis, Integer.MAX_VALUE));
    if (timeout != timeoutMillis) {
      try {
        socket.setSoTimeout(timeout);
      } catch (SocketException e) {
        throw new JedisConnectionException(e);
      }
      timeoutMillis = timeout;
    }
  }

  /** Notes a late reply for the drainer; the link is stuck until every owed reply is read. */
  void owe(Late<?> late) {
    lock.lock();
    try {
      owed.add(late);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Writes {@code command} behind the late replies this link still owes, for the drainer to read
   * its reply too.
   *
   * @return false when the link owes nothing any more (its late replies came): the caller may use
   *     any connection
   */
  boolean appendIfOwing(CommandArguments command, Late<?> late) {
    lock.lock();
    try {
      if (owed.isEmpty()) {
        return false;
      }
      owed.add(late);
      try {
        write(command);
        flush();
      } catch (JedisConnectionException e) {
        close(); // the drainer sees the failure and fails every owed reply, this one included
      }
      return true;
    } finally {
      lock.unlock();
    }
  }

  /** The first owed reply, or {@code null} when none is owed (the link is free again). */
  Late<?> nextOwed() {
    lock.lock();
    try {
      return owed.peek();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Records the first owed reply, an error, and removes it. A script the node had forgotten is run
   * again through the node's client only when nothing is written behind it on this link (no later
   * request can then overtake the retry: appending waits for it); else it fails.
   */
  void paidWithError(Late<?> first, JedisDataException e) {
    lock.lock();
    try {
      if (owed.size() == 1) {
        first.error(e);
      } else {
        first.refuse(e);
      }
      owed.poll();
    } finally {
      lock.unlock();
    }
  }

  /** Removes the first owed reply, once read. */
  void paid() {
    lock.lock();
    try {
      owed.poll();
    } finally {
      lock.unlock();
    }
  }

  /** Removes and returns every owed reply, for the caller to fail. */
  List<Late<?>> takeOwed() {
    lock.lock();
    try {
      List<Late<?>> all = List.copyOf(owed);
      owed.clear();
      return all;
    } finally {
      lock.unlock();
    }
  }

  /** Closes the connection at once; a thread reading it gets an exception. */
  void close() {
    try {
      connection.forceDisconnect();
    } catch (IOException | RuntimeException e) {
      log.debug("closing a Redlock connection failed", e);
    }
  }

  /**
   * A chain of push consumers that hands every push on as a reply, or drops every one. Jedis 8's
   * push API: loaded only when {@link JedisApi#MODERN}.
   */
  private record Pushes(boolean keep) implements PushConsumerChain {
    /** Reads a push frame as a reply, to drop it. */
    private static final PushConsumerChain KEEP_PUSHES = new Pushes(true);

    /** Drops every push frame, and reads on to the reply. */
    private static final PushConsumerChain DROP_PUSHES = new Pushes(false);

    static Object readReply(RedisInputStream in) {
      return Protocol.read(in, DROP_PUSHES);
    }

    static Object readPush(RedisInputStream in) {
      return Protocol.read(in, KEEP_PUSHES);
    }

    @Override
    public PushMessage process(PushMessage message) {
      return keep ? message : null;
    }

    @Override
    public List<PushConsumer> getConsumers() {
      return List.of();
    }
  }

  /** Whole milliseconds, rounded up, at least 1: the resolution of socket timeouts. */
  static long millis(long nanos) {
    return Math.max(1, (nanos + 999_999) / 1_000_000);
  }
}
