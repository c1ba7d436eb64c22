/**
 * ShedLock on redis-lock: {@link io.github.redislock.shedlock.RedisLockProvider}, a ShedLock {@code
 * LockProvider} whose locks are a {@link io.github.redislock.RedisLockFactory}'s, for
 * {@code @SchedulerLock} jobs and ShedLock's {@code LockingTaskExecutor}.
 */
package io.github.redislock.shedlock;
