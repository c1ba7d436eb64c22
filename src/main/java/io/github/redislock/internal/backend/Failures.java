package io.github.redislock.internal.backend;

import io.github.redislock.internal.transport.SendFailure;
import redis.clients.jedis.exceptions.JedisBusyException;
import redis.clients.jedis.exceptions.JedisClusterOperationException;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.exceptions.JedisRedirectionException;

/** Sorts Redis failures into those worth retrying and those that will not go away by waiting. */
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

  /** A failure of ours that waiting may cure: a slow majority, too many nodes unanswering. */
  public static final class TransientFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public TransientFailure(String message) {
      super(message, null, false, false);
    }
  }
}
