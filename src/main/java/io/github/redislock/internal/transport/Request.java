package io.github.redislock.internal.transport;

import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisException;

/**
 * One operation to run on every node of a {@link Transport}, made by the layer that knows the
 * commands and their replies; a transport only moves it. It comes in the two forms a transport may
 * need: the raw command with the parser of its raw reply, for a transport that writes on
 * connections itself, and a call through a node's client, for a transport that hands each node to a
 * thread (and for the rare node that answers the raw command with {@code NOSCRIPT}).
 *
 * @param <T> what one node's reply means to the caller
 */
public interface Request<T> {

  /**
   * The command to write on a node's connection. The same object is written to every node, so it
   * names the same keys and arguments for each.
   *
   * @return the command
   */
  CommandArguments command();

  /**
   * The command to send instead of {@link #command()} to a node that answered it with {@code
   * NOSCRIPT}: the script with its source ({@code EVAL}), which also caches it there again.
   *
   * @return the command, or {@code null} for a request that runs no script
   */
  default CommandArguments commandWithSource() {
    return null;
  }

  /**
   * What a node's reply to {@link #command()} means.
   *
   * @param reply the reply as a connection reads it: a {@code Long}, a {@code byte[]}, a {@code
   *     List} of those, or {@code null}
   * @return the parsed reply
   */
  T parse(Object reply);

  /**
   * Whether {@code reply} shows that this request took effect on the node, whatever an earlier copy
   * of it did there: a release that answers "released" deleted a key that held its token. A copy
   * sent again after a connection failed, when the first may have run, counts as the node's answer
   * only then.
   *
   * @param reply the parsed reply
   * @return true when the reply proves the effect; false by default
   */
  default boolean provesEffect(T reply) {
    return false;
  }

  /**
   * Runs the operation on one node through its client's own API, in the calling thread; a script
   * the node has forgotten is loaded again.
   *
   * @param client the node's client
   * @return the parsed reply
   * @throws RuntimeException the exception {@link #failure} makes, when the client fails
   */
  T call(UnifiedJedis client);

  /**
   * The exception to report when a client fails at this operation.
   *
   * @param e the client's exception
   * @return an exception naming the operation and the lock, with {@code e} as its cause
   */
  RuntimeException failure(JedisException e);
}
