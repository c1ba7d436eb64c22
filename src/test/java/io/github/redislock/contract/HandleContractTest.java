package io.github.redislock.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.github.redislock.LockHandle;
import io.github.redislock.LockLostEvent;
import io.github.redislock.LockLostException;
import io.github.redislock.RedisLock;
import io.github.redislock.RedisLockFactory;
import io.github.redislock.testing.Timing;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;

/**
 * The contract of {@link LockHandle}, holds owned by an object rather than a thread, and of the
 * {@code acquireHold} forms of {@link RedisLock} that give them (blocking and asynchronous), as
 * their Javadoc states it: one property per test, for the kind of lock ({@link HoldKind}) and on
 * the deployment a subclass names. Factories of one test stand for processes.
 *
 * <p>For the read lock, whose holds share the lock, "busy" means held by a writer: the lock that
 * keeps a test's acquisition waiting is {@link HoldKind#blockerOf}, the write lock of the name.
 *
 * <p>To keep the matrix fast, only the cases that go through the deployment's wire run on every
 * deployment: a release from another thread, a pending acquisition woken by a release (Pub/Sub,
 * sharded on a Cluster), a cancel before the grant (its entry leaving Redis), a close with pending
 * acquisitions, and a loss found by the renewal. The others (argument checks, the JVM's own queue
 * and exclusion, the race of a cancel with a grant, interrupts, fencing tokens, ...) run where
 * {@link #everyCase()} is true: on the standalone server, for every kind, and on Redlock, for the
 * plain lock (where a release must remove the hold from every master). The Sentinel and Cluster
 * classes run the kinds as {@code @Nested} classes on one deployment each, whose start is most of
 * their time.
 */
public abstract class HandleContractTest extends FormsFixture {

  /** A wait that runs out while the lock stays busy. */
  static final Duration SHORT_WAIT = Duration.ofMillis(200);

  /** A factory lease that lets a renewal find a deleted key soon. */
  static final Duration SHORT_LEASE = Duration.ofMillis(600);

  // ---- release from any thread ----

  @Test
  void aHandleIsReleasedByAnotherThreadAndItsHoldIsGoneFromEveryCopy() throws Exception {
    LockHandle handle = lock().acquireHold();
    assertThat(handle.isHeld()).isTrue();
    assertThat(handle.name()).isEqualTo(name());
    await().atMost(Timing.awaitAtMost()).until(this::heldOnEveryCopy);
    onOtherThread(handle::release);
    assertThat(handle.isHeld()).isFalse();
    assertThat(heldOnAnyCopy()).as("the hold on any server (every Redlock master)").isFalse();
  }

  @Test
  @EnabledIf("everyCase")
  void aSecondReleaseThrowsIllegalMonitorState() throws Exception {
    LockHandle handle = lock().acquireHold();
    onOtherThread(handle::release);
    assertThatThrownBy(handle::release)
        .isInstanceOf(IllegalMonitorStateException.class)
        .isNotInstanceOf(LockLostException.class);
  }

  @Test
  @EnabledIf("everyCase")
  void closeAfterReleaseDoesNothingEvenWhenAnotherOwnerHoldsTheLockNow() throws Exception {
    LockHandle first = lock().acquireHold();
    first.release();
    LockHandle second = lock().acquireHold();
    try {
      first.close();
      assertThat(second.isHeld()).isTrue();
      assertThat(heldOnAnyCopy()).as("the second owner's hold").isTrue();
    } finally {
      second.release();
    }
    assertThat(heldOnAnyCopy()).isFalse();
  }

  // ---- exclusion ----

