package io.github.redislock.internal.transport;

import io.github.redislock.internal.jedis.Lender;
import io.github.redislock.internal.jedis.Lenders;
import java.net.SocketTimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.Connection;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisAskDataException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.exceptions.JedisNoScriptException;
import redis.clients.jedis.exceptions.JedisRedirectionException;

/**
 * One request to the node that serves its key, sent at most once: for a request that must not run
 * twice unknowingly (a release: run again after its reply was lost, it finds the key gone and
 * cannot tell that it deleted it). A client's own retries resend a command whose reply timed out
 * without telling the caller, so the request goes, without them, on a connection borrowed from the
 * client's pool for the key's node (see {@link Lender}): the pool of a standalone client, of a
 * Sentinel client's current master, or of the Cluster node that serves the key's slot, following
 * the cluster's {@code MOVED} and {@code ASK} answers here (they say that the command did not run).
 * A script the node has forgotten is sent again with its source.
 *
 * <p>A failure is a {@link SendFailure} telling whether the request may have run: not when no
 * connection could be had, or when the node answered with an error ({@code READONLY}, {@code
 * LOADING}, {@code MASTERDOWN}, ...: refused before running, or, for a script, failed before its
 * first write, which is all a request sent here may do); yes when it was sent and no reply came.
 * Another kind of client is called through its own API, whose failures say nothing of the kind.
 */
public final class Direct {
  private static final Logger log = LoggerFactory.getLogger(Direct.class);

  /** Redirections followed before giving up (each one certainly did not run the command). */
  private static final int MAX_REDIRECTIONS = 5;

  private final UnifiedJedis client;
  private final Lender lender;

  /** Whether the client lends connections; else its own API is called. */
  private final boolean lends;

  /**
   * Requests to the deployment {@code client} reaches.
   *
   * @param client a client of any kind; the three of the class comment are sent to directly
   */
  public Direct(UnifiedJedis client) {
    this.client = client;
    this.lender = Lenders.of(client);
    this.lends = lends(lender, client);
  }

  /**
   * A reply, and the node it came from.
   *
   * @param value the parsed reply
   * @param node the node, or {@code null} when the client's API was called
   */
  public record Reply<T>(T value, HostAndPort node) {
    /**
     * The node that replied, for messages and comparisons.
     *
     * @return {@code host:port}, or {@code null} when unknown
     */
    public String server() {
      return node == null ? null : node.toString();
    }
  }

  /**
   * Sends {@code request}, whose key is {@code key}, at most once.
   *
   * @param request what to ask
   * @param key the key that decides the node
   * @return the reply
   * @throws RuntimeException the exception {@link Request#failure} makes of a {@link SendFailure}
   */
  public <T> Reply<T> send(Request<T> request, String key) {
    if (!lends) {
      return new Reply<>(request.call(client), null);
    }
    JedisRedirectionException redirect = null;
    for (int redirections = 0; ; redirections++) {
      Connection connection;
      try {
        connection = connection(key, redirect);
      } catch (JedisException e) {
        refreshTopology();
        throw request.failure(SendFailure.notRun(e, null));
      }
      HostAndPort node =
          lender.nodeOf(connection, key, redirect == null ? null : redirect.getTargetNode());
      boolean sent = false;
      try {
        if (redirect instanceof JedisAskDataException) {
          connection.executeCommand(Protocol.Command.ASKING);
        }
        sent = true;
        return new Reply<>(request.parse(run(connection, request)), node);
      } catch (JedisRedirectionException e) {
        if (redirections == MAX_REDIRECTIONS) {
          throw request.failure(SendFailure.notRun(e, name(node)));
        }
        redirect = e;
        if (!(e instanceof JedisAskDataException)) {
          refreshTopology();
        }
      } catch (JedisDataException e) {
        throw request.failure(SendFailure.notRun(e, name(node)));
      } catch (JedisException e) {
        if (!timedOut(e)) {
          refreshTopology(); // the node may be gone: the next attempt should find its successor
        }
        String server = name(node);
        throw request.failure(
            sent ? SendFailure.mayHaveRun(e, server) : SendFailure.notRun(e, server));
      } finally {
        closeQuietly(connection);
      }
    }
  }

  /**
   * Gives the connection back; a broken one whose return fails (its server is gone) must not hide
   * the failure the caller is reporting.
   */
  private static void closeQuietly(Connection connection) {
    try {
      connection.close();
    } catch (RuntimeException e) {
      log.debug("could not give a connection back to its pool", e);
    }
  }

  /** Runs the request's command, and its script's source where the node has forgotten it. */
  private static Object run(Connection connection, Request<?> request) {
    try {
      return connection.executeCommand(request.command());
    } catch (JedisNoScriptException e) {
      if (request.commandWithSource() == null) {
        throw e;
      }
      return connection.executeCommand(request.commandWithSource());
    }
  }

  /** A connection to the node for {@code key}, or to the one a redirection named. */
  private Connection connection(String key, JedisRedirectionException redirect) {
    return redirect != null ? lender.borrowFrom(redirect.getTargetNode(), key) : lender.borrow(key);
  }

  private static String name(HostAndPort node) {
    return node == null ? null : node.toString();
  }

  /** After a failure that may come from a change of topology: a cluster learns it again. */
  private void refreshTopology() {
    if (lender.shape() != Lender.Shape.CLUSTER) {
      return;
    }
    try {
      lender.refreshTopology();
    } catch (RuntimeException e) {
      log.debug("could not refresh the cluster's topology", e);
    }
  }

  private static boolean timedOut(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof SocketTimeoutException) {
        return true;
      }
    }
    return false;
  }

  /**
   * Whether {@code client}'s connections can be borrowed. A client built on a connection provider
   * of its own has no pool to lend: its API is used.
   */
  private static boolean lends(Lender lender, UnifiedJedis client) {
    if (lender.lends()) {
      return true;
    }
    if (lender.shape() != Lender.Shape.OTHER) {
      log.debug("{} has a connection provider of its own: calling its API", client);
    }
    return false;
  }
}
