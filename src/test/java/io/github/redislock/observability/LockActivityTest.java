package io.github.redislock.observability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.github.redislock.LockActivity;
import io.github.redislock.LockLostException;
import io.github.redislock.RedisDistributedLock;
import io.github.redislock.RedisLockFactory;
import io.github.redislock.RedisReadWriteLock;
import io.github.redislock.testing.IntegrationTest;
import io.github.redislock.testing.RedisInvariants;
import io.github.redislock.testing.RedisServerExtension;
import io.github.redislock.testing.Timing;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code factory.activity()}: each figure of {@link LockActivity}, and the snapshot as a value. */
@IntegrationTest
class LockActivityTest {
  @RegisterExtension static final RedisServerExtension redis = new RedisServerExtension();
  private final List<RedisLockFactory> factories = new ArrayList<>();
  private final ExecutorService threads = Executors.newCachedThreadPool();
  private String name;

  @BeforeEach
  void setUp(TestInfo info) {
    name = "activity:" + info.getTestMethod().orElseThrow().getName();
  }

  @AfterEach
  void tearDown() throws InterruptedException {
    RedisInvariants.closeAfterTest(redis.server(), threads, factories);
  }

  private RedisLockFactory factory(UnaryOperator<RedisLockFactory.Builder> settings) {
    RedisLockFactory factory =
        settings.apply(RedisLockFactory.builder().standalone(redis.server().uri())).build();
    factories.add(factory);
    return factory;
  }

  private RedisLockFactory factory() {
    return factory(b -> b);
  }

  private static <T> T get(Future<T> future) throws Exception {
    return future.get(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS);
  }

  @Test
  void aNewFactoryIsIdle() {
    assertThat(factory().activity()).isEqualTo(LockActivity.of(0, 0, 0, Map.of(), 0, 0));
  }

  @Test
  void renewingHoldCountCountsEachHoldUntilItsUnlock() {
    RedisLockFactory factory = factory();
    RedisDistributedLock lock = factory.getLock(name);
    RedisReadWriteLock rw = factory.getReadWriteLock(name + ":rw");
    lock.lock();
    lock.lock(); // reentrant: the same hold
    rw.readLock().lock();
    assertThat(factory.activity().renewingHoldCount()).isEqualTo(2);
    lock.unlock();
    assertThat(factory.activity().renewingHoldCount()).isEqualTo(2);
    lock.unlock();
    rw.readLock().unlock();
    assertThat(factory.activity().renewingHoldCount()).isZero();
  }

  @Test
  void aNameInUseCountsOnceWhateverKindsAndThreadsUseIt() throws Exception {
    RedisLockFactory factory = factory();
    RedisDistributedLock plain = factory.getLock(name);
    RedisDistributedLock fair = factory.getFairLock(name);
    RedisReadWriteLock rw = factory.getReadWriteLock(name + ":rw");
    plain.lock();
    rw.writeLock().lock();
    rw.readLock().lock(); // a downgrade: the name is written and read
    Future<Boolean> waiter =
        threads.submit(
            () -> {
              fair.lock();
              fair.unlock();
              return true;
            });
    await().atMost(Timing.awaitAtMost()).until(() -> fair.getQueueLength() == 1);
    assertThat(factory.activity().namesInUseCount()).as("the plain and the rw name").isEqualTo(2);
    rw.readLock().unlock();
    rw.writeLock().unlock();
    plain.unlock();
    assertThat(get(waiter)).isTrue();
    assertThat(factory.activity().namesInUseCount()).isZero();
  }

  @Test
  void subscribedChannelCountCountsTheChannelsOfLocksWaitedFor() throws Exception {
    RedisDistributedLock holding = factory().getLock(name);
    RedisLockFactory factory = factory();
    RedisDistributedLock waiting = factory.getLock(name);
    holding.lock();
    Future<Boolean> waiter =
        threads.submit(
            () -> {
              waiting.lock();
              waiting.unlock();
              return true;
            });
    await()
        .atMost(Timing.awaitAtMost())
        .until(() -> factory.activity().subscribedChannelCount() == 1);
    holding.unlock();
    assertThat(get(waiter)).isTrue();
    await()
        .atMost(Timing.awaitAtMost())
        .until(() -> factory.activity().subscribedChannelCount() == 0);
  }

