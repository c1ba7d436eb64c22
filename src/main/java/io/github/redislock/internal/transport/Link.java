package io.github.redislock.internal.transport;

import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.net.SocketTimeoutException;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Connection;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.util.RedisInputStream;
import redis.clients.jedis.util.RedisOutputStream;

/**
 * One connection to one node, driven by the {@link Pipelined} transport without a pool: commands
 * are written and flushed, and replies read, by whoever owns the link. That is the caller that took
 * it from its {@link Endpoint}, or, once a reply is late, a background drainer, which reads the
 * late replies as they come ({@link #owe}) so that the connection can be used again.
 *
 * <p>The connection is made by the client's own factory (its handshake, credentials, TLS and
 * timeouts); its streams are used directly, so that a reply can be awaited without consuming it
 * ({@link #awaitReply}) and a late reply leaves the connection usable.
 */
final class Link {
  private static final Logger log = LoggerFactory.getLogger(Link.class);
  private static final MethodHandle INPUT = getter("inputStream", RedisInputStream.class);
  private static final MethodHandle OUTPUT = getter("outputStream", RedisOutputStream.class);

  private final Connection connection;
  private final RedisInputStream in;
  private final RedisOutputStream out;
  private int timeoutMillis;

  /** The late replies a drainer still has to read; 0 unless one is late. */
  private int owed;

  private Link(Connection connection, RedisInputStream in, RedisOutputStream out) {
    this.connection = connection;
    this.in = in;
    this.out = out;
    this.timeoutMillis = connection.getSoTimeout();
  }

  /** Whether links can be made here: Jedis's connection streams are accessible. */
  static boolean available() {
    return INPUT != null && OUTPUT != null;
  }

  /**
   * Opens a connection with {@code client}'s own factory, handshake included; blocks up to the
   * client's connect and socket timeouts.
   */
  static Link open(RedisClient client) {
    Connection connection;
    try {
      connection = client.getPool().getFactory().makeObject().getObject();
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new JedisConnectionException(e);
    }
    try {
      return new Link(
          connection,
          (RedisInputStream) INPUT.invoke(connection),
          (RedisOutputStream) OUTPUT.invoke(connection));
    } catch (Throwable e) {
      connection.close();
      throw new JedisConnectionException("cannot reach Jedis's connection streams", e);
    }
  }

  /**
   * Runs {@code commands} (a backend's {@code SCRIPT LOAD}s) and reads their replies, ignoring
   * error replies; blocks up to the client's socket timeout per reply.
   *
   * @throws JedisConnectionException when the connection fails
   */
  void greet(List<CommandArguments> commands) {
    if (commands.isEmpty()) {
      return;
    }
    commands.forEach(this::write);
    flush();
    for (int i = 0; i < commands.size(); i++) {
      try {
        read();
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
   * it.
   *
   * @return whether one is arriving; false when the time ran out, and the link is still usable
   * @throws JedisConnectionException when the connection failed
   */
  boolean awaitReply(long millis) {
    int timeout = (int) Math.max(1, Math.min(millis, Integer.MAX_VALUE));
    if (timeout != timeoutMillis) {
      connection.setSoTimeout(timeout);
      timeoutMillis = timeout;
    }
    try {
      in.peek((byte) 0);
      return true;
    } catch (JedisConnectionException e) {
      if (e.getCause() instanceof SocketTimeoutException) {
        return false;
      }
      throw e;
    }
  }

  /**
   * Reads one reply, which has started to arrive ({@link #awaitReply}).
   *
   * @throws JedisDataException for an error reply: the link stays usable
   * @throws JedisConnectionException when the connection failed, or the rest of the reply did not
   *     come in time: the link is not usable any more
   */
  // Deprecated for its default treatment of RESP3 push messages, which it returns as replies; these
  // connections never subscribe nor track keys, so no push comes.
  @SuppressWarnings("deprecation")
  Object read() {
    return Protocol.read(in);
  }

  /** Notes a late reply for the drainer; the link is stuck until every owed reply is read. */
  void owe() {
    owed++;
  }

  /** Whether a late reply is still to be read. */
  boolean owes() {
    return owed > 0;
  }

  /** Notes that a late reply was read. */
  void paid() {
    owed--;
  }

  /** Closes the connection at once; a thread reading it gets an exception. */
  void close() {
    try {
      connection.forceDisconnect();
    } catch (IOException | RuntimeException e) {
      log.debug("closing a Redlock connection failed", e);
    }
  }

  private static MethodHandle getter(String field, Class<?> type) {
    try {
      MethodHandles.Lookup lookup =
          MethodHandles.privateLookupIn(Connection.class, MethodHandles.lookup());
      return lookup.findGetter(Connection.class, field, type);
    } catch (ReflectiveOperationException | RuntimeException e) {
      log.debug("Jedis's Connection.{} is not accessible; Redlock uses threads", field, e);
      return null;
    }
  }
}
