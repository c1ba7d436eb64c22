package io.github.redislock.shedlock;

import io.github.redislock.LockHandle;
import io.github.redislock.LockLostException;
import io.github.redislock.RedisLock;
import io.github.redislock.RedisLockException;
import io.github.redislock.RedisLockFactory;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import net.javacrumbs.shedlock.core.AbstractSimpleLock;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.support.LockException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A ShedLock {@link ExtensibleLockProvider} whose locks are the locks of a {@link
 * RedisLockFactory}: a job runs while its process holds the lock of the job's name, taken as a
 * {@link LockHandle} with a lease of the job's {@code lockAtMostFor}, so that it works on whatever
 * the factory was built for: one server, a Sentinel-managed master, a Cluster, or Redlock over N
 * masters.
 *
 * <pre>{@code
 * @Bean
 * LockProvider lockProvider(RedisLockFactory redisLockFactory) {
 *   return new RedisLockProvider(redisLockFactory);
 * }
 * }</pre>
 *
 * <ul>
 *   <li><b>{@link #lock lock}</b> makes one attempt to take the lock named {@code prefix +
 *       configuration.getName()} (its Redis key is the factory's key prefix followed by that name),
 *       with a lease that ends at {@code lockAtMostUntil}. The lease is not renewed: the key
 *       expires then, whatever happens to the process. Empty when another owner holds the lock.
 *   <li><b>{@link SimpleLock#unlock() unlock}</b> releases the lock at once when {@code
 *       lockAtLeastUntil} has passed; before, it leaves the key in Redis until {@code
 *       lockAtLeastUntil}, when it expires, so that no node runs the job again sooner. A lock whose
 *       {@code lockAtMostFor} ran out before the job ended is logged, not thrown: another node may
 *       have run the job meanwhile.
 *   <li><b>{@link SimpleLock#extend extend}</b> ({@code LockExtender.extendActiveLock}) sets the
 *       lease again, to end {@code lockAtMostFor} from now, if the lock is still held; it returns a
 *       new lock for the new configuration, and the old one can no longer be used. Empty when the
 *       lock was lost.
 * </ul>
 *
 * <p>{@code lockAtMostFor} may be at most one day, the longest lease redis-lock gives; a longer one
 * is refused with {@link IllegalArgumentException}. A lock taken less than 50 ms before its {@code
 * lockAtMostUntil} (or after it) gets a lease of 50 ms, the shortest an acquisition reliably fits
 * in; such a lock can no longer be extended once its {@code lockAtMostUntil} passed. Redis failures
 * are thrown as ShedLock's {@link LockException}, with the {@link RedisLockException} as the cause:
 * a failing Redis is never taken for a busy lock.
 *
 * <p>The provider does not own the factory: close the factory after the schedulers that use the
 * provider stopped. Closing it ends the holds still held (the keys expire with their leases).
 * Instances are thread-safe; each {@link SimpleLock} they return is for one thread, as ShedLock
 * uses it.
 */
public final class RedisLockProvider implements ExtensibleLockProvider {
  private static final Logger log = LoggerFactory.getLogger(RedisLockProvider.class);

  /**
   * The shortest lease the provider asks for: a lock whose {@code lockAtMostUntil} is nearer (or
   * passed already) gets it. Shorter, an acquisition on a loaded machine, or of a Redlock lock
   * (whose validity is the lease less 1% and 2 ms), would often take longer than the lease, which
   * redis-lock refuses as worthless.
   */
  private static final Duration MIN_LEASE = Duration.ofMillis(50);

  /** The longest lease redis-lock gives. */
  private static final Duration MAX_LEASE = Duration.ofDays(1);

  private final RedisLockFactory factory;
  private final String namePrefix;

  /**
   * A provider whose locks are named as ShedLock's: the lock of the job {@code "report"} is the
   * factory's lock {@code "report"}.
   *
   * @param factory the factory whose locks the jobs take
   * @throws NullPointerException if {@code factory} is null
   */
  public RedisLockProvider(RedisLockFactory factory) {
    this(factory, "");
  }

  /**
   * A provider whose locks are named {@code namePrefix} followed by ShedLock's name: with the
   * prefix {@code "jobs:"}, the lock of the job {@code "report"} is the factory's lock {@code
   * "jobs:report"}. The factory's own key prefix comes before both in the Redis key.
   *
   * @param factory the factory whose locks the jobs take
   * @param namePrefix the prefix of every lock name, possibly empty
   * @throws NullPointerException if an argument is null
   */
  public RedisLockProvider(RedisLockFactory factory, String namePrefix) {
    this.factory = Objects.requireNonNull(factory, "factory");
    this.namePrefix = Objects.requireNonNull(namePrefix, "namePrefix");
  }

  /**
   * Makes one attempt to take the lock of {@code configuration}'s name, with a lease that ends at
   * its {@code lockAtMostUntil} and is not renewed.
   *
   * @param configuration the job's lock configuration
   * @return the lock, or empty if another owner holds it
   * @throws IllegalArgumentException if the lock would be held longer than one day, or its name is
   *     one the factory refuses
   * @throws LockException if Redis could not be reached or answered with an error
   * @throws IllegalStateException if the factory is closed
   */
  @Override
  public Optional<SimpleLock> lock(LockConfiguration configuration) {
    Duration lease = lease(configuration);
    RedisLock lock = factory.getLock(namePrefix + configuration.getName());
    Optional<LockHandle> handle;
    try {
      handle = lock.tryAcquireHold(Duration.ZERO, lease);
    } catch (InterruptedException e) { // the scheduler is stopping: the job does not run
      Thread.currentThread().interrupt();
      return Optional.empty();
    } catch (RedisLockException e) {
      throw new LockException("cannot lock '" + lock.getName() + "' in Redis", e);
    }
    return handle.map(held -> new HeldLock(held, configuration));
  }

  /** The lease that ends at {@code configuration}'s {@code lockAtMostUntil}, at least 50 ms. */
  private static Duration lease(LockConfiguration configuration) {
    Duration lease = until(configuration.getLockAtMostUntil());
    if (lease.compareTo(MAX_LEASE) > 0) {
      throw new IllegalArgumentException(
          "lockAtMostFor of '"
              + configuration.getName()
              + "' ends in "
              + lease
              + ": redis-lock holds a lock at most "
              + MAX_LEASE
              + " without renewal");
    }
    return lease.compareTo(MIN_LEASE) < 0 ? MIN_LEASE : lease;
  }

  /** The time from now (ShedLock's clock) until {@code instant}: negative once it passed. */
  private static Duration until(Instant instant) {
    return Duration.between(ClockProvider.now(), instant);
  }

  @Override
  public String toString() {
    return "RedisLockProvider[namePrefix='" + namePrefix + "', factory=" + factory + "]";
  }

  /** A job's hold: its handle, under the configuration it was taken or last extended with. */
  private static final class HeldLock extends AbstractSimpleLock {
    private final LockHandle handle;

    HeldLock(LockHandle handle, LockConfiguration configuration) {
      super(configuration);
      this.handle = handle;
    }

    @Override
    protected void doUnlock() {
      Duration keep = until(lockConfiguration.getLockAtLeastUntil());
      try {
        if (keep.isNegative() || keep.isZero()) {
          handle.release();
        } else {
          handle.releaseAfter(keep); // the key stays until lockAtLeastUntil, then expires
        }
      } catch (LockLostException e) { // its lease (lockAtMostFor) ran out, most likely
        log.warn(
            "the lock '{}' was lost before its job ended (lockAtMostFor {}): another node may have"
                + " run the job meanwhile; {}",
            handle.name(),
            lockConfiguration.getLockAtMostFor(),
            e.getMessage());
      } catch (RedisLockException e) {
        throw new LockException(
            "cannot unlock '" + handle.name() + "' in Redis: it expires with its lease", e);
      }
    }

    @Override
    protected Optional<SimpleLock> doExtend(LockConfiguration newConfiguration) {
      if (expired(lockConfiguration)) { // held by the shortest lease only: too late to extend
        forget();
        return Optional.empty();
      }
      boolean extended;
      try {
        extended = handle.extend(lease(newConfiguration));
      } catch (RedisLockException e) {
        throw new LockException("cannot extend '" + handle.name() + "' in Redis", e);
      }
      if (extended) {
        return Optional.of(new HeldLock(handle, newConfiguration));
      }
      forget();
      return Optional.empty();
    }

    private static boolean expired(LockConfiguration configuration) {
      Duration left = until(configuration.getLockAtMostUntil());
      return left.isNegative() || left.isZero();
    }

    /** Releases (or forgets, if it was lost) a hold nobody will unlock. */
    private void forget() {
      try {
        handle.close();
      } catch (IllegalMonitorStateException e) { // a LockLostException: reported by the factory
        // lost, as extend said
      } catch (RedisLockException e) {
        log.debug("releasing the hold of '{}' failed: it expires with its lease", handle.name(), e);
      }
    }

    @Override
    public String toString() {
      return "RedisLockProvider.HeldLock[" + handle.name() + ", " + lockConfiguration + "]";
    }
  }
}
