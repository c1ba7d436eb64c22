package io.github.redislock.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.redislock.RedisDistributedLock;
import io.github.redislock.RedisLockException;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Assertions about every kind of acquisition at once: {@code tryLock()}, a long timed {@code
 * tryLock}, {@code lock()} and {@code lockInterruptibly()}, each run by {@link Bounded} so that one
 * that retries forever fails the test instead of hanging it.
 */
public final class LockCalls {
  private LockCalls() {}

  /**
   * Every kind of acquisition throws a {@link RedisLockException} whose message, or a cause's,
   * names {@code problem}; {@code lock()} and {@code lockInterruptibly()} too, rather than retry.
   *
   * @param lock the lock
   * @param problem what the messages must name (ignoring case)
   */
  public static void everyCallThrows(RedisDistributedLock lock, String problem) {
    everyCallThrows(lock, problem, 0);
  }

  /**
   * As {@link #everyCallThrows(RedisDistributedLock, String)}, where the first {@code unnamed}
   * calls may fail for a reason that does not name the problem yet (a connection made in the
   * background that has not failed within the wait, for example).
   *
   * @param lock the lock
   * @param problem what the messages must name (ignoring case)
   * @param unnamed how many of the first calls need not name it
   */
  public static void everyCallThrows(RedisDistributedLock lock, String problem, int unnamed) {
    List<Bounded.Call> calls =
        List.of(
            lock::tryLock,
            () -> lock.tryLock(1, TimeUnit.MINUTES),
            lock::lock,
            lock::lockInterruptibly);
    List<String> names =
        List.of("tryLock()", "tryLock(1, MINUTES)", "lock()", "lockInterruptibly()");
    for (int i = 0; i < calls.size(); i++) {
      Throwable thrown = Bounded.thrownBy(names.get(i), calls.get(i));
      assertThat(thrown).as(names.get(i)).isInstanceOf(RedisLockException.class);
      if (i >= unnamed) {
        assertThat(messages(thrown)).as(names.get(i)).containsIgnoringCase(problem);
      }
    }
    assertThat(lock.isHeldByCurrentThread()).isFalse();
  }

  /**
   * The messages of {@code failure} and of its causes, joined.
   *
   * @param failure the failure
   * @return the messages, separated by {@code " | "}
   */
  public static String messages(Throwable failure) {
    StringBuilder all = new StringBuilder();
    for (Throwable t = failure; t != null; t = t.getCause()) {
      all.append(t.getMessage()).append(" | ");
    }
    return all.toString();
  }
}
