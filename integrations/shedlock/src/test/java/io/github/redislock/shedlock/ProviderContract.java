package io.github.redislock.shedlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.redislock.RedisLockFactory;
import java.time.Duration;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.test.support.AbstractExtensibleLockProviderIntegrationTest;
import net.javacrumbs.shedlock.test.support.FuzzTester;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * ShedLock's own test suite for lock providers, unmodified ({@link
 * AbstractExtensibleLockProviderIntegrationTest}, which runs its {@link FuzzTester} too), on a
 * deployment a subclass starts in its {@code @BeforeAll} with {@link #startOn}; and the fuzz test
 * again with every attempt made by one of two factories in turn, as by two nodes. The factories
 * have a key prefix and the provider a name prefix, so the key of ShedLock's lock {@code name} is
 * {@code KEY_PREFIX + NAME_PREFIX + name}.
 *
 * <p>After the last test the factories and the servers are closed, and no thread started during the
 * class may be left, but the pool {@link FuzzTester} never shuts down.
 */
abstract class ProviderContract extends AbstractExtensibleLockProviderIntegrationTest {
  static final String KEY_PREFIX = "shedlock-test:";
  static final String NAME_PREFIX = "jobs:";

  /**
   * Threads that are neither the factories' nor the servers' clients': the pool {@link FuzzTester}
   * never shuts down, Awaitility's (this check's own), the JDK's reaper of ended processes.
   */
  private static final Pattern NOT_OURS =
      Pattern.compile("pool-\\d+-thread-\\d+|awaitility.*|process reaper");

  private static Set<Thread> threadsBefore;
  private static Deployment deployment;
  private static RedisLockFactory factory;
  private static RedisLockFactory otherNode;
  private static RedisLockProvider provider;

  /** Starts the deployment and a factory of each node on it. */
  static void startOn(Supplier<Deployment> start) {
    threadsBefore = new HashSet<>(Thread.getAllStackTraces().keySet());
    deployment = start.get();
    factory = deployment.builder().keyPrefix(KEY_PREFIX).build();
    otherNode = deployment.builder().keyPrefix(KEY_PREFIX).build();
    provider = new RedisLockProvider(factory, NAME_PREFIX);
  }

  @AfterAll
  static void stopAndLeaveNothingBehind() {
    try {
      closeAll(otherNode, factory, deployment);
    } finally {
      otherNode = null;
      factory = null;
      deployment = null;
      provider = null;
    }
    await("the threads of the factories ended")
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () ->
                assertThat(Thread.getAllStackTraces().keySet())
                    .filteredOn(Thread::isAlive)
                    .filteredOn(t -> !threadsBefore.contains(t))
                    .filteredOn(t -> !NOT_OURS.matcher(t.getName()).matches())
                    .extracting(Thread::getName)
                    .isEmpty());
  }

  private static void closeAll(AutoCloseable... resources) {
    RuntimeException failure = null;
    for (AutoCloseable resource : resources) {
      try {
        if (resource != null) {
          resource.close();
        }
      } catch (Exception e) {
        if (failure == null) {
          failure = new IllegalStateException("closing " + resource + " failed", e);
        } else {
          failure.addSuppressed(e);
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
  }

  @Override
  protected ExtensibleLockProvider getLockProvider() {
    return provider;
  }

  @Override
  protected void assertLocked(String lockName) {
    assertThat(deployment.copiesOf(KEY_PREFIX + NAME_PREFIX + lockName))
        .as("copies of the lock key of %s on %s", lockName, deployment)
        .isGreaterThanOrEqualTo(deployment.quorum());
  }

  @Override
  protected void assertUnlocked(String lockName) {
    assertThat(deployment.copiesOf(KEY_PREFIX + NAME_PREFIX + lockName))
        .as("copies of the lock key of %s on %s", lockName, deployment)
        .isZero();
  }

  @Test
  void fuzzTestPassesWithTwoNodes() throws ExecutionException, InterruptedException {
    LockProvider[] nodes = {provider, new RedisLockProvider(otherNode, NAME_PREFIX)};
    AtomicInteger attempts = new AtomicInteger();
    LockProvider eachInTurn =
        new LockProvider() {
          @Override
          public Optional<SimpleLock> lock(LockConfiguration configuration) {
            return nodes[attempts.getAndIncrement() % 2].lock(configuration);
          }
        };

    new FuzzTester(eachInTurn).doFuzzTest();
  }
}