  @Test
  void threadsPerNodeNamesTheNodeOfTheRenewals() {
    RedisLockFactory factory = factory(b -> b.leaseTime(Timing.scaled(Duration.ofMillis(300))));
    RedisDistributedLock lock = factory.getLock(name);
    lock.lock();
    try {
      await().atMost(Timing.awaitAtMost()).until(() -> factory.activity().threadsOf("redis") > 0);
      LockActivity activity = factory.activity();
      assertThat(activity.threadsPerNode()).containsOnlyKeys("redis");
      assertThat(activity.threadsOf("redis"))
          .isEqualTo(activity.threadsPerNode().get("redis"))
          .isLessThanOrEqualTo(RedisLockFactory.MAX_THREADS_PER_NODE);
      assertThat(activity.threadsOf("elsewhere:6379")).isZero();
    } finally {
      lock.unlock();
    }
  }

  @Test
  void turnsGivenCountCountsReleasesThatOtherProcessesWaitedFor() throws Exception {
    RedisLockFactory holder = factory();
    RedisLockFactory other = factory();
    RedisDistributedLock holding = holder.getLock(name);
    RedisDistributedLock waiting = other.getLock(name);
    holding.lock();
    holding.unlock();
    assertThat(holder.activity().turnsGivenCount()).as("nobody waited").isZero();
    holding.lock();
    Future<Boolean> waiter =
        threads.submit(
            () -> {
              waiting.lock();
              waiting.unlock();
              return true;
            });
    await()
        .atMost(Timing.awaitAtMost())
        .until(() -> other.activity().subscribedChannelCount() == 1);
    holding.unlock();
    assertThat(get(waiter)).isTrue();
    assertThat(holder.activity().turnsGivenCount()).isEqualTo(1);
    assertThat(other.activity().turnsGivenCount()).isZero();
  }

  @Test
  void aClosedFactoryShowsNoRenewalsAndKeepsItsCounts() throws Exception {
    RedisLockFactory holder = factory();
    RedisLockFactory other = factory();
    RedisDistributedLock lock = holder.getLock(name);
    lock.lock();
    Future<Boolean> waiter =
        threads.submit(
            () -> {
              other.getLock(name).lock();
              other.getLock(name).unlock();
              return true;
            });
    await()
        .atMost(Timing.awaitAtMost())
        .until(() -> other.activity().subscribedChannelCount() == 1);
    lock.unlock();
    assertThat(get(waiter)).isTrue();
    RedisDistributedLock held = holder.getLock(name + ":held");
    held.lock();
    holder.close();

    LockActivity closed = holder.activity();
    assertThat(closed.renewingHoldCount()).isZero();
    assertThat(closed.namesInUseCount()).as("the hold lost at close").isZero();
    assertThat(closed.turnsGivenCount()).isEqualTo(1);
    assertThatThrownBy(held::unlock).isInstanceOf(LockLostException.class);
  }

  // ---- the snapshot as a value ----

  @Test
  void snapshotsWithTheSameFiguresAreEqual() {
    Map<String, Integer> threads = new HashMap<>(Map.of("b:1", 2, "a:1", 1));
    LockActivity activity = LockActivity.of(1, 2, 3, threads, 4, 5);
    threads.put("c:1", 9); // copied: the snapshot does not change
    assertThat(activity)
        .isEqualTo(LockActivity.of(1, 2, 3, Map.of("a:1", 1, "b:1", 2), 4, 5))
        .hasSameHashCodeAs(LockActivity.of(1, 2, 3, Map.of("a:1", 1, "b:1", 2), 4, 5))
        .isNotEqualTo(LockActivity.of(1, 2, 3, Map.of("a:1", 1), 4, 5))
        .isNotEqualTo(LockActivity.of(1, 2, 3, Map.of("a:1", 1, "b:1", 2), 4, 6));
    assertThat(activity.threadsPerNode()).containsExactly(Map.entry("a:1", 1), Map.entry("b:1", 2));
    assertThat(activity)
        .hasToString(
            "LockActivity{renewingHoldCount=1, namesInUseCount=2, subscribedChannelCount=3,"
                + " threadsPerNode={a:1=1, b:1=2}, turnsGivenCount=4, spuriousWakeUpCount=5}");
  }

  @Test
  void negativeFiguresAreRefused() {
    assertThatThrownBy(() -> LockActivity.of(-1, 0, 0, Map.of(), 0, 0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> LockActivity.of(0, 0, 0, Map.of(), 0, -1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> LockActivity.of(0, 0, 0, Map.of("redis", -1), 0, 0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> LockActivity.of(0, 0, 0, null, 0, 0))
        .isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> LockActivity.of(0, 0, 0, Map.of(), 0, 0).threadsPerNode().put("a", 1))
        .isInstanceOf(UnsupportedOperationException.class);
  }
}
