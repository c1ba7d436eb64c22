package io.github.redislock.test;

import io.github.redislock.RedisLockFactory;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ExtensionContext.Namespace;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * A throwaway {@code redis-server} for the tests of a class ({@link ThrowawayRedis}: started before
 * the first test, killed after the last), and a {@link RedisLockFactory} on it for each test that
 * asks for one.
 *
 * <p>Register it on a static field, or with {@code @ExtendWith(RedisLockExtension.class)}:
 *
 * <pre>{@code
 * @RegisterExtension
 * static final RedisLockExtension redis = new RedisLockExtension();
 *
 * @Test
 * void onlyOneWorkerRunsTheJob(RedisLockFactory factory) {      // closed after the test
 *   Lock lock = factory.getLock("nightly-report");
 *   ...
 * }
 *
 * @Test
 * void myOwnFactory(ThrowawayRedis server) {                     // or redis.uri()
 *   try (RedisLockFactory factory =
 *       RedisLockFactory.builder().standalone(server.uri()).keyPrefix("app:").build()) { ... }
 * }
 * }</pre>
 *
 * A test method (or constructor, or lifecycle method) may declare parameters of type {@link
 * ThrowawayRedis} and {@link RedisLockFactory}. Each factory a test gets is built by {@link
 * #factory()} (the settings given to {@link #withSettings} applied) and closed when the test ends,
 * so a lock it left held is released and no thread of the library is left behind.
 */
public final class RedisLockExtension
    implements BeforeAllCallback, AfterAllCallback, ParameterResolver {
  private static final Namespace NAMESPACE = Namespace.create(RedisLockExtension.class);

  private final UnaryOperator<RedisLockFactory.Builder> settings;
  private volatile ThrowawayRedis server;

  /** Factories with the default settings. */
  public RedisLockExtension() {
    this(UnaryOperator.identity());
  }

  private RedisLockExtension(UnaryOperator<RedisLockFactory.Builder> settings) {
    this.settings = settings;
  }

  /**
   * An extension whose factories get {@code settings} (a lease, a key prefix, a lost-lock
   * listener...) on top of {@code standalone(uri)}.
   *
   * @param settings applied to each factory's builder
   * @return the extension
   */
  public static RedisLockExtension withSettings(UnaryOperator<RedisLockFactory.Builder> settings) {
    if (settings == null) {
      throw new NullPointerException("settings");
    }
    return new RedisLockExtension(settings);
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    if (server == null) {
      server = ThrowawayRedis.start();
    }
  }

  @Override
  public void afterAll(ExtensionContext context) {
    ThrowawayRedis running = server;
    server = null;
    if (running != null) {
      running.close();
    }
  }

  /**
   * The server of the running test class.
   *
   * @return the server
   * @throws IllegalStateException outside the tests of the class
   */
  public ThrowawayRedis server() {
    ThrowawayRedis running = server;
    if (running == null) {
      throw new IllegalStateException("the server runs only between beforeAll and afterAll");
    }
    return running;
  }

  /**
   * The server's URI.
   *
   * @return {@code redis://127.0.0.1:port}
   */
  public String uri() {
    return server().uri();
  }

  /**
   * A new factory on the server, with this extension's settings; the caller closes it (those handed
   * to test parameters are closed by the extension).
   *
   * @return the factory
   */
  public RedisLockFactory factory() {
    return settings.apply(RedisLockFactory.builder().standalone(uri())).build();
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    Class<?> type = parameter.getParameter().getType();
    return type == ThrowawayRedis.class || type == RedisLockFactory.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    Class<?> type = parameter.getParameter().getType();
    if (type == ThrowawayRedis.class) {
      return server();
    }
    if (type == RedisLockFactory.class) {
      RedisLockFactory factory = factory();
      // Stored in the test's own context, which closes what it stores when the test (or the
      // class, for a class-level parameter) ends, whatever it threw (JUnit 5.13 and later).
      context.getStore(NAMESPACE).put(new Object(), factory);
      return factory;
    }
    throw new ParameterResolutionException("not a parameter of RedisLockExtension: " + parameter);
  }
}
