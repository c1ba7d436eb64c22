package io.github.redislock.bench;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.List;
import java.util.concurrent.locks.Lock;

/**
 * The library as built from the baseline commit ({@link Baseline}), built as {@link OursUnderTest}
 * builds the current one: {@code RedisLockFactory.builder().standalone(uri).build()}, one lock per
 * name. Its classes come from another class loader, so it is driven through reflection; the locks
 * it returns are plain {@link Lock}s, called directly.
 */
final class BaselineUnderTest implements LockUnderTest {
  private static final String FACTORY = "io.github.redislock.RedisLockFactory";

  private final AutoCloseable factory;
  private final Method getLock;

  private BaselineUnderTest(Object factory) {
    this.factory = (AutoCloseable) factory;
    try {
      this.getLock = factory.getClass().getMethod("getLock", String.class);
    } catch (NoSuchMethodException e) {
      throw new IllegalStateException("the baseline's factory has no getLock(String)", e);
    }
  }

  /** On one node: {@code builder().standalone(uri).build()}. */
  static BaselineUnderTest standalone(ClassLoader loader, String uri) {
    Object builder = builder(loader);
    call(builder, "standalone", new Class<?>[] {String.class}, uri);
    return new BaselineUnderTest(call(builder, "build", new Class<?>[0]));
  }

  /**
   * Redlock over independent masters: {@code builder().redlock(uris...).build()}.
   *
   * @throws UnsupportedOperationException if the baseline does not implement Redlock
   */
  static BaselineUnderTest redlock(ClassLoader loader, List<String> uris) {
    Object builder = builder(loader);
    call(builder, "redlock", new Class<?>[] {String[].class}, (Object) uris.toArray(String[]::new));
    return new BaselineUnderTest(call(builder, "build", new Class<?>[0]));
  }

  @Override
  public Lock newLock(String name) {
    return (Lock) invoke(getLock, factory, name);
  }

  @Override
  public void close() {
    try {
      factory.close();
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException("closing the baseline's factory failed", e);
    }
  }

  private static Object builder(ClassLoader loader) {
    try {
      Class<?> type = Class.forName(FACTORY, true, loader);
      return invoke(type.getMethod("builder"), null);
    } catch (ClassNotFoundException | NoSuchMethodException e) {
      throw new IllegalStateException("the baseline has no " + FACTORY + ".builder()", e);
    }
  }

  /** Calls a builder method; the builder returns itself, so the result is ignored but for build. */
  private static Object call(Object target, String method, Class<?>[] types, Object... args) {
    try {
      return invoke(target.getClass().getMethod(method, types), target, args);
    } catch (NoSuchMethodException e) {
      throw new UnsupportedOperationException("the baseline's builder has no " + method, e);
    }
  }

  /** Invokes {@code method}, rethrowing what it threw as it was. */
  private static Object invoke(Method method, Object target, Object... args) {
    try {
      return method.invoke(target, args);
    } catch (InvocationTargetException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      if (e.getCause() instanceof Error err) {
        throw err;
      }
      throw new IllegalStateException(method + " failed", e.getCause());
    } catch (IllegalAccessException e) {
      throw new IllegalStateException("cannot call " + method, e);
    }
  }
}
