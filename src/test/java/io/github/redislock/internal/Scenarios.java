package io.github.redislock.internal;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.jetbrains.kotlinx.lincheck.Actor;
import org.jetbrains.kotlinx.lincheck.execution.ExecutionScenario;
import org.jetbrains.lincheck.datastructures.Operation;

/**
 * Written Lincheck scenarios, for the races a random scenario rarely holds: Lincheck explores the
 * interleavings of each before its random ones. (Its scenario DSL is for Kotlin; this builds the
 * same scenario objects from Java.)
 */
final class Scenarios {
  private Scenarios() {}

  /** The operation {@code name} of {@code type} (an {@link Operation}) with int arguments. */
  static Actor op(Class<?> type, String name, int... arguments) {
    for (Method method : type.getMethods()) {
      Operation operation = method.getAnnotation(Operation.class);
      if (operation != null
          && method.getName().equals(name)
          && method.getParameterCount() == arguments.length) {
        List<Object> boxed = new ArrayList<>();
        Arrays.stream(arguments).forEach(boxed::add);
        return new Actor(method, boxed, false, operation.blocking(), false, false, false);
      }
    }
    throw new IllegalArgumentException(
        "no operation " + name + " with " + arguments.length + " arguments in " + type.getName());
  }

  /** A scenario of threads started together, each running its operations in order. */
  @SafeVarargs
  static ExecutionScenario parallel(List<Actor>... threads) {
    return new ExecutionScenario(List.of(), List.of(threads), List.of(), null);
  }
}
