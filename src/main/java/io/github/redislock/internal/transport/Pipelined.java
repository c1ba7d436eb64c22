package io.github.redislock.internal.transport;

import io.github.redislock.internal.util.Ticker;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Connection;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.exceptions.JedisNoScriptException;

/**
 * The pipelined transport: one command to every node from the calling thread, without a thread per
 * node. The command is written and flushed on one pooled connection per node, then the replies are
 * read in turn, each bounded by what is left of the deadline. The nodes work in parallel, so a call
 * costs about the slowest node's round trip (at most the deadline), and no thread is woken. A node
 * that does not answer in time has its connection discarded, so that its late reply cannot be read
 * by anyone.
 *
 * <p>It needs each node's connection pool ({@link RedisClient#getPool()}) and Jedis's {@code
 * Connection.flush()}, which Jedis keeps protected; where either is missing, use {@link FanOut}.
 */
public final class Pipelined implements Transport {
  private static final Logger log = LoggerFactory.getLogger(Pipelined.class);
  private static final MethodHandle FLUSH = flushHandle();

  private final List<Node> nodes;
  private final Ticker ticker;

  /**
   * A transport to {@code nodes}, which must be {@linkplain #supports supported}.
   *
   * @param nodes the nodes
   * @param ticker the clock of every deadline
   */
  public Pipelined(List<Node> nodes, Ticker ticker) {
    if (!supports(nodes)) {
      throw new IllegalArgumentException("pipelining needs a RedisClient per node");
    }
    this.nodes = List.copyOf(nodes);
    this.ticker = ticker;
  }

  /**
   * Whether every node's client can be driven this way.
   *
   * @param nodes the nodes
   * @return whether Jedis's flush is accessible and every client is a {@link RedisClient}
   */
  public static boolean supports(List<Node> nodes) {
    return FLUSH != null && nodes.stream().allMatch(node -> node.client() instanceof RedisClient);
  }

  /**
   * {@inheritDoc}
   *
   * <p>Here the call returns when every node has answered, failed, or run out of time: the round is
   * complete. A node whose script cache was flushed answers through {@link Request#call}.
   */
  @Override
  public <T> Round<T> send(Request<T> request, long deadlineNanos) {
    int n = nodes.size();
    CommandArguments command = request.command();
    Connection[] connections = new Connection[n];
    Object[] replies = new Object[n];
    RuntimeException[] failures = new RuntimeException[n];
    for (int i = 0; i < n; i++) {
      try {
        connections[i] = ((RedisClient) nodes.get(i).client()).getPool().getResource();
        connections[i].sendCommand(command);
        FLUSH.invoke(connections[i]);
      } catch (JedisException e) {
        failures[i] = request.failure(e);
        closeQuietly(connections[i], true);
        connections[i] = null;
      } catch (Throwable e) {
        failures[i] = new IllegalStateException("cannot flush a Jedis connection", e);
        closeQuietly(connections[i], true);
        connections[i] = null;
      }
    }
    for (int i = 0; i < n; i++) {
      Connection connection = connections[i];
      if (connection == null) {
        continue;
      }
      // Past the deadline (a slow node was read first), replies that have arrived already are
      // still taken: the others' work went on in parallel.
      long left = deadlineNanos - ticker.read();
      int configured = connection.getSoTimeout();
      boolean broken = false;
      try {
        connection.setSoTimeout((int) Math.max(1, left / 1_000_000));
        replies[i] = request.parse(connection.getOne());
      } catch (JedisNoScriptException e) {
        try {
          replies[i] = request.call(nodes.get(i).client());
        } catch (RuntimeException again) {
          failures[i] = again;
        }
      } catch (JedisException e) {
        broken = connection.isBroken();
        failures[i] = request.failure(e);
      } catch (RuntimeException e) {
        broken = true;
        failures[i] = e;
      } finally {
        if (!broken && !connection.isBroken()) {
          connection.setSoTimeout(configured);
        }
        closeQuietly(connection, broken);
      }
    }
    return new Round<>(nodes, ticker, deadlineNanos, replies, failures);
  }

  private static void closeQuietly(Connection connection, boolean broken) {
    if (connection == null) {
      return;
    }
    try {
      if (broken) {
        connection.setBroken();
      }
      connection.close();
    } catch (RuntimeException e) {
      log.debug("closing a Redlock connection failed", e);
    }
  }

  private static MethodHandle flushHandle() {
    try {
      MethodHandles.Lookup lookup =
          MethodHandles.privateLookupIn(Connection.class, MethodHandles.lookup());
      return lookup.findVirtual(Connection.class, "flush", MethodType.methodType(void.class));
    } catch (ReflectiveOperationException | RuntimeException e) {
      log.debug("Jedis's Connection.flush() is not accessible; Redlock uses threads", e);
      return null;
    }
  }
}
