package io.github.redislock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The blocking forms of {@link RedisLock}'s handles as waits for the asynchronous acquisition
 * ({@link HoldForms}), where a race between the JDK's future and an interrupt decides who owns a
 * grant. The acquisitions here are futures the test completes itself, at the instant the race
 * needs: no Redis is involved, the engine's side is tested on every deployment by {@code
 * HandleContractTest}.
 */
class HoldFormsTest {

  /**
   * The interrupt comes while the caller waits, and the grant lands before the caller withdraws
   * (its cancel then finds the future complete): the hold is nobody's, so it must be released, or
   * it would be renewed for ever with no one to release it.
   */
  @Test
  void aGrantThatLandsBetweenTheInterruptAndTheWithdrawalIsReleased() {
    CountingHandle granted = new CountingHandle();
    HoldForms.Acquirer grantedAsTheInterruptComes =
        (waitNanos, leaseNanos) -> new GrantedWhileInterrupted(granted);

    assertThatThrownBy(() -> HoldForms.tryAcquire(grantedAsTheInterruptComes, 1_000_000_000L, 0))
        .isInstanceOf(InterruptedException.class);

    assertThat(granted.closes.get()).as("the handle nobody received was released").isEqualTo(1);
  }

  @Test
  void anInterruptThatWithdrawsBeforeAnyGrantReleasesNothing() {
    CompletableFuture<Optional<LockHandle>> pending = new InterruptedWait();
    HoldForms.Acquirer neverGranted = (waitNanos, leaseNanos) -> pending;

    assertThatThrownBy(() -> HoldForms.tryAcquire(neverGranted, 1_000_000_000L, 0))
        .isInstanceOf(InterruptedException.class);

    assertThat(pending.isCancelled()).as("the acquisition was withdrawn").isTrue();
  }

  @Test
  void anAcquisitionThatFailedAsTheInterruptCameThrowsTheInterrupt() {
    HoldForms.Acquirer failedAsTheInterruptComes =
        (waitNanos, leaseNanos) -> new FailedWhileInterrupted();

    assertThatThrownBy(() -> HoldForms.tryAcquire(failedAsTheInterruptComes, 1_000_000_000L, 0))
        .isInstanceOf(InterruptedException.class);
  }

  /** A wait that is interrupted, and completed with a grant before its caller can withdraw. */
  private static final class GrantedWhileInterrupted
      extends CompletableFuture<Optional<LockHandle>> {
    private final LockHandle handle;

    GrantedWhileInterrupted(LockHandle handle) {
      this.handle = handle;
    }

    @Override
    public Optional<LockHandle> get() throws InterruptedException {
      complete(Optional.of(handle)); // the grant, on the engine's thread, in the JDK's window
      throw new InterruptedException();
    }
  }

  /** A wait that is interrupted while nothing completed it. */
  private static final class InterruptedWait extends CompletableFuture<Optional<LockHandle>> {
    @Override
    public Optional<LockHandle> get() throws InterruptedException {
      throw new InterruptedException();
    }
  }

  /** A wait that is interrupted, and failed by Redis before its caller can withdraw. */
  private static final class FailedWhileInterrupted
      extends CompletableFuture<Optional<LockHandle>> {
    @Override
    public Optional<LockHandle> get() throws InterruptedException {
      completeExceptionally(new RedisLockException("Redis went away"));
      throw new InterruptedException();
    }
  }

  /** A handle that counts its releases. */
  private static final class CountingHandle implements LockHandle {
    final AtomicInteger closes = new AtomicInteger();

    @Override
    public String name() {
      return "orders";
    }

    @Override
    public boolean isHeld() {
      return closes.get() == 0;
    }

    @Override
    public long fencingToken() {
      return 1;
    }

    @Override
    public boolean extend(Duration lease) {
      return true;
    }

    @Override
    public void release() {
      closes.incrementAndGet();
    }

    @Override
    public void releaseAfter(Duration delay) {
      release();
    }

    @Override
    public void close() {
      release();
    }
  }
}
