package io.github.redislock.testing;

import java.lang.reflect.Method;
import java.util.concurrent.ThreadFactory;

/**
 * Virtual threads, where the JVM running the tests has them (Java 21 or later). The tests compile
 * for Java 17, so they reach {@code Thread.ofVirtual()} by reflection; on Java 17 {@link
 * #available()} is false and the tests that need them are skipped (see {@link OnVirtualThreads}).
 * {@code .ci/run} runs them on the machine's Java 21+ JDK ({@code -Djvm=...}).
 */
public final class VirtualThreads {
  private static final Method OF_VIRTUAL = method(Thread.class, "ofVirtual");
  private static final Method NAME = method(builder(), "name", String.class, long.class);
  private static final Method FACTORY = method(builder(), "factory");

  private VirtualThreads() {}

  /** Whether this JVM has virtual threads. */
  public static boolean available() {
    return OF_VIRTUAL != null && NAME != null && FACTORY != null;
  }

  /**
   * A factory of virtual threads named {@code prefix} followed by a counter.
   *
   * @throws IllegalStateException if this JVM has no virtual threads
   */
  public static ThreadFactory factory(String prefix) {
    if (!available()) {
      throw new IllegalStateException("virtual threads need Java 21 or later");
    }
    try {
      Object builder = NAME.invoke(OF_VIRTUAL.invoke(null), prefix, 0L);
      return (ThreadFactory) FACTORY.invoke(builder);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("cannot make virtual threads", e);
    }
  }

  /** Whether {@code thread} is a virtual thread (false on Java 17). */
  public static boolean isVirtual(Thread thread) {
    try {
      return (boolean) Thread.class.getMethod("isVirtual").invoke(thread);
    } catch (ReflectiveOperationException e) {
      return false;
    }
  }

  /** {@code Thread.Builder.OfVirtual}, or {@code null} before Java 21. */
  private static Class<?> builder() {
    try {
      return Class.forName("java.lang.Thread$Builder$OfVirtual");
    } catch (ClassNotFoundException e) {
      return null;
    }
  }

  private static Method method(Class<?> owner, String name, Class<?>... parameters) {
    if (owner == null) {
      return null;
    }
    try {
      return owner.getMethod(name, parameters);
    } catch (NoSuchMethodException e) {
      return null;
    }
  }
}
