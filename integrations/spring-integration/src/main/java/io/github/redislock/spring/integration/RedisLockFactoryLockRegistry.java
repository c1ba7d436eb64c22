package io.github.redislock.spring.integration;

import io.github.redislock.LockLostException;
import io.github.redislock.RedisDistributedLock;
import io.github.redislock.RedisLockException;
import io.github.redislock.RedisLockFactory;
import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.springframework.integration.support.locks.DistributedLock;
import org.springframework.integration.support.locks.ExpirableLockRegistry;
import org.springframework.integration.support.locks.RenewableLockRegistry;
import org.springframework.integration.util.CheckedCallable;
import org.springframework.integration.util.CheckedRunnable;
import org.springframework.scheduling.TaskScheduler;

/**
 * A Spring Integration {@link org.springframework.integration.support.locks.LockRegistry
 * LockRegistry} whose locks are the {@link RedisDistributedLock}s of a {@link RedisLockFactory}:
 * for {@code LockRegistryLeaderInitiator}, aggregators and resequencers ({@code lockRegistry}),
 * {@code LockRequestHandlerAdvice}, and code of one's own, in place of Spring's {@code
 * RedisLockRegistry}.
 *
 * <pre>{@code
 * @Bean
 * RedisLockFactory redisLockFactory() {
 *   return RedisLockFactory.builder().standalone("redis://localhost:6379").build();
 * }
 *
 * @Bean
 * RedisLockFactoryLockRegistry lockRegistry(RedisLockFactory redisLockFactory) {
 *   return new RedisLockFactoryLockRegistry(redisLockFactory);
 * }
 * }</pre>
 *
 * <p>{@link #obtain(Object) obtain(key)} returns the lock of a {@code String} key, a {@link
 * RegistryLock}: the same object for the same key while a thread of this JVM holds it or is
 * acquiring it through the registry, and otherwise until the registry drops it from its cache (the
 * least recently used beyond {@link #setCacheCapacity capacity}, or by {@link
 * #expireUnusedOlderThan}). A dropped object is harmless: every lock object of a name is the same
 * lock, so a thread holding it through one may release it through another.
 *
 * <p>How it differs from Spring's {@code RedisLockRegistry}, whose interfaces it implements:
 *
 * <ul>
 *   <li><b>Leases and renewal.</b> Every hold is renewed by the factory in the background, under
 *       the factory's lease, until it is released: a holder that died frees the lock within one
 *       lease, and a live one keeps it however long its work takes. No {@link TaskScheduler} is
 *       needed; {@link #renewLock(Object)} checks the hold instead of extending it. A {@code ttl}
 *       given to {@link RegistryLock#lock(Duration)} is a maximum hold time, not a lease.
 *   <li><b>Lost holds.</b> A hold whose lease ran out, or whose key was deleted or taken, is lost:
 *       its holder's next {@code unlock()} or acquisition throws {@link LockLostException} (an
 *       {@link IllegalMonitorStateException}), where Spring's throws an {@link
 *       IllegalStateException} or a {@code ConcurrentModificationException}. Unlocking a lock the
 *       thread does not hold throws {@link IllegalMonitorStateException}, as {@code ReentrantLock}.
 *   <li><b>Reentrancy across registries.</b> Locks are reentrant per factory, not per registry: two
 *       registries on one factory hand out the same locks, which a thread holding one through the
 *       first re-enters through the second.
 *   <li><b>Fencing.</b> {@link RegistryLock#getFencingToken()} returns a number that grows with
 *       every hold of the lock, across processes, for the protected resource to refuse the writes
 *       of a holder whose hold was lost.
 *   <li><b>Failures.</b> A lock that cannot reach Redis throws {@link RedisLockException}; {@code
 *       lock()} keeps retrying through an outage instead.
 * </ul>
 *
 * <p>The registry does not own the factory: close the factory (a Spring bean of type {@code
 * AutoCloseable} is closed with its context) after the components that use the registry stopped.
 *
 * <p>Instances are thread-safe.
 */