  @Test
  @EnabledIf("everyCase")
  void handlesAndThreadHoldsOfEveryFactoryNeverOverlap() throws Exception {
    RedisLockFactory here = factory();
    RedisLockFactory there = factory();
    boolean shared = kind().shared();
    Overlaps overlaps = new Overlaps();
    int rounds = 6;
    List<Future<?>> workers = new ArrayList<>();
    // Handles taken by one thread and released by another, of this factory and of another.
    workers.add(threads.submit(() -> blockingHandles(lockOf(here), shared, rounds, overlaps)));
    workers.add(threads.submit(() -> blockingHandles(blockerOf(there), false, rounds, overlaps)));
    // The holds of threads of this factory.
    RedisLock threadLock = blockerOf(here);
    workers.add(
        threads.submit(
            () -> {
              for (int i = 0; i < rounds; i++) {
                threadLock.lock();
                try {
                  overlaps.enter(false, "a thread hold");
                  overlaps.exit(false);
                } finally {
                  threadLock.unlock();
                }
              }
              return null;
            }));
    // Asynchronous acquisitions, each stage on a thread of the test's pool.
    List<CompletableFuture<Void>> chains =
        List.of(
            asyncHandles(lockOf(here), shared, rounds, overlaps),
            asyncHandles(lockOf(there), shared, rounds, overlaps));
    for (Future<?> worker : workers) {
      worker.get(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS);
    }
    for (CompletableFuture<Void> chain : chains) {
      chain.get(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS);
    }
    assertThat(overlaps.overlaps()).isEmpty();
    assertThat(overlaps.entries()).isEqualTo(5 * rounds);
    assertThat(heldOnAnyCopy()).isFalse();
  }

  private Void blockingHandles(RedisLock lock, boolean shared, int rounds, Overlaps overlaps)
      throws Exception {
    for (int i = 0; i < rounds; i++) {
      LockHandle handle = lock.acquireHold();
      overlaps.enter(shared, "a handle");
      overlaps.exit(shared);
      threads.submit(handle::release).get(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS);
    }
    return null;
  }

  private CompletableFuture<Void> asyncHandles(
      RedisLock lock, boolean shared, int rounds, Overlaps overlaps) {
    CompletableFuture<Void> chain = CompletableFuture.completedFuture(null);
    for (int i = 0; i < rounds; i++) {
      chain =
          chain
              .thenComposeAsync(done -> lock.acquireHoldAsync(), threads)
              .thenApplyAsync(
                  handle -> {
                    overlaps.enter(shared, "an async handle");
                    overlaps.exit(shared);
                    return handle;
                  },
                  threads)
              .thenAcceptAsync(LockHandle::release, threads);
    }
    return chain;
  }

  @Test
  @EnabledIf("everyCase")
  void aThreadHoldingAHandleGetsNoOtherHandleOfTheLock() throws InterruptedException {
    RedisLockFactory factory = factory();
    LockHandle held = blockerOf(factory).acquireHold();
    try {
      Optional<LockHandle> other = lockOf(factory).tryAcquireHold(SHORT_WAIT);
      releaseQuietly(other);
      assertThat(other).as("not reentrant").isEmpty();
    } finally {
      held.release();
    }
  }

  @Test
  @EnabledIf("everyCase")
  void aThreadHoldingTheLockGetsNoHandleOfIt() throws InterruptedException {
    RedisLockFactory factory = factory();
    RedisLock threadLock = blockerOf(factory);
    threadLock.lock();
    try {
      Optional<LockHandle> handle = lockOf(factory).tryAcquireHold(SHORT_WAIT);
      releaseQuietly(handle);
      assertThat(handle).as("a handle excludes the threads of its own JVM").isEmpty();
    } finally {
      threadLock.unlock();
    }
  }

  @Test
  @EnabledIf("everyCase")
  void tryAcquireHoldIsEmptyWhileAnotherFactoryHoldsTheLock() throws Exception {
    Holder holder = holdInOtherThread(blockerOf(factory()));
    Optional<LockHandle> handle = lock().tryAcquireHold();
    releaseQuietly(handle);
    assertThat(handle).isEmpty();
    holder.release();
  }

  // ---- asynchronous acquisition ----

  @Test
  @EnabledIf("everyCase")
  void anUncontendedAsyncAcquisitionIsCompleteWhenItReturns() {
    RedisLock lock = lock();
    CompletableFuture<LockHandle> untimed = lock.acquireHoldAsync();
    assertThat(untimed).isCompleted();
    LockHandle handle = untimed.join();
    assertThat(handle.isHeld()).isTrue();
    handle.release();
    CompletableFuture<Optional<LockHandle>> timed = lock.tryAcquireHoldAsync(Duration.ZERO);
    assertThat(timed).isCompleted();
    assertThat(timed.join()).hasValueSatisfying(h -> assertThat(h.isHeld()).isTrue());
    timed.join().orElseThrow().release();
  }

