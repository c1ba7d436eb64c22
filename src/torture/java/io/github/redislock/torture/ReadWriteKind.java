package io.github.redislock.torture;

import io.github.redislock.RedisLockFactory;
import io.github.redislock.RedisReadWriteLock;
import java.util.SplittableRandom;

/**
 * {@link RedisLockFactory#getReadWriteLock}: 60% of sections take the read lock (mode {@code 'r'}:
 * they may overlap each other, never a write, and make no fenced writes), the others the write
 * lock, with its fencing token.
 */
final class ReadWriteKind implements TortureKind {
  @Override
  public String id() {
    return "read-write";
  }

  @Override
  public String namePrefix() {
    return "rw";
  }

  @Override
  public boolean available(RedisLockFactory locks) {
    try {
      locks.getReadWriteLock(namePrefix() + "0");
      return true;
    } catch (UnsupportedOperationException e) {
      return false;
    }
  }

  @Override
  public Target target(RedisLockFactory locks, String name, SplittableRandom random) {
    RedisReadWriteLock rw = locks.getReadWriteLock(name);
    if (random.nextInt(100) < 60) {
      return new Target(
          rw.readLock(), 'r', () -> 0L, () -> rw.getReadHoldCount() > 0, rw::getReadHoldCount);
    }
    RedisReadWriteLock.WriteLock write = rw.writeLock();
    return new Target(
        write, 'w', write::getFencingToken, write::isHeldByCurrentThread, write::getHoldCount);
  }
}
