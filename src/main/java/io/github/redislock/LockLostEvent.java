package io.github.redislock;

/**
 * Tells a {@linkplain RedisLockFactory.Builder#onLockLost listener} that a hold was lost before it
 * was released: the lease ran out without renewal, the key was deleted or taken by another owner,
 * or the factory was closed. The thread that held the lock learns it at its next {@code unlock()},
 * through a {@link LockLostException}.
 *
 * @param lockName the lock's name
 * @param fencingToken the fencing token of the lost hold, or 0 when its holder never asked for one
 * @param reason why the hold was lost, in words
 */
public record LockLostEvent(String lockName, long fencingToken, String reason) {}
