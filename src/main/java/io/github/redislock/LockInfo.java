package io.github.redislock;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * A snapshot of one lock name in Redis, taken by {@link RedisLockFactory#inspect(String)} without
 * taking the lock: whether it is held, for how much longer, its fencing counter, how many processes
 * wait for it, and, where holders describe themselves ({@link
 * RedisLockFactory.Builder#describeHolders()}), who holds it. For monitoring and operators, not for
 * synchronization: the state may have changed by the time it is read.
 *
 * <p>Instances are immutable.
 */
public final class LockInfo {
  private final String name;
  private final boolean locked;
  private final Duration remainingLease;
  private final long fencingCounter;
  private final int waiters;
  private final int readers;
  private final Holder holder;

  /**
   * Who holds a lock, as its holder described itself at its acquisition.
   *
   * @param host the holder's host name
   * @param pid the holder's process id
   * @param thread the name of the thread that acquired the lock in Redis, or {@code "LockHandle"}
   *     for a hold owned by a {@link io.github.redislock.LockHandle}
   * @param since when it acquired the lock, by the Redis server's clock
   */
  public record Holder(String host, long pid, String thread, Instant since) {

    /**
     * Checks the description.
     *
     * @param host the holder's host name
     * @param pid the holder's process id
     * @param thread the name of the thread that acquired the lock in Redis
     * @param since when it acquired the lock, by the Redis server's clock
     * @throws NullPointerException if {@code host}, {@code thread} or {@code since} is null
     */
    public Holder {
      Objects.requireNonNull(host, "host");
      Objects.requireNonNull(thread, "thread");
      Objects.requireNonNull(since, "since");
    }
  }

  LockInfo(
      String name,
      boolean locked,
      Duration remainingLease,
      long fencingCounter,
      int waiters,
      int readers,
      Holder holder) {
    this.name = Objects.requireNonNull(name, "name");
    this.locked = locked;
    this.remainingLease = remainingLease;
    this.fencingCounter = fencingCounter;
    this.waiters = waiters;
    this.readers = readers;
    this.holder = holder;
  }

  /**
   * Returns the lock's name, as given to {@link RedisLockFactory#inspect(String)}.
   *
   * @return the name
   */
  public String name() {
    return name;
  }

  /**
   * Returns whether the lock key exists: the lock is held by an owner of any client (for a
   * read-write name, the write lock is held; see {@link #readers()}). Under Redlock, whether a
   * majority of the masters hold the key for the same owner.
   *
   * @return whether the lock is held
   */
  public boolean isLocked() {
    return locked;
  }

  /**
   * Returns how much longer the lock key lives unless its holder renews it: the key's remaining
   * time to live. Under Redlock, how long a majority still holds it.
   *
   * @return the remaining lease, or empty if the lock is not held or its key never expires (set by
   *     another client without an expiry)
   */
  public Optional<Duration> remainingLease() {
    return Optional.ofNullable(remainingLease);
  }

  /**
   * Returns the lock's fencing counter: the last fencing token issued for the name, or 0 if none
   * was issued since the counter last expired. The next token is greater (see {@link
   * RedisDistributedLock#getFencingToken()}). Under Redlock, the greatest of the masters' counters.
   *
   * @return the fencing counter
   */
  public long fencingCounter() {
    return fencingCounter;
  }

  /**
   * Returns the number of processes waiting for the lock: the subscribers of its wake-up channel
   * ({@code PUBSUB NUMSUB}, or {@code PUBSUB SHARDNUMSUB} on a Redis Cluster). Each factory
   * subscribes once however many of its threads wait, and keeps the channel subscribed 200
   * milliseconds after its last waiter left. Under Redlock, the greatest number over the masters.
   *
   * @return the number of factories waiting for the lock
   */
  public int waiters() {
    return waiters;
  }

  /**
   * Returns the number of read holds of a read-write lock of this name, over every process: each
   * thread holding the read lock counts once. Zero for other names.
   *
   * @return the number of live read holds
   */
  public int readers() {
    return readers;
  }

  /**
   * Returns who holds the lock, when its holder described itself: its factory was built with {@link
   * RedisLockFactory.Builder#describeHolders()}.
   *
   * @return the holder, or empty if the lock is not held, or its holder did not describe itself
   */
  public Optional<Holder> holder() {
    return Optional.ofNullable(holder);
  }

  @Override
  public String toString() {
    return "LockInfo["
        + name
        + (locked ? ": locked, lease " + remainingLease : ": not locked")
        + ", fencing counter "
        + fencingCounter
        + ", waiters "
        + waiters
        + (readers > 0 ? ", readers " + readers : "")
        + (holder != null ? ", held by " + holder : "")
        + "]";
  }
}