  @Test
  void anAsyncAcquisitionOfABusyLockIsPendingUntilTheHolderReleases() throws Exception {
    Holder holder = holdInOtherThread(blockerOf(factory()));
    CompletableFuture<LockHandle> pending = lock().acquireHoldAsync();
    holdsFor(QUIET, "pending while the lock is busy", () -> !pending.isDone());
    holder.release();
    await().atMost(Timing.awaitAtMost()).until(pending::isDone);
    LockHandle handle = pending.join();
    assertThat(handle.isHeld()).isTrue();
    assertThat(heldOnAnyCopy()).isTrue();
    handle.release();
  }

  @Test
  @EnabledIf("everyCase")
  void anAsyncAcquisitionBehindAHandleOfItsOwnFactoryCompletesWhenThatHandleIsReleased()
      throws Exception {
    RedisLockFactory factory = factory();
    LockHandle first = blockerOf(factory).acquireHold();
    CompletableFuture<LockHandle> pending = lockOf(factory).acquireHoldAsync();
    holdsFor(QUIET, "pending while the lock is held", () -> !pending.isDone());
    onOtherThread(first::release);
    await().atMost(Timing.awaitAtMost()).until(pending::isDone);
    LockHandle second = pending.join();
    assertThat(second.isHeld()).isTrue();
    second.release();
    assertThat(heldOnAnyCopy()).isFalse();
  }

  // ---- timeouts ----

