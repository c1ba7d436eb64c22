package io.github.redislock.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.redislock.LockHandle;
import io.github.redislock.LockLostException;
import io.github.redislock.RedisLock;
import io.github.redislock.RedisLockFactory;
import io.github.redislock.testing.Timing;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;

/**
 * The contract of leases given per call ({@link RedisLock#lockFor(Duration)}, {@link
 * RedisLock#tryLock(Duration, Duration)} and the leased {@code acquireHold} forms) and of a
 * handle's own lease ({@link LockHandle#extend}, {@link LockHandle#releaseAfter}), as their Javadoc
 * states it: the lease is the hold's time to live in Redis, it is not renewed, and when it runs out
 * the hold is lost and reported; one property per test, for the kind of lock ({@link HoldKind}) a
 * subclass names.
 *
 * <p>Where a lease given per call must run out, it is half a second and the factory's lease is
 * {@link #TICKING_LEASE}: a hold that is renewed, whatever lease its renewal sets, never expires,
 * so a key that is gone within the 20 seconds Awaitility gives it was not renewed. Where the lease
 * given per call must be the hold's, the factory keeps its default of 30 seconds, longer than the
 * lease given.
 *
 * <p>These cases wait for leases to run out, so they run on the standalone server, every case for
 * every kind, and on Redlock, for the plain lock, the cases where the lease is set, runs out or is
 * set again on every master ({@link #everyCase()} is false there: a thread's lapse, reentrancy and
 * the end of renewals after {@code extend} are the JVM's affair). Not on Sentinel and Cluster:
 * there the lease is set by the same scripts on one master, and the handle suite ({@link
 * HandleContractTest}) covers what goes through their wire.
 */
public abstract class LeaseContractTest extends FormsFixture {

  /** A lease given per call that is meant to run out during the test. */
  static final Duration LAPSING = Duration.ofMillis(500);

  /** A lease given per call that outlasts the test, and is shorter than the factory's 30 s. */
  static final Duration LONG = Duration.ofSeconds(10);

  /**
   * The factory lease of the cases where a lease runs out: longer than {@link #LAPSING}, so that a
   * hold that took it would show a longer time to live, and short enough that a renewal of the
   * factory's (a third of it, 400 ms) would reach the key before it expired, and that the factory,
   * which looks for lapsed leases every sixth of its lease, reports a lapse soon.
   */
  static final Duration TICKING_LEASE = Duration.ofMillis(1200);

  /** A factory whose lease is {@link #TICKING_LEASE}. */
  RedisLockFactory tickingFactory() {
    return factory(b -> b.leaseTime(TICKING_LEASE));
  }

  /** The lock under test from a {@link #tickingFactory()}. */
  RedisLock ticking() {
    return lockOf(tickingFactory());
  }

  private void assertLeaseAtMost(Duration lease, String form) {
    assertThat(leaseLeftMillis())
        .as("the hold's time to live after %s", form)
        .isPositive()
        .isLessThanOrEqualTo(lease.toMillis());
  }

  /** Waits until the hold is gone from every server: a renewed one would stay. */
  private void awaitExpired() {
    await("the hold expires with its lease, not renewed")
        .atMost(Timing.awaitAtMost())
        .until(() -> !heldOnAnyCopy());
  }

  private void awaitLossReported() {
    await("the listener hears of the lapsed lease")
        .atMost(Timing.awaitAtMost())
        .until(() -> !lostEvents.isEmpty());
    assertThat(lostEvents).hasSize(1);
    assertThat(lostEvents.get(0).lockName()).isEqualTo(name());
    assertThat(lostEvents.get(0).reason()).isNotBlank();
  }

  // ---- the lease given per call is the hold's ----

  @Test
  void theThreadFormsSetTheLeaseGivenWithTheCall() throws InterruptedException {
    RedisLock lock = lock();
    lock.lockFor(LONG);
    try {
      assertLeaseAtMost(LONG, "lockFor(lease)");
    } finally {
      lock.unlock();
    }
    assertThat(lock.tryLock(Duration.ofSeconds(1), LONG)).isTrue();
    try {
      assertLeaseAtMost(LONG, "tryLock(wait, lease)");
    } finally {
      lock.unlock();
    }
    assertThat(heldOnAnyCopy()).isFalse();
  }

  @Test
  void theHandleFormsSetTheLeaseGivenWithTheCall() throws Exception {
    RedisLock lock = lock();
    LockHandle blocking = lock.acquireHold(LONG);
    assertLeaseAtMost(LONG, "acquireHold(lease)");
    blocking.release();
    LockHandle timed = lock.tryAcquireHold(Duration.ofSeconds(1), LONG).orElseThrow();
    assertLeaseAtMost(LONG, "tryAcquireHold(wait, lease)");
    timed.release();
    LockHandle async = lock.acquireHoldAsync(LONG).get(1, TimeUnit.MINUTES);
    assertLeaseAtMost(LONG, "acquireHoldAsync(lease)");
    async.release();
    LockHandle timedAsync =
        lock.tryAcquireHoldAsync(Duration.ofSeconds(1), LONG)
            .get(1, TimeUnit.MINUTES)
            .orElseThrow();
    assertLeaseAtMost(LONG, "tryAcquireHoldAsync(wait, lease)");
    timedAsync.release();
    assertThat(heldOnAnyCopy()).isFalse();
  }

