package io.github.redislock.internal.backend;

import io.github.redislock.internal.transport.SendFailure;
import redis.clients.jedis.exceptions.JedisBusyException;
import redis.clients.jedis.exceptions.JedisClusterOperationException;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.exceptions.JedisRedirectionException;

/**
 * Sorts Redis failures into those worth retrying and those that will not go away by waiting, and
 * tells, where the transport knows, whether a failed command may have run.
 */
public final class Failures {
  private Failures() {}

  /**
   * Whether retrying may help: the connection failed or timed out, or the server is loading, busy,
   * read-only after a failover, or its cluster is reconfiguring. A wrong type, a script error or a
   * permission error are permanent.
   */
  public static boolean isTransient(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof TransientFailure) {
        return true;
      }
      if (t instanceof SendFailure) {
        continue; // what it wraps decides
      }
      if (t instanceof JedisConnectionException
          || t instanceof JedisBusyException
          || t instanceof JedisClusterOperationException
          || t instanceof JedisRedirectionException) {
        return true;
      }
      if (t instanceof JedisDataException) {
        String message = String.valueOf(t.getMessage());
        return message.startsWith("LOADING")
            || message.startsWith("READONLY")
            || message.startsWith("CLUSTERDOWN")
            || message.startsWith("TRYAGAIN")
            || message.startsWith("MASTERDOWN")
            || message.startsWith("NOREPLICAS");
      }
      if (t instanceof JedisException) {
        return true; // pool exhaustion and other client-side failures
      }
    }
    return false;
  }

  /**
   * Whether the failed command certainly did not run: no connection could be had, or the server
   * answered with an error instead of running it (connection refused, pool exhausted, {@code
   * READONLY}, {@code LOADING}, {@code MASTERDOWN}...). Only a command sent directly ({@link
   * io.github.redislock.internal.transport.Direct}) knows; for any other, {@code false}: it may
   * have run, its reply lost.
   */
  public static boolean certainlyNotRun(Throwable failure) {
    SendFailure send = sendFailure(failure);
    return send != null && !send.mayHaveRun();
  }

  /**
   * The server a failed command was sent to, {@code host:port}, when the transport knows it.
   *
   * @return the server, or {@code null}
   */
  public static String server(Throwable failure) {
    SendFailure send = sendFailure(failure);
    return send == null ? null : send.server();
  }

  private static SendFailure sendFailure(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof SendFailure send) {
        return send;
      }
    }
    return null;
  }

  /** A failure of ours that waiting may cure: a slow majority, too many nodes unanswering. */
  public static final class TransientFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public TransientFailure(String message) {
      super(message, null, false, false);
    }
  }
}
