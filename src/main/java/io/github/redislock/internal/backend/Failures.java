package io.github.redislock.internal.backend;

import io.github.redislock.internal.transport.SendFailure;
import java.io.IOException;
import java.security.cert.CertificateException;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLPeerUnverifiedException;
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
  /** How the JDK reports a TLS alert the peer sent. */
  private static final String FATAL_ALERT = "Received fatal alert: ";

  private Failures() {}

  /**
   * Whether retrying may help: the connection failed or timed out, or the server is loading, busy,
   * read-only after a failover, or its cluster is reconfiguring. A failure with a {@linkplain
   * #permanentCause permanent cause} is not, whatever wraps it: a wrong password while connecting
   * fails the connection, and no reconnection cures it.
   */
  public static boolean isTransient(Throwable failure) {
    if (permanentCause(failure) != null) {
      return false;
    }
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
        return isTransientReply(t.getMessage());
      }
      if (t instanceof JedisException) {
        return true; // pool exhaustion and other client-side failures
      }
    }
    return false;
  }

  /**
   * The failure among {@code failure} and its causes that no retry can cure, or null: an error
   * reply of the server other than the transient ones ({@code WRONGPASS}, {@code NOAUTH}, {@code
   * NOPERM}, {@code WRONGTYPE}, an unknown command, a database out of range...), even when it came
   * while connecting and a connection failure wraps it; or a TLS handshake that refused the peer (a
   * certificate not trusted, for another host, or missing), as opposed to one the network cut.
   *
   * @param failure the failure
   * @return the permanent cause, or null when waiting may cure the failure
   */
  public static Throwable permanentCause(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof TransientFailure) {
        return null;
      }
      if (t instanceof JedisDataException
          && !(t instanceof JedisBusyException)
          && !(t instanceof JedisRedirectionException)
          && !isTransientReply(t.getMessage())) {
        return t;
      }
      if (t instanceof CertificateException || t instanceof SSLPeerUnverifiedException) {
        return t;
      }
      if (t instanceof SSLHandshakeException && !(t.getCause() instanceof IOException)) {
        return t; // the peer refused us, or we it; an IOException cause is the network's doing
      }
      if (t instanceof SSLException && String.valueOf(t.getMessage()).startsWith(FATAL_ALERT)) {
        return t; // TLS 1.3: a server refuses a client's certificate after the handshake
      }
    }
    return null;
  }

  /** Whether an error reply says the server cannot serve now, but may soon. */
  private static boolean isTransientReply(String reply) {
    String message = String.valueOf(reply);
    return message.startsWith("LOADING")
        || message.startsWith("READONLY")
        || message.startsWith("CLUSTERDOWN")
        || message.startsWith("TRYAGAIN")
        || message.startsWith("MASTERDOWN")
        || message.startsWith("NOREPLICAS")
        || message.startsWith("BUSY")
        || message.startsWith("ERR max number of clients reached");
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