  // ---- a lease given per call runs out ----

  @Test
  void aHandlesLeaseRunsOutUnrenewedAndTheLossIsReportedAndThrownByRelease() {
    LockHandle handle = ticking().acquireHold(LAPSING);
    assertLeaseAtMost(LAPSING, "acquireHold(lease)");
    awaitExpired();
    awaitLossReported();
    await().atMost(Timing.awaitAtMost()).until(() -> !handle.isHeld());
    assertThatThrownBy(handle::release)
        .isInstanceOf(LockLostException.class)
        .hasMessageContaining(name());
    assertThatThrownBy(handle::release)
        .as("told once")
        .isInstanceOf(IllegalMonitorStateException.class)
        .isNotInstanceOf(LockLostException.class);
  }

  @Test
  @EnabledIf("everyCase")
  void aThreadsLeaseRunsOutUnrenewedAndTheLossIsReportedAndThrownByUnlock() {
    RedisLockFactory factory = tickingFactory();
    RedisLock lock = lockOf(factory);
    lock.lockFor(LAPSING);
    assertLeaseAtMost(LAPSING, "lockFor(lease)");
    awaitExpired();
    awaitLossReported();
    await()
        .atMost(Timing.awaitAtMost())
        .pollInSameThread()
        .until(() -> kind().holdCount(factory, name()) == 0);
    assertThatThrownBy(lock::unlock)
        .isInstanceOf(LockLostException.class)
        .hasMessageContaining(name());
  }

  @Test
  @EnabledIf("everyCase")
  void aReentrantLockKeepsTheLeaseGivenWithTheFirstCall() {
    RedisLockFactory factory = tickingFactory();
    RedisLock lock = lockOf(factory);
    lock.lockFor(LAPSING);
    lock.lock();
    assertThat(kind().holdCount(factory, name())).as("the hold count").isEqualTo(2);
    assertLeaseAtMost(LAPSING, "lockFor(lease), then lock()");
    awaitExpired(); // a hold that took the factory's renewed lease would stay
    awaitLossReported();
    assertThatThrownBy(lock::unlock).isInstanceOf(LockLostException.class);
  }

  // ---- a handle's lease set again ----

  @Test
  void extendSetsALongerLease() {
    LockHandle handle = lock().acquireHold(Duration.ofSeconds(2));
    try {
      long before = leaseLeftMillis();
      assertThat(handle.extend(LONG)).isTrue();
      assertThat(leaseLeftMillis()).isGreaterThan(before).isLessThanOrEqualTo(LONG.toMillis());
      assertThat(handle.isHeld()).isTrue();
    } finally {
      handle.release();
    }
    assertThat(heldOnAnyCopy()).isFalse();
  }

  @Test
  @EnabledIf("everyCase")
  void anExtendedHandleIsNoLongerRenewedAndItsLeaseRunsOut() {
    LockHandle handle = ticking().acquireHold(); // the factory's lease, renewed
    assertThat(handle.extend(LAPSING)).isTrue();
    assertLeaseAtMost(LAPSING, "extend(lease)");
    awaitExpired();
    awaitLossReported();
    assertThatThrownBy(handle::release).isInstanceOf(LockLostException.class);
  }

  @Test
  void releaseAfterKeepsTheLockForTheDelayThenItExpiresWithoutALoss() throws Exception {
    LockHandle handle = ticking().acquireHold();
    handle.releaseAfter(LAPSING);
    assertThat(handle.isHeld()).as("released in the JVM").isFalse();
    assertLeaseAtMost(LAPSING, "releaseAfter(delay)");
    Optional<LockHandle> meanwhile = blockerOf(factory()).tryAcquireHold();
    releaseQuietly(meanwhile);
    assertThat(meanwhile).as("the lock stays held for the delay").isEmpty();
    // A waiter takes the lock when it expires (well before the factory's lease of 30 s).
    CompletableFuture<LockHandle> next = blockerOf(factory()).acquireHoldAsync();
    LockHandle nextHandle = next.get(Timing.awaitAtMost().toMillis(), TimeUnit.MILLISECONDS);
    nextHandle.release();
    holdsFor(TICKING_LEASE.dividedBy(3), "no loss reported", lostEvents::isEmpty);
    assertThatThrownBy(handle::release)
        .isInstanceOf(IllegalMonitorStateException.class)
        .isNotInstanceOf(LockLostException.class);
    handle.close(); // released already: nothing
  }

  @Test
  void releaseAfterZeroOrLessReleasesAtOnce() {
    for (Duration delay : new Duration[] {Duration.ZERO, Duration.ofSeconds(-1)}) {
      LockHandle handle = lock().acquireHold();
      handle.releaseAfter(delay);
      assertThat(handle.isHeld()).isFalse();
      assertThat(heldOnAnyCopy()).as("the hold after releaseAfter(%s)", delay).isFalse();
      Optional<LockHandle> next = blockerOf(factory()).tryAcquireHold();
      assertThat(next).as("the next acquirer gets the lock at once").isPresent();
      next.orElseThrow().release();
    }
    assertThat(lostEvents).isEmpty();
  }
}
