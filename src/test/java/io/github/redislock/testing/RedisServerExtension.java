package io.github.redislock.testing;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One real {@code redis-server} for all the tests of a class, started before the first and stopped
 * after the last:
 *
 * <pre>{@code
 * @RegisterExtension
 * static final RedisServerExtension redis = new RedisServerExtension();
 * ... redis.server().uri() ...
 * }</pre>
 */
public final class RedisServerExtension implements BeforeAllCallback, AfterAllCallback {
  private RedisServer server;

  @Override
  public void beforeAll(ExtensionContext context) {
    server = RedisServer.start();
  }

  @Override
  public void afterAll(ExtensionContext context) {
    if (server != null) {
      server.close();
      server = null;
    }
  }

  /**
   * The running server.
   *
   * @return the server started for this test class
   */
  public RedisServer server() {
    if (server == null) {
      throw new IllegalStateException("the server runs only between beforeAll and afterAll");
    }
    return server;
  }
}
