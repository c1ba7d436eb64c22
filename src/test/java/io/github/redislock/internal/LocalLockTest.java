package io.github.redislock.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.github.redislock.testing.Timing;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The local queue of a name: a reentrant lock whose ownership can be revoked, and closed. */
class LocalLockTest {
  private final Lifecycle lifecycle = new Lifecycle();
  private final LocalLock local = new LocalLock(lifecycle, false);
  private final ExecutorService threads = Executors.newCachedThreadPool();

  @AfterEach
  void stop() throws InterruptedException {
    threads.shutdownNow();
    assertThat(threads.awaitTermination(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS))
        .isTrue();
  }

  @Test
  void countsReentrantHoldsAndGivesThemBackOneByOne() {
    local.lock();
    assertThat(local.reenter()).isTrue();
    assertThat(local.getHoldCount()).isEqualTo(2);
    assertThat(local.unlockOnce()).isTrue();
    assertThat(local.isHeldByCurrentThread()).isTrue();
    assertThat(local.unlockOnce()).isTrue();
    assertThat(local.isHeldByCurrentThread()).isFalse();
    assertThat(local.unlockOnce()).as("not the owner").isFalse();
    assertThat(local.reenter()).as("not the owner").isFalse();
  }

  @Test
  void aThreadThatReleasedNeverSeesItselfOwnerWhileOthersTakeTheLock() throws Exception {
    AtomicInteger inside = new AtomicInteger();
    AtomicInteger wrong = new AtomicInteger();
    List<Future<?>> workers = new ArrayList<>();
    for (int t = 0; t < 4; t++) {
      workers.add(
          threads.submit(
              () -> {
                for (int i = 0; i < 200_000; i++) {
                  local.lock();
                  if (inside.incrementAndGet() != 1 || !local.isHeldByCurrentThread()) {
                    wrong.incrementAndGet();
                  }
                  inside.decrementAndGet();
                  local.unlockOnce();
                  // Right after its release another thread may be taking the lock: this one must
                  // not see itself as its owner in between.
                  if (local.isHeldByCurrentThread() || local.getHoldCount() != 0) {
                    wrong.incrementAndGet();
                  }
                }
                return null;
              }));
    }
    for (Future<?> worker : workers) {
      worker.get();
    }
    assertThat(wrong).hasValue(0);
  }

  @Test
  void aRevocationEndsOneOwnershipAndWakesTheNextWaiter() throws Exception {
    local.lock();
    local.reenter();
    long epoch = local.ownedEpoch();
    Thread owner = Thread.currentThread();
    Future<Boolean> waiter =
        threads.submit(
            () -> {
              local.lock();
              try {
                return local.isHeldByCurrentThread();
              } finally {
                local.unlockOnce();
              }
            });
    await().atMost(Timing.awaitAtMost()).until(local::hasQueuedThreads);
    assertThat(local.ownerOf(epoch)).isSameAs(owner);
    assertThat(local.revoke(epoch)).isTrue();
    assertThat(waiter.get()).isTrue();
    assertThat(local.isHeldByCurrentThread()).isFalse();
    assertThat(local.getHoldCount()).isZero();
    assertThat(local.unlockOnce()).as("revoked: nothing to give back").isFalse();
    assertThat(local.revoke(epoch)).as("once").isFalse();
  }

  @Test
  void aRevocationNeverTakesALaterOwnership() {
    local.lock();
    long first = local.ownedEpoch();
    local.unlockOnce();
    local.lock(); // a new ownership by the same thread
    assertThat(local.ownerOf(first)).isNull();
    assertThat(local.revoke(first)).isFalse();
    assertThat(local.isHeldByCurrentThread()).isTrue();
    local.unlockAll();
  }

  @Test
  void closingWakesEveryQueuedThreadWithIllegalState() throws Exception {
    local.lock();
    List<Future<?>> waiters = new ArrayList<>();
    for (int t = 0; t < 3; t++) {
      waiters.add(threads.submit(() -> local.lock()));
    }
    await().atMost(Timing.awaitAtMost()).until(() -> local.getQueueLength() == 3);
    lifecycle.close();
    local.wakeQueuedAfterClose();
    for (Future<?> waiter : waiters) {
      assertThatThrownBy(() -> waiter.get(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS))
          .hasCauseInstanceOf(IllegalStateException.class);
    }
    assertThatThrownBy(local::tryLock).isInstanceOf(IllegalStateException.class);
  }
}
