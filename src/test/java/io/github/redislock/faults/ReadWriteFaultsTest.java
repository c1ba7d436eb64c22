package io.github.redislock.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.github.redislock.LockLostEvent;
import io.github.redislock.LockLostException;
import io.github.redislock.RedisLockFactory;
import io.github.redislock.RedisReadWriteLock;
import io.github.redislock.testing.IntegrationTest;
import io.github.redislock.testing.RedisInvariants;
import io.github.redislock.testing.RedisServerExtension;
import io.github.redislock.testing.Timing;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.Jedis;

/** Read-write locks when the Redis server fails under their holders and waiters. */
@IntegrationTest
class ReadWriteFaultsTest {
  @RegisterExtension static final RedisServerExtension redis = new RedisServerExtension();
  private static final Duration LEASE = Timing.scaled(Duration.ofSeconds(1));

  private final List<RedisLockFactory> factories = new ArrayList<>();
  private final List<LockLostEvent> lost = new CopyOnWriteArrayList<>();
  private ExecutorService threads;
  private String name;

  @BeforeEach
  void setUp(TestInfo info) {
    name = "rw-faults:" + info.getTestMethod().orElseThrow().getName();
    threads = Executors.newCachedThreadPool();
  }

  @AfterEach
  void tearDown() throws InterruptedException {
    RedisInvariants.closeAfterTest(redis.server(), threads, factories, name);
  }

  private RedisReadWriteLock rw() {
    RedisLockFactory factory =
        RedisLockFactory.builder()
            .standalone(redis.server().uri())
            .commandTimeout(Duration.ofMillis(500))
            .leaseTime(LEASE)
            .onLockLost(lost::add)
            .build();
    factories.add(factory);
    return factory.getReadWriteLock(name);
  }

  private boolean aWriterWaits() {
    try (Jedis jedis = redis.server().jedis()) {
      return jedis.exists("{" + name + "}:lock-wi");
    }
  }

  /**
   * A writer holds; two readers and a writer of other factories wait; Redis restarts empty (its
   * keys, intents, shares and script cache gone). The holder learns its hold was lost, and every
   * waiter gets in, readers never beside the writer.
   */
  @Test
  void waitersGetInAfterARestartThatLostTheHolderAndTheirIntents() throws Exception {
    RedisReadWriteLock holder = rw();
    holder.writeLock().lock();
    AtomicInteger readersInside = new AtomicInteger();
    AtomicInteger writersInside = new AtomicInteger();
    AtomicInteger overlaps = new AtomicInteger();
    CountDownLatch started = new CountDownLatch(3);
    List<Future<?>> waiters = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      boolean reader = i < 2;
      Lock lock = reader ? rw().readLock() : rw().writeLock();
      waiters.add(
          threads.submit(
              () -> {
                started.countDown();
                lock.lock();
                try {
                  AtomicInteger mine = reader ? readersInside : writersInside;
                  AtomicInteger others = reader ? writersInside : readersInside;
                  int inside = mine.incrementAndGet();
                  if (others.get() != 0 || (!reader && inside != 1)) {
                    overlaps.incrementAndGet();
                  }
                  Thread.yield();
                  mine.decrementAndGet();
                } finally {
                  lock.unlock();
                }
                return null;
              }));
    }
    assertThat(started.await(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS)).isTrue();
    await().atMost(Timing.awaitAtMost()).until(this::aWriterWaits);

    redis.server().restart();

    for (Future<?> waiter : waiters) {
      waiter.get(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS);
    }
    assertThat(overlaps).hasValue(0);
    await().atMost(Timing.awaitAtMost()).until(() -> !lost.isEmpty());
    assertThat(lost).extracting(LockLostEvent::lockName).containsExactly(name);
    assertThatThrownBy(holder.writeLock()::unlock).isInstanceOf(LockLostException.class);
  }

  /** A reader whose Redis restarted empty loses its share, and is told at its unlock. */
  @Test
  void aReaderLosesItsShareWhenRedisRestartsEmpty() {
    RedisReadWriteLock reader = rw();
    reader.readLock().lock();
    redis.server().restart();
    await().atMost(Timing.awaitAtMost()).until(() -> !lost.isEmpty());
    assertThat(reader.getReadHoldCount()).isZero();
    assertThatThrownBy(reader.readLock()::unlock).isInstanceOf(LockLostException.class);
    RedisReadWriteLock writer = rw();
    assertThat(writer.writeLock().tryLock()).isTrue();
    writer.writeLock().unlock();
  }
}
