package io.github.redislock.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.redislock.RedisDistributedLock;
import io.github.redislock.RedisLockFactory;
import io.github.redislock.testing.IntegrationTest;
import io.github.redislock.testing.RedisInvariants;
import io.github.redislock.testing.RedisServerExtension;
import io.github.redislock.testing.Timing;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@code close()} wakes every thread waiting in a lock call of the factory. */
@IntegrationTest
class CloseTest {
  @RegisterExtension static final RedisServerExtension redis = new RedisServerExtension();
  private final List<RedisLockFactory> factories = new ArrayList<>();
  private ExecutorService threads;
  private String name;

  @BeforeEach
  void setUp(TestInfo info) {
    name = "close:" + info.getTestMethod().orElseThrow().getName();
    threads = Executors.newCachedThreadPool();
  }

  @AfterEach
  void tearDown() throws InterruptedException {
    RedisInvariants.closeAfterTest(redis.server(), threads, factories);
  }

  private RedisLockFactory factory() {
    RedisLockFactory factory = RedisLockFactory.builder().standalone(redis.server().uri()).build();
    factories.add(factory);
    return factory;
  }

  /** How a waiting thread calls the lock. */
  private static boolean call(RedisDistributedLock lock, String how) throws InterruptedException {
    switch (how) {
      case "lock" -> lock.lock();
      case "lockInterruptibly" -> lock.lockInterruptibly();
      case "tryLock" -> {
        return lock.tryLock(1, TimeUnit.HOURS);
      }
      default -> throw new IllegalArgumentException(how);
    }
    return true;
  }

  @ParameterizedTest
  @ValueSource(strings = {"lock", "lockInterruptibly", "tryLock"})
  void aThreadQueuedLocallyBehindAHolderThrowsIllegalStateWhenTheFactoryCloses(String how)
      throws Exception {
    RedisLockFactory factory = factory();
    RedisDistributedLock lock = factory.getLock(name);
    lock.lock();
    Future<Boolean> waiter = threads.submit(() -> call(lock, how));
    await().atMost(Timing.awaitAtMost()).until(() -> lock.getQueueLength() == 1);
    factory.close();
    Throwable failure = null;
    try {
      waiter.get(Timing.PROMPTLY.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      failure = e.getCause();
    }
    assertThat(failure).isInstanceOf(IllegalStateException.class);
    assertThat(lock.getQueueLength()).as("a closed factory's queue, its waiter gone").isZero();
    assertThat(lock.hasQueuedThreads()).isFalse();
  }

  /**
   * Timed {@code tryLock}s wait for attempts that a frozen Redis never answers, some of them still
   * queued behind the others for a background thread, when the factory closes: each throws the
   * closed factory's {@link IllegalStateException}, never a {@code RedisLockException} for Redis
   * not answering, whether its attempt was running, queued or dropped by the close.
   */
  @Test
  void timedTryLocksWaitingOnAFrozenRedisThrowIllegalStateWhenTheFactoryCloses() throws Exception {
    int callers = 24;
    RedisLockFactory factory = factory();
    List<Thread> started = new CopyOnWriteArrayList<>();
    ExecutorService callerThreads =
        Executors.newFixedThreadPool(
            callers,
            task -> {
              Thread thread = new Thread(task, "close-test-caller");
              started.add(thread);
              return thread;
            });
    threads.shutdown();
    threads = callerThreads;
    redis.server().pause();
    List<Future<Boolean>> waiters = new ArrayList<>();
    for (int i = 0; i < callers; i++) {
      RedisDistributedLock lock = factory.getLock(name + ":" + i);
      // Within three times the command timeout: the attempt runs on a background thread.
      waiters.add(threads.submit(() -> lock.tryLock(3, TimeUnit.SECONDS)));
    }
    // Each caller waits for its attempt, which runs on a background thread or queues for one.
    await()
        .atMost(Timing.awaitAtMost())
        .until(
            () ->
                started.size() == callers
                    && started.stream().allMatch(t -> t.getState() == Thread.State.TIMED_WAITING));
    factory.close();
    for (Future<Boolean> waiter : waiters) {
      Throwable failure = null;
      try {
        waiter.get(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS);
      } catch (ExecutionException e) {
        failure = e.getCause();
      }
      assertThat(failure).isInstanceOf(IllegalStateException.class);
    }
  }
}