public final class RedisLockFactoryLockRegistry
    implements ExpirableLockRegistry<DistributedLock>, RenewableLockRegistry<DistributedLock> {

  /** The number of unused locks kept for reuse by default: {@value}, as Spring's registry. */
  public static final int DEFAULT_CACHE_CAPACITY = 256;

  private final RedisLockFactory factory;
  private final String registryKey;

  /** The locks by key, least recently obtained first. Guarded by itself. */
  private final LinkedHashMap<String, RegistryLock> locks = new LinkedHashMap<>(16, 0.75f, true);

  private int cacheCapacity = DEFAULT_CACHE_CAPACITY;

  /**
   * A registry whose lock for key {@code k} is the factory's lock named {@code k} (whose Redis key
   * is the factory's key prefix followed by {@code k}).
   *
   * @param factory the factory of the locks; the caller closes it
   * @throws NullPointerException if {@code factory} is null
   */
  public RedisLockFactoryLockRegistry(RedisLockFactory factory) {
    this.factory = Objects.requireNonNull(factory, "factory");
    this.registryKey = null;
  }

  /**
   * A registry whose lock for key {@code k} is the factory's lock named {@code registryKey + ":" +
   * k}, as Spring's {@code RedisLockRegistry} names its keys: several registries on one factory
   * then lock apart.
   *
   * @param factory the factory of the locks; the caller closes it
   * @param registryKey the namespace of this registry's locks, not empty
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if {@code registryKey} is empty
   */
  public RedisLockFactoryLockRegistry(RedisLockFactory factory, String registryKey) {
    this.factory = Objects.requireNonNull(factory, "factory");
    Objects.requireNonNull(registryKey, "registryKey");
    if (registryKey.isEmpty()) {
      throw new IllegalArgumentException("registryKey must not be empty");
    }
    this.registryKey = registryKey;
  }

  /**
   * Returns the lock of {@code lockKey}: the factory's {@link RedisDistributedLock} of the name
   * {@code lockKey} (or {@code registryKey + ":" + lockKey}), as a {@link RegistryLock}. The same
   * object for the same key while it is in use (see the class description).
   *
   * @param lockKey the key, a {@code String}
   * @return the lock
   * @throws IllegalArgumentException if {@code lockKey} is null or not a {@code String} (as for
   *     Spring's {@code RedisLockRegistry}), is empty, or makes a name the factory refuses (see
   *     {@link RedisLockFactory#getLock})
   * @throws IllegalStateException if the factory is closed
   */
  @Override
  public RegistryLock obtain(Object lockKey) {
    String key = checkKey(lockKey);
    RegistryLock lock;
    synchronized (locks) {
      lock = locks.get(key);
      if (lock == null) {
        lock = new RegistryLock(key, factory.getLock(lockName(key)));
        locks.put(key, lock);
        trim(key);
      }
    }
    lock.touch();
    return lock;
  }

  /**
   * Drops from the registry's cache the locks last obtained, acquired or released more than {@code
   * age} milliseconds ago that no thread of this JVM holds or is acquiring through them. The locks
   * themselves are not affected (a hold is kept in Redis and by the factory, not by the lock
   * object): the next {@link #obtain} of a dropped key returns a new object for the same lock.
   *
   * @param age the age in milliseconds; a negative age drops every unused lock
   */
  @Override
  public void expireUnusedOlderThan(long age) {
    long now = System.nanoTime();
    long ageNanos = age < 0 ? -1 : TimeUnit.MILLISECONDS.toNanos(age);
    synchronized (locks) {
      locks.values().removeIf(lock -> now - lock.lastUsedNanos() > ageNanos && !lock.inUse());
    }
  }

  /**
   * Sets how many locks the registry keeps for reuse: once it holds more, it drops the least
   * recently obtained ones that are not in use (see the class description). Default {@value
   * #DEFAULT_CACHE_CAPACITY}. Locks in use are kept beyond it.
   *
   * @param cacheCapacity the number of locks to keep, zero or more
   * @throws IllegalArgumentException if it is negative
   */
  public void setCacheCapacity(int cacheCapacity) {
    if (cacheCapacity < 0) {
      throw new IllegalArgumentException(
          "cacheCapacity must not be negative, got " + cacheCapacity);
    }
    synchronized (locks) {
      this.cacheCapacity = cacheCapacity;
      trim(null);
    }
  }

  /**
   * Checks that the current thread holds the lock of {@code lockKey}, which the factory renews:
   * what a call of Spring's {@code RedisLockRegistry.renewLock} makes sure of.
   *
   * <p>The factory renews every hold in the background until it is released, so there is nothing to
   * extend: this method confirms that the current thread holds the lock (as the JVM knows it, from
   * the renewals so far) and returns. It does not shorten the hold to the registry's default
   * time-to-live either, as Spring's would: the hold stays until it is released.
   *
   * @param lockKey the key, a {@code String}
   * @throws IllegalArgumentException if {@code lockKey} is not a valid key (see {@link #obtain})
   * @throws IllegalStateException if the current thread does not hold the lock (it never took it,
   *     released it, or its hold was lost; a lost hold is still reported by the next {@code
   *     unlock()}), or it took it with a time-to-live ({@link RegistryLock#lock(Duration)}): such a
   *     hold ends with its time-to-live, which cannot be extended
   */
  @Override
  public void renewLock(Object lockKey) {
    obtain(lockKey).checkRenewable(lockKey);
  }

  /**
   * Checks that the current thread holds the lock of {@code lockKey}, as {@link #renewLock(Object)}
   * does; then the hold is kept for at least {@code ttl} more, as asked, since the factory renews
   * it until it is released.
   *
   * <p>Unlike Spring's {@code RedisLockRegistry}, the hold does not end {@code ttl} from now if not
   * renewed again: it ends when it is released. A hold taken with a time-to-live cannot be extended
   * and is refused.
   *
   * @param lockKey the key, a {@code String}
   * @param ttl how long the hold must stay valid, positive
   * @throws NullPointerException if {@code ttl} is null
   * @throws IllegalArgumentException if {@code ttl} is zero or negative, or {@code lockKey} is not
   *     a valid key
   * @throws IllegalStateException if the current thread does not hold the lock, or took it with a
   *     time-to-live (see {@link #renewLock(Object)})
   */
  @Override
  public void renewLock(Object lockKey, Duration ttl) {
    Objects.requireNonNull(ttl, "ttl");
    if (ttl.isNegative() || ttl.isZero()) {
      throw new IllegalArgumentException("ttl must be positive, got " + ttl);
    }
    renewLock(lockKey);
  }

  /**
   * Accepts a scheduler and does not use it: the factory renews every hold on its own threads, from
   * its acquisition to its release, which is what a renewal scheduler does for Spring's {@code
   * RedisLockRegistry}.
   *
   * @param renewalTaskScheduler a scheduler, not used
   * @throws NullPointerException if {@code renewalTaskScheduler} is null
   */
  @Override
  public void setRenewalTaskScheduler(TaskScheduler renewalTaskScheduler) {
    Objects.requireNonNull(renewalTaskScheduler, "renewalTaskScheduler");
  }

  /**
   * Runs {@code runnable} holding the lock of {@code lockKey}: acquires it as {@link
   * RegistryLock#lockInterruptibly()} does, runs the task and releases the lock, whether the task
   * returned or threw.
   *
   * <p>If the task throws, its exception passes through after the release; an exception of the
   * release is added to it as {@linkplain Throwable#getSuppressed() suppressed} (Spring's default
   * method would throw the release's exception instead, losing the task's). If the hold was lost
   * while the task ran, the task ran without mutual exclusion: the release throws {@link
   * LockLostException}.
   *
   * @param lockKey the key, a {@code String}
   * @param runnable the task
   * @param <E> the exception the task throws
   * @throws E what the task throws
   * @throws InterruptedException if the thread was interrupted while acquiring the lock (the task
   *     does not run)
   * @throws IllegalArgumentException if {@code lockKey} is not a valid key (see {@link #obtain})
   * @throws LockLostException if the hold was lost before the release
   * @throws RedisLockException if Redis answered with an error that waiting cannot cure (the task
   *     does not run), or could not confirm the release
   */
  @Override
  public <E extends Throwable> void executeLocked(Object lockKey, CheckedRunnable<E> runnable)
      throws E, InterruptedException {
    Objects.requireNonNull(runnable, "runnable");
    RegistryLock lock = obtain(lockKey);
    lock.lockInterruptibly();
    runHolding(
        lock,
        () -> {
          runnable.run();
          return null;
        });
  }

  /**
   * Calls {@code callable} holding the lock of {@code lockKey} and returns its result: as {@link
   * #executeLocked(Object, CheckedRunnable)}.
   *
   * @param lockKey the key, a {@code String}
   * @param callable the task
   * @param <T> the task's result
   * @param <E> the exception the task throws
   * @return the task's result
   * @throws E what the task throws
   * @throws InterruptedException if the thread was interrupted while acquiring the lock
   * @throws IllegalArgumentException if {@code lockKey} is not a valid key
   * @throws LockLostException if the hold was lost before the release: the result is not returned
   * @throws RedisLockException if Redis answered with an error that waiting cannot cure, or could
   *     not confirm the release
   */
  @Override
  public <T, E extends Throwable> T executeLocked(Object lockKey, CheckedCallable<T, E> callable)
      throws E, InterruptedException {
    Objects.requireNonNull(callable, "callable");
    RegistryLock lock = obtain(lockKey);
    lock.lockInterruptibly();
    return runHolding(lock, callable);
  }

  /**
   * Runs {@code runnable} holding the lock of {@code lockKey} if the lock can be acquired within
   * {@code waitLockDuration}, as {@link RegistryLock#tryLock(long, TimeUnit)} does; otherwise
   * throws {@link TimeoutException} without running it. Otherwise as {@link #executeLocked(Object,
   * CheckedRunnable)}.
   *
   * @param lockKey the key, a {@code String}
   * @param waitLockDuration the maximum time to wait for the lock
   * @param runnable the task
   * @param <E> the exception the task throws
   * @throws E what the task throws
   * @throws InterruptedException if the thread was interrupted while acquiring the lock
   * @throws TimeoutException if the lock stayed busy for {@code waitLockDuration}
   * @throws IllegalArgumentException if {@code lockKey} is not a valid key
   * @throws LockLostException if the hold was lost before the release
   * @throws RedisLockException if Redis could not be reached or answered with an error and the lock
   *     was not acquired in time, or could not confirm the release
   */
  @Override
  public <E extends Throwable> void executeLocked(
      Object lockKey, Duration waitLockDuration, CheckedRunnable<E> runnable)
      throws E, InterruptedException, TimeoutException {
    Objects.requireNonNull(runnable, "runnable");
    RegistryLock lock = obtainWithin(lockKey, waitLockDuration);
    runHolding(
        lock,
        () -> {
          runnable.run();
          return null;
        });
  }

  /**
   * Calls {@code callable} holding the lock of {@code lockKey} if the lock can be acquired within
   * {@code waitLockDuration}, and returns its result; otherwise throws {@link TimeoutException}
   * without calling it. As {@link #executeLocked(Object, Duration, CheckedRunnable)}.
   *
   * @param lockKey the key, a {@code String}
   * @param waitLockDuration the maximum time to wait for the lock
   * @param callable the task
   * @param <T> the task's result
   * @param <E> the exception the task throws
   * @return the task's result
   * @throws E what the task throws
   * @throws InterruptedException if the thread was interrupted while acquiring the lock
   * @throws TimeoutException if the lock stayed busy for {@code waitLockDuration}
   * @throws IllegalArgumentException if {@code lockKey} is not a valid key
   * @throws LockLostException if the hold was lost before the release
   * @throws RedisLockException if Redis could not be reached or answered with an error and the lock
   *     was not acquired in time, or could not confirm the release
   */
  @Override
  public <T, E extends Throwable> T executeLocked(
      Object lockKey, Duration waitLockDuration, CheckedCallable<T, E> callable)
      throws E, InterruptedException, TimeoutException {
    Objects.requireNonNull(callable, "callable");
    RegistryLock lock = obtainWithin(lockKey, waitLockDuration);
    return runHolding(lock, callable);
  }

  /**
   * Returns the factory whose locks this registry hands out.
   *
   * @return the factory
   */
  public RedisLockFactory getFactory() {
    return factory;
  }

  /**
   * Returns a description of the registry: its namespace and the number of locks it keeps.
   *
   * @return a description
   */
  @Override
  public String toString() {
    int cached;
    synchronized (locks) {
      cached = locks.size();
    }
    return "RedisLockFactoryLockRegistry[registryKey="
        + registryKey
        + ", cached locks="
        + cached
        + "]";
  }

  private RegistryLock obtainWithin(Object lockKey, Duration waitLockDuration)
      throws InterruptedException, TimeoutException {
    Objects.requireNonNull(waitLockDuration, "waitLockDuration");
    RegistryLock lock = obtain(lockKey);
    long nanos;
    try {
      nanos = waitLockDuration.toNanos();
    } catch (ArithmeticException tooLong) {
      nanos = waitLockDuration.isNegative() ? 0 : Long.MAX_VALUE;
    }
    if (!lock.tryLock(nanos, TimeUnit.NANOSECONDS)) {
      throw new TimeoutException(
          "The lock [%s] was not acquired in time: %s".formatted(lockKey, waitLockDuration));
    }
    return lock;
  }

  /**
   * Calls the task, the lock held, and releases it: the task's exception wins over the release's.
   */
  private static <T, E extends Throwable> T runHolding(
      RegistryLock lock, CheckedCallable<T, E> task) throws E {
    T result;
    try {
      result = task.call();
    } catch (Throwable failure) {
      try {
        lock.unlock();
      } catch (RuntimeException releaseFailure) {
        failure.addSuppressed(releaseFailure);
      }
      throw failure;
    }
    lock.unlock();
    return result;
  }

  private static String checkKey(Object lockKey) {
    if (lockKey == null) {
      throw new IllegalArgumentException("the lock key must not be null");
    }
    if (!(lockKey instanceof String key)) {
      throw new IllegalArgumentException(
          "the lock key must be a String, got a " + lockKey.getClass().getName());
    }
    if (key.isEmpty()) {
      throw new IllegalArgumentException("the lock key must not be empty");
    }
    return key;
  }

  private String lockName(String key) {
    return registryKey == null ? key : registryKey + ":" + key;
  }

  /** Drops the least recently obtained locks not in use, beyond the capacity, but {@code keep}. */
  private void trim(String keep) {
    if (locks.size() <= cacheCapacity) {
      return;
    }
    Iterator<Map.Entry<String, RegistryLock>> eldestFirst = locks.entrySet().iterator();
    while (locks.size() > cacheCapacity && eldestFirst.hasNext()) {
      Map.Entry<String, RegistryLock> entry = eldestFirst.next();
      if (!entry.getKey().equals(keep) && !entry.getValue().inUse()) {
        eldestFirst.remove();
      }
    }
  }
}
