package io.github.redislock.internal.transport;

import redis.clients.jedis.exceptions.JedisException;

/**
 * A client's failure at one request, with how far the request got, for a caller that must know
 * whether it may have run: it certainly did not (no connection could be had, or the server answered
 * with an error instead of running it), or it was sent and its reply lost (it may have run). Also
 * the server it went to, when known. It wraps the client's exception and repeats its message.
 */
public final class SendFailure extends JedisException {
  private static final long serialVersionUID = 1L;

  private final boolean mayHaveRun;
  private final String server;

  private SendFailure(JedisException cause, boolean mayHaveRun, String server) {
    super(cause.getMessage(), cause);
    this.mayHaveRun = mayHaveRun;
    this.server = server;
  }

  /**
   * The request certainly did not run.
   *
   * @param cause the client's exception
   * @param server the server that answered, {@code host:port}; {@code null} when none was reached
   * @return the failure
   */
  public static SendFailure notRun(JedisException cause, String server) {
    return new SendFailure(cause, false, server);
  }

  /**
   * The request was sent and its reply lost: it may have run.
   *
   * @param cause the client's exception
   * @param server the server it was sent to, {@code host:port}
   * @return the failure
   */
  public static SendFailure mayHaveRun(JedisException cause, String server) {
    return new SendFailure(cause, true, server);
  }

  /**
   * Whether the request may have run.
   *
   * @return {@code false} when it certainly did not
   */
  public boolean mayHaveRun() {
    return mayHaveRun;
  }

  /**
   * The server the request was sent to, or that refused it.
   *
   * @return {@code host:port}, or {@code null} when no server was reached
   */
  public String server() {
    return server;
  }
}
