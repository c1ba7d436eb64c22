package io.github.redislock.concurrency;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.redislock.RedisDistributedLock;
import io.github.redislock.RedisLockFactory;
import io.github.redislock.testing.IntegrationTest;
import io.github.redislock.testing.RedisInvariants;
import io.github.redislock.testing.RedisServerExtension;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Two factories on one name stand for two processes: each has its own connections and wake-up
 * subscription, so Redis cannot tell them from two JVMs. Each thread locks again as soon as it has
 * unlocked. A process that releases while the other waits gives it the next turn (with several
 * threads, after a bounded run of local handoffs), so that neither side starves the other.
 */
@IntegrationTest
class ProcessTurnsTest {
  private static final String NAME = "turns";
  @RegisterExtension static final RedisServerExtension redis = new RedisServerExtension();
  private final List<RedisLockFactory> factories = new ArrayList<>();
  private ExecutorService threads;

  @AfterEach
  void tearDown() throws InterruptedException {
    RedisInvariants.closeAfterTest(redis.server(), threads, factories, NAME);
  }

  /** Locks and unlocks a few times alone: connections made and code compiled before the race. */
  private static void warmUp(RedisDistributedLock lock) {
    for (int i = 0; i < 50; i++) {
      lock.lock();
      lock.unlock();
    }
  }

  @ParameterizedTest(name = "{0} thread(s) per process")
  @ValueSource(ints = {1, 4})
  void twoProcessesTakeTurns(int threadsPerProcess) throws Exception {
    int total = 600 * threadsPerProcess;
    AtomicInteger taken = new AtomicInteger();
    AtomicInteger inside = new AtomicInteger();
    AtomicInteger overlaps = new AtomicInteger();
    AtomicIntegerArray shares = new AtomicIntegerArray(2);
    CountDownLatch start = new CountDownLatch(1);
    threads = Executors.newFixedThreadPool(2 * threadsPerProcess);
    List<Future<?>> workers = new ArrayList<>();
    for (int side = 0; side < 2; side++) {
      RedisLockFactory factory =
          RedisLockFactory.builder().standalone(redis.server().uri()).build();
      factories.add(factory);
      warmUp(factory.getLock(NAME));
    }
    for (int thread = 0; thread < 2 * threadsPerProcess; thread++) {
      int me = thread % 2;
      RedisDistributedLock lock = factories.get(me).getLock(NAME);
      workers.add(
          threads.submit(
              () -> {
                start.await();
                while (true) {
                  lock.lock(); // the same thread locks again as soon as it has unlocked
                  try {
                    if (inside.incrementAndGet() != 1) {
                      overlaps.incrementAndGet();
                    }
                    if (taken.incrementAndGet() > total) {
                      return null;
                    }
                    shares.incrementAndGet(me);
                  } finally {
                    inside.decrementAndGet();
                    lock.unlock();
                  }
                }
              }));
    }
    start.countDown();
    for (Future<?> worker : workers) {
      worker.get(2, TimeUnit.MINUTES);
    }
    assertThat(overlaps).hasValue(0);
    for (RedisLockFactory factory : factories) {
      assertThat(factory.activity().turnsGivenCount()).as("turns given").isPositive();
    }
    assertThat(shares.get(0) + shares.get(1)).isEqualTo(total);
    // Turns alternate (the benchmark's 2-JVM scenario gets 41% or more for either side in every
    // round). A side that releases without giving way leaves the other 2 to 10%; a sixth fails
    // that, and leaves room for a slow spell of the machine (a CI run with two test JVMs beside
    // this one gave the smaller side 21% of 2,400 with 4 threads per side).
    assertThat(Math.min(shares.get(0), shares.get(1)))
        .as("the smaller process's acquisitions of " + shares)
        .isGreaterThanOrEqualTo(total / 6);
  }
}
