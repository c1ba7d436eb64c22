package io.github.redislock.testing;

import java.lang.reflect.Method;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.InvocationInterceptor;
import org.junit.jupiter.api.extension.ReflectiveInvocationContext;

/**
 * Runs each test method of a class (and of its {@code @Nested} classes) on a virtual thread of its
 * own, so that the lock owners of the tests are virtual threads; the test thread waits for it.
 * Without virtual threads (Java 17) the tests are skipped, saying why. Used by the test classes
 * whose names end in {@code OnVirtualThreadsTest}, which {@code .ci/run} runs on a JDK 21+.
 */
public final class OnVirtualThreads implements InvocationInterceptor {

  @Override
  public void interceptTestMethod(
      Invocation<Void> invocation,
      ReflectiveInvocationContext<Method> invocationContext,
      ExtensionContext extensionContext)
      throws Throwable {
    runOnVirtualThread(invocation);
  }

  @Override
  public void interceptTestTemplateMethod(
      Invocation<Void> invocation,
      ReflectiveInvocationContext<Method> invocationContext,
      ExtensionContext extensionContext)
      throws Throwable {
    runOnVirtualThread(invocation);
  }

  private static void runOnVirtualThread(Invocation<Void> invocation) throws Throwable {
    Assumptions.assumeTrue(
        VirtualThreads.available(),
        "virtual threads need Java 21 or later: .ci/run runs this class on a JDK 21+ (-Djvm=...)");
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Thread test =
        VirtualThreads.factory("test-on-virtual-thread-")
            .newThread(
                () -> {
                  try {
                    invocation.proceed();
                  } catch (Throwable t) {
                    failure.set(t);
                  }
                });
    test.start();
    test.join();
    if (failure.get() != null) {
      throw failure.get();
    }
  }
}
