package io.github.redislock.internal.transport;

import io.github.redislock.RedisLockException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.List;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Connection;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.exceptions.JedisNoScriptException;

/**
 * One command to every Redlock master from the calling thread, without a thread per master: the
 * command is written and flushed on one pooled connection per master, then the replies are read in
 * turn, each bounded by what is left of the deadline. The masters work in parallel, so the call
 * costs about the slowest master's round trip (at most the deadline), and no thread is woken. A
 * master that does not answer in time has its connection discarded, so that its late reply cannot
 * be read by anyone.
 *
 * <p>It needs each master's connection pool ({@link RedisClient#getPool()}) and Jedis's {@code
 * Connection.flush()}, which Jedis keeps protected; where either is missing, Redlock fans out on
 * threads instead.
 */
public final class Pipelined {
  private static final Logger log = LoggerFactory.getLogger(Pipelined.class);
  private static final MethodHandle FLUSH = flushHandle();

  private Pipelined() {}

  /** Whether every client can be driven this way. */
  public static boolean supports(List<? extends UnifiedJedis> clients) {
    return FLUSH != null && clients.stream().allMatch(RedisClient.class::isInstance);
  }

  /**
   * Sends {@code command(node)} to every node, and reads each reply with {@code parse} until the
   * deadline. A node whose script cache was flushed answers through {@code fallback}.
   */
  public static <T> FanOut<Node, T> ask(
      List<Node> nodes,
      String operation,
      String lockKey,
      Function<Node, CommandArguments> command,
      Function<Object, T> parse,
      Function<Node, T> fallback,
      long deadlineNanos) {
    int n = nodes.size();
    Connection[] connections = new Connection[n];
    Object[] replies = new Object[n];
    RuntimeException[] failures = new RuntimeException[n];
    for (int i = 0; i < n; i++) {
      try {
        connections[i] = ((RedisClient) nodes.get(i).client()).getPool().getResource();
        connections[i].sendCommand(command.apply(nodes.get(i)));
        FLUSH.invoke(connections[i]);
      } catch (JedisException e) {
        failures[i] = failure(operation, lockKey, e);
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
      // Past the deadline (a slow master was read first), replies that have arrived already are
      // still taken: the others' work went on in parallel.
      long left = deadlineNanos - System.nanoTime();
      int configured = connection.getSoTimeout();
      boolean broken = false;
      try {
        connection.setSoTimeout((int) Math.max(1, left / 1_000_000));
        replies[i] = parse.apply(connection.getOne());
      } catch (JedisNoScriptException e) {
        try {
          replies[i] = fallback.apply(nodes.get(i));
        } catch (RuntimeException again) {
          failures[i] = again;
        }
      } catch (JedisException e) {
        broken = connection.isBroken();
        failures[i] = failure(operation, lockKey, e);
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
    return FanOut.completed(nodes, replies, failures);
  }

  private static RedisLockException failure(String operation, String lockKey, JedisException e) {
    return new RedisLockException(
        "Redis failed to " + operation + " lock key '" + lockKey + "': " + e.getMessage(), e);
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
      log.debug("Jedis's Connection.flush() is not accessible; Redlock fans out on threads", e);
      return null;
    }
  }
}