  @Test
  @EnabledIf("everyCase")
  void acquisitionsWhoseTimeRanOutAtOnceLeaveTheNextOneFreeToAcquire() throws Exception {
    Holder holder = holdInOtherThread(blockerOf(factory()));
    RedisLock lock = lock();
    List<CompletableFuture<Optional<LockHandle>>> expired = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      // Deadlines that pass before the acquisition has even queued behind the others.
      expired.add(lock.tryAcquireHoldAsync(Duration.ofNanos(1 + i % 3)));
    }
    for (CompletableFuture<Optional<LockHandle>> each : expired) {
      releaseQuietly(each.get(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS));
    }
    holder.release();
    CompletableFuture<LockHandle> next = lock.acquireHoldAsync();
    await("the next acquisition, the lock being free")
        .atMost(Timing.awaitAtMost())
        .until(next::isDone);
    next.join().release();
    assertThat(heldOnAnyCopy()).isFalse();
  }

  @Test
  @EnabledIf("everyCase")
  void aTimedAsyncAcquisitionOfABusyLockCompletesEmptyAndLeavesNothingBehind() throws Exception {
    Holder holder = holdInOtherThread(blockerOf(factory()));
    RedisLockFactory probe = factory();
    CompletableFuture<Optional<LockHandle>> timed = lock().tryAcquireHoldAsync(SHORT_WAIT);
    Optional<LockHandle> outcome =
        timed.get(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS);
    releaseQuietly(outcome);
    assertThat(outcome).isEmpty();
    awaitWaitEntries(0);
    holder.release();
    holdsFor(QUIET, "nobody takes the lock after the timeout", () -> !isLocked(probe));
    assertThat(heldOnAnyCopy()).isFalse();
  }

  @Test
  @EnabledIf("everyCase")
  void aTimedBlockingAcquisitionOfABusyLockReturnsEmptyAndLeavesNothingBehind() throws Exception {
    Holder holder = holdInOtherThread(blockerOf(factory()));
    RedisLockFactory probe = factory();
    Optional<LockHandle> outcome = lock().tryAcquireHold(SHORT_WAIT);
    releaseQuietly(outcome);
    assertThat(outcome).isEmpty();
    awaitWaitEntries(0);
    holder.release();
    holdsFor(QUIET, "nobody takes the lock after the timeout", () -> !isLocked(probe));
    assertThat(heldOnAnyCopy()).isFalse();
  }

  // ---- cancel and interrupt ----

  @Test
  void aCancelledAcquisitionWithdrawsAndNobodyHoldsTheLockAfterTheHolderReleases()
      throws Exception {
    Holder holder = holdInOtherThread(blockerOf(factory()));
    RedisLockFactory probe = factory();
    CompletableFuture<LockHandle> pending = lock().acquireHoldAsync();
    awaitWaitEntries(entriesOfOneWaiter(), pending); // its place in the queue, or its intent
    assertThat(pending).isNotDone();
    assertThat(pending.cancel(false)).isTrue();
    awaitWaitEntries(0);
    holder.release();
    // An attempt already on its way when the cancel came (a wake-up's) may be granted: it is
    // released at once, and nothing takes the lock after that.
    await("the lock is free").atMost(Timing.PROMPTLY).until(() -> !isLocked(probe));
    holdsFor(QUIET, "nobody holds the lock", () -> !isLocked(probe));
    assertThat(heldOnAnyCopy()).isFalse();
    Optional<LockHandle> later = blockerOf(factory()).tryAcquireHold();
    assertThat(later).as("a later acquirer gets the lock at once").isPresent();
    later.orElseThrow().release();
  }

  @Test
  @EnabledIf("everyCase")
  void aCancelRacingTheGrantLeavesNoHoldThatNobodyOwns() throws Exception {
    RedisLockFactory holders = factory();
    RedisLockFactory waiters = factory();
    RedisLockFactory probe = factory();
    int granted = 0;
    int withdrawn = 0;
    for (int i = 0; i < 40; i++) {
      LockHandle holder = blockerOf(holders).acquireHold();
      RedisLock lock = lockOf(waiters);
      CompletableFuture<?> pending =
          i % 2 == 0 ? lock.acquireHoldAsync() : lock.tryAcquireHoldAsync(Duration.ofHours(1));
      CountDownLatch start = new CountDownLatch(1);
      Future<?> release =
          threads.submit(
              () -> {
                start.await();
                holder.release();
                return null;
              });
      Future<Boolean> cancel =
          threads.submit(
              () -> {
                start.await();
                return pending.cancel(false);
              });
      start.countDown();
      release.get(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS);
      boolean cancelled = cancel.get(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS);
      if (cancelled) {
        withdrawn++;
        await("round " + i + ": the lock is free again, well within the lease")
            .atMost(Timing.CLEAN_UP)
            .until(() -> !heldOnAnyCopy() && !isLocked(probe));
      } else {
        Object outcome = pending.get(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS);
        LockHandle handle =
            outcome instanceof Optional<?> timed
                ? (LockHandle) timed.orElseThrow()
                : (LockHandle) outcome;
        granted++;
        assertThat(handle.isHeld()).as("round %s: the handle the future returned", i).isTrue();
        handle.release();
        assertThat(heldOnAnyCopy()).isFalse();
      }
      awaitWaitEntries(0);
    }
    assertThat(granted + withdrawn).isEqualTo(40);
  }

  @Test
  @EnabledIf("everyCase")
  void anInterruptedBlockingAcquisitionWithdrawsAndLeavesNoHold() throws Exception {
    Holder holder = holdInOtherThread(blockerOf(factory()));
    RedisLockFactory probe = factory();
    RedisLock lock = lock();
    Waiter<Object> waiter =
        startWaiter(
            () -> {
              try {
                Optional<LockHandle> handle = lock.tryAcquireHold(Duration.ofHours(1));
                releaseQuietly(handle);
                return handle;
              } catch (InterruptedException e) {
                return e;
              }
            });
    waiter.awaitWaiting();
    awaitWaitEntries(entriesOfOneWaiter(), waiter.future);
    waiter.thread.interrupt();
    assertThat(waiter.get()).isInstanceOf(InterruptedException.class);
    awaitWaitEntries(0);
    holder.release();
    holdsFor(QUIET, "nobody holds the lock", () -> !isLocked(probe));
    Optional<LockHandle> later = blockerOf(factory()).tryAcquireHold();
    assertThat(later).as("a later acquirer gets the lock at once").isPresent();
    later.orElseThrow().release();
  }

  // ---- close ----

  @Test
  void closingTheFactoryFailsItsPendingAcquisitionsWithIllegalState() throws Exception {
    Holder holder = holdInOtherThread(blockerOf(factory()));
    RedisLockFactory factory = factory();
    CompletableFuture<LockHandle> untimed = lockOf(factory).acquireHoldAsync();
    CompletableFuture<Optional<LockHandle>> timed =
        lockOf(factory).tryAcquireHoldAsync(Duration.ofHours(1));
    awaitWaitEntries(entriesOfOneWaiter(), untimed); // the first asks Redis, the other queues
    assertThat(timed).isNotDone();
    factory.close();
    for (CompletableFuture<?> pending : List.of(untimed, timed)) {
      assertThat(pending)
          .failsWithin(Timing.awaitAtMost())
          .withThrowableOfType(ExecutionException.class)
          .withCauseInstanceOf(IllegalStateException.class);
    }
    awaitWaitEntries(0);
    holder.release();
    assertThat(heldOnAnyCopy()).isFalse();
  }

  @Test
  @EnabledIf("everyCase")
  void aClosedFactoryRefusesNewAcquisitionsOfHandles() {
    RedisLockFactory factory = factory();
    RedisLock lock = lockOf(factory);
    factory.close();
    assertThatThrownBy(lock::acquireHoldAsync).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> lock.tryAcquireHoldAsync(SHORT_WAIT))
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(lock::tryAcquireHold).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(lock::acquireHold).isInstanceOf(IllegalStateException.class);
    assertThat(heldOnAnyCopy()).isFalse();
  }

  @Test
  @EnabledIf("everyCase")
  void closingTheFactoryLosesItsHandles() {
    RedisLockFactory factory = factory();
    LockHandle handle = lockOf(factory).acquireHold();
    factory.close();
    assertThat(handle.isHeld()).isFalse();
    assertThatThrownBy(handle::release)
        .isInstanceOf(LockLostException.class)
        .hasMessageContaining(name());
    assertThat(lostEvents).extracting(LockLostEvent::lockName).containsExactly(name());
    deleteHold(); // closing loses holds without releasing them: the key would expire
  }

  // ---- loss ----

  @Test
  void aDeletedHoldIsReportedLostToTheListener() {
    LockHandle handle = lockOf(factory(b -> b.leaseTime(SHORT_LEASE))).acquireHold();
    deleteHold();
    await("the listener hears of the loss")
        .atMost(Timing.awaitAtMost())
        .until(() -> !lostEvents.isEmpty());
    assertThat(lostEvents).hasSize(1);
    assertThat(lostEvents.get(0).lockName()).isEqualTo(name());
    assertThat(lostEvents.get(0).reason()).isNotBlank();
    await().atMost(Timing.awaitAtMost()).until(() -> !handle.isHeld());
    assertThatThrownBy(handle::release).isInstanceOf(LockLostException.class);
  }

  @Test
  @EnabledIf("everyCase")
  void aLostHandleCannotBeExtendedAndItsReleaseThrowsLockLostOnce() {
    LockHandle handle = lockOf(factory(b -> b.leaseTime(SHORT_LEASE))).acquireHold();
    deleteHold();
    await().atMost(Timing.awaitAtMost()).until(() -> !handle.isHeld());
    assertThat(handle.extend(Duration.ofSeconds(5))).isFalse();
    assertThat(heldOnAnyCopy()).as("extend took no hold again").isFalse();
    assertThatThrownBy(handle::release)
        .isInstanceOf(LockLostException.class)
        .hasMessageContaining(name());
    assertThatThrownBy(handle::release)
        .as("told once")
        .isInstanceOf(IllegalMonitorStateException.class)
        .isNotInstanceOf(LockLostException.class);
  }

  // ---- fencing tokens ----

  @Test
  @EnabledIf("everyCase")
  void fencingTokensOfHandlesAndThreadHoldsIncreaseStrictly() throws Exception {
    assumeTrue(kind().fenced(), "read holds have no fencing token");
    List<Long> tokens = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      LockHandle handle = lock().acquireHold();
      long token = onOtherThread(handle::fencingToken);
      assertThat(handle.fencingToken()).as("the same for the handle's life").isEqualTo(token);
      tokens.add(token);
      onOtherThread(handle::release);
      RedisLock threadLock = lock();
      threadLock.lock();
      try {
        tokens.add(kind().threadFencingToken(threadLock));
      } finally {
        threadLock.unlock();
      }
    }
    assertThat(tokens).isSorted().doesNotHaveDuplicates();
    assertThat(tokens.get(0)).isPositive();
  }

  @Test
  @EnabledIf("everyCase")
  void aReleasedHandleHasNoFencingToken() {
    assumeTrue(kind().fenced(), "read holds have no fencing token");
    LockHandle handle = lock().acquireHold();
    handle.release();
    assertThatThrownBy(handle::fencingToken).isInstanceOf(IllegalMonitorStateException.class);
  }

  @Test
  @EnabledIf("everyCase")
  void aReadHandleHasNoFencingToken() throws Exception {
    assumeTrue(!kind().fenced(), "a hold of this kind has a fencing token");
    LockHandle handle = lock().acquireHold();
    try {
      assertThatThrownBy(() -> onOtherThread(handle::fencingToken))
          .isInstanceOf(UnsupportedOperationException.class);
    } finally {
      handle.release();
    }
  }

  // ---- bad input ----

  @Test
  @EnabledIf("everyCase")
  void nullAndOutOfRangeArgumentsAreRefusedBeforeAnythingReachesRedis() {
    RedisLock lock = lock();
    long before = redisCalls();
    Duration wait = Duration.ofSeconds(1);
    Duration lease = Duration.ofSeconds(1);
    assertNamesArgument(() -> lock.lockFor(null), NullPointerException.class, "lease");
    assertNamesArgument(() -> lock.tryLock(null, lease), NullPointerException.class, "wait");
    assertNamesArgument(() -> lock.tryLock(wait, null), NullPointerException.class, "lease");
    assertNamesArgument(() -> lock.acquireHold(null), NullPointerException.class, "lease");
    assertNamesArgument(() -> lock.tryAcquireHold(null), NullPointerException.class, "wait");
    assertNamesArgument(() -> lock.tryAcquireHold(null, lease), NullPointerException.class, "wait");
    assertNamesArgument(() -> lock.tryAcquireHold(wait, null), NullPointerException.class, "lease");
    assertNamesArgument(() -> lock.acquireHoldAsync(null), NullPointerException.class, "lease");
    assertNamesArgument(() -> lock.tryAcquireHoldAsync(null), NullPointerException.class, "wait");
    assertNamesArgument(
        () -> lock.tryAcquireHoldAsync(null, lease), NullPointerException.class, "wait");
    assertNamesArgument(
        () -> lock.tryAcquireHoldAsync(wait, null), NullPointerException.class, "lease");
    for (Duration bad :
        List.of(Duration.ZERO, Duration.ofMillis(-1), Duration.ofDays(1).plusMillis(1))) {
      Class<IllegalArgumentException> iae = IllegalArgumentException.class;
      assertNamesArgument(() -> lock.lockFor(bad), iae, "lease");
      assertNamesArgument(() -> lock.tryLock(wait, bad), iae, "lease");
      assertNamesArgument(() -> lock.acquireHold(bad), iae, "lease");
      assertNamesArgument(() -> lock.tryAcquireHold(wait, bad), iae, "lease");
      assertNamesArgument(() -> lock.acquireHoldAsync(bad), iae, "lease");
      assertNamesArgument(() -> lock.tryAcquireHoldAsync(wait, bad), iae, "lease");
    }
    assertThat(redisCalls()).as("commands sent to Redis").isEqualTo(before);
    assertThat(heldOnAnyCopy()).isFalse();
  }

  @Test
  @EnabledIf("everyCase")
  void aHandlesBadArgumentsAreRefusedAndLeaveItsHoldAsItWas() {
    LockHandle handle = lock().acquireHold();
    try {
      assertNamesArgument(() -> handle.extend(null), NullPointerException.class, "lease");
      for (Duration bad :
          List.of(Duration.ZERO, Duration.ofMillis(-1), Duration.ofDays(1).plusMillis(1))) {
        assertNamesArgument(() -> handle.extend(bad), IllegalArgumentException.class, "lease");
      }
      assertNamesArgument(() -> handle.releaseAfter(null), NullPointerException.class, "delay");
      assertNamesArgument(
          () -> handle.releaseAfter(Duration.ofDays(1).plusMillis(1)),
          IllegalArgumentException.class,
          "delay");
      assertThat(handle.isHeld()).isTrue();
      assertThat(heldOnAnyCopy()).isTrue();
    } finally {
      handle.release();
    }
  }

  private static void assertNamesArgument(
      org.assertj.core.api.ThrowableAssert.ThrowingCallable call,
      Class<? extends RuntimeException> type,
      String argument) {
    assertThatThrownBy(call).isInstanceOf(type).hasMessageContaining(argument);
  }
}
