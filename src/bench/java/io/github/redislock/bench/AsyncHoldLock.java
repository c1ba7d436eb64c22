package io.github.redislock.bench;

import io.github.redislock.LockHandle;
import io.github.redislock.RedisLock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

/**
 * The {@code ours-async} row: a {@link Lock} whose {@code lock()} is an asynchronous acquisition of
 * a hold owned by a handle, {@link RedisLock#acquireHoldAsync()}, waited for with {@code join()},
 * and whose {@code unlock()} is {@link LockHandle#release()}; {@code tryLock()} is {@link
 * RedisLock#tryAcquireHoldAsync(Duration)} with no wait. So a scenario's lock+unlock pair is the
 * pair {@code acquireHoldAsync()} + {@code release()} as a caller of the asynchronous API makes it,
 * beside the thread-bound {@code lock()}/{@code unlock()} of the {@code ours} row in the same
 * rounds. An uncontended acquisition completes in the calling thread (the future is complete when
 * the method returns), so {@code join()} does not park.
 *
 * <p>One thread uses one such lock object at a time, as the scenarios do (each thread asks for its
 * own lock object); handles are not reentrant, so the reentrant scenario does not apply to it.
 */
final class AsyncHoldLock implements Lock {
  private final RedisLock lock;
  private LockHandle hold;

  AsyncHoldLock(RedisLock lock) {
    this.lock = lock;
  }

  @Override
  public void lock() {
    hold = lock.acquireHoldAsync().join();
  }

  @Override
  public void lockInterruptibly() throws InterruptedException {
    CompletableFuture<LockHandle> future = lock.acquireHoldAsync();
    try {
      hold = future.get();
    } catch (InterruptedException e) {
      future.cancel(false); // withdraws the acquisition; a hold granted after it is released
      throw e;
    } catch (ExecutionException e) {
      throw rethrow(e);
    }
  }

  @Override
  public boolean tryLock() {
    Optional<LockHandle> got = lock.tryAcquireHoldAsync(Duration.ZERO).join();
    got.ifPresent(h -> hold = h);
    return got.isPresent();
  }

  @Override
  public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
    CompletableFuture<Optional<LockHandle>> future =
        lock.tryAcquireHoldAsync(Duration.ofNanos(unit.toNanos(time)));
    try {
      Optional<LockHandle> got =
          future.get(unit.toNanos(time) + TimeUnit.MINUTES.toNanos(1), TimeUnit.NANOSECONDS);
      got.ifPresent(h -> hold = h);
      return got.isPresent();
    } catch (InterruptedException e) {
      future.cancel(false);
      throw e;
    } catch (ExecutionException e) {
      throw rethrow(e);
    } catch (TimeoutException e) {
      future.cancel(false);
      throw new IllegalStateException("a timed asynchronous acquisition did not time out", e);
    }
  }

  @Override
  public void unlock() {
    LockHandle h = hold;
    if (h == null) {
      throw new IllegalMonitorStateException("no hold");
    }
    hold = null;
    h.release();
  }

  @Override
  public Condition newCondition() {
    throw new UnsupportedOperationException("a handle has no condition");
  }

  private static RuntimeException rethrow(ExecutionException e) {
    Throwable cause = e.getCause();
    if (cause instanceof RuntimeException r) {
      return r;
    }
    return new IllegalStateException(cause);
  }
}
