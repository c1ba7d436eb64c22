package io.github.redislock.contract;

import io.github.redislock.RedisDistributedLock;
import io.github.redislock.RedisLock;
import io.github.redislock.RedisLockFactory;
import io.github.redislock.RedisReadWriteLock;

/**
 * The kinds of {@link RedisLock} whose handles and per-call leases {@link HandleContractTest} and
 * {@link LeaseContractTest} check: what a test needs to know of each, on the JVM side. Where each
 * keeps its holds and waiters in Redis is {@link FormsFixture}'s affair.
 */
enum HoldKind {
  /** {@code factory.getLock(name)}. */
  PLAIN,
  /** {@code factory.getFairLock(name)}: waiters queue in Redis. */
  FAIR,
  /** {@code factory.getReadWriteLock(name).writeLock()}: waiters leave an intent in Redis. */
  WRITE,
  /** {@code factory.getReadWriteLock(name).readLock()}: shared, excluded by writers. */
  READ;

  /** The lock of this kind named {@code name}, from {@code factory}. */
  RedisLock of(RedisLockFactory factory, String name) {
    return switch (this) {
      case PLAIN -> factory.getLock(name);
      case FAIR -> factory.getFairLock(name);
      case WRITE -> factory.getReadWriteLock(name).writeLock();
      case READ -> factory.getReadWriteLock(name).readLock();
    };
  }

  /**
   * A lock whose holds exclude the holds of this kind: the same kind for the exclusive ones, the
   * write lock of the name for the read lock (readers share).
   */
  RedisLock blockerOf(RedisLockFactory factory, String name) {
    return this == READ ? WRITE.of(factory, name) : of(factory, name);
  }

  /** Whether holds of this kind share the lock with each other. */
  boolean shared() {
    return this == READ;
  }

  /** Whether holds of this kind have fencing tokens. */
  boolean fenced() {
    return this != READ;
  }

  /** The fencing token of the current thread's hold of {@code lock}, a lock of this kind. */
  long threadFencingToken(RedisLock lock) {
    return switch (this) {
      case PLAIN, FAIR -> ((RedisDistributedLock) lock).getFencingToken();
      case WRITE -> ((RedisReadWriteLock.WriteLock) lock).getFencingToken();
      case READ -> throw new UnsupportedOperationException("read holds have no fencing token");
    };
  }

  /** How many times the current thread holds the lock of this kind named {@code name}. */
  int holdCount(RedisLockFactory factory, String name) {
    return switch (this) {
      case PLAIN -> factory.getLock(name).getHoldCount();
      case FAIR -> factory.getFairLock(name).getHoldCount();
      case WRITE -> factory.getReadWriteLock(name).getWriteHoldCount();
      case READ -> factory.getReadWriteLock(name).getReadHoldCount();
    };
  }

  /** Whether anybody, in any process, holds the lock named {@code name}, as Redis says. */
  boolean isLocked(RedisLockFactory factory, String name) {
    return switch (this) {
      case PLAIN, FAIR -> factory.getLock(name).isLocked();
      case WRITE, READ -> {
        RedisReadWriteLock rw = factory.getReadWriteLock(name);
        yield rw.isWriteLocked() || rw.getReadLockCount() > 0;
      }
    };
  }
}
