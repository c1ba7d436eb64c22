package io.github.redislock.torture;

import io.github.redislock.RedisDistributedLock;
import io.github.redislock.RedisLockFactory;
import java.util.SplittableRandom;
import java.util.concurrent.locks.Lock;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

/**
 * A kind of lock the workers torture, one class each: the worker picks a kind, a name of the kind
 * and a lock form at random, takes the {@link Target} the kind gives, and runs a critical section
 * under it (see {@link Worker}).
 *
 * <p>To add a kind: implement this interface and list it in {@link #ALL}. Its names are its own
 * ({@link #namePrefix()}), so kinds never share a key. A kind whose sections may overlap (the read
 * side of a read-write lock) gives its read sections mode {@code 'r'}: the checker lets read
 * sections overlap each other, never a write, and they make no fenced writes.
 *
 * <p>TODO(#11): once issue 10's read-write locks and conditions are on main, add {@code
 * ReadWriteKind} (readLock() sections of mode 'r' without a token, writeLock() sections of mode 'w'
 * with the write lock's fencing token: written and run against issue 10's branch, on branch {@code
 * i11-torture-rw}) and {@code ConditionKind} (a section that awaits a condition with a timeout
 * records its end before {@code await} and a new start, with the new hold's token, after it
 * returns; another thread signals). {@link FairKind} already runs when {@code getFairLock} stops
 * throwing {@link UnsupportedOperationException}.
 */
interface TortureKind {

  /** Every kind, in the order workers weigh them; those a factory lacks are skipped. */
  TortureKind[] ALL = {new MutexKind(), new FairKind(), new ReadWriteKind()};

  /** A short id, for logs and reports. */
  String id();

  /** The prefix of this kind's lock names: {@code prefix + index}. */
  String namePrefix();

  /**
   * Whether the factory offers this kind (it may throw {@link UnsupportedOperationException} until
   * the kind is built).
   */
  boolean available(RedisLockFactory locks);

  /** The lock one section takes on {@code name}, and how its hold is seen. */
  Target target(RedisLockFactory locks, String name, SplittableRandom random);

  /**
   * One section's lock: the lock, its mode ({@code 'x'} exclusive, {@code 'w'} write, {@code 'r'}
   * shared read), its hold's fencing token (0 when it has none), whether the current thread holds
   * it and its hold count.
   */
  record Target(
      Lock lock,
      char mode,
      LongSupplier token,
      BooleanSupplier heldByCurrentThread,
      java.util.function.IntSupplier holdCount) {

    static Target exclusive(RedisDistributedLock lock) {
      return new Target(
          lock, 'x', lock::getFencingToken, lock::isHeldByCurrentThread, lock::getHoldCount);
    }
  }

  /** {@link RedisLockFactory#getLock}: the plain reentrant lock. */
  final class MutexKind implements TortureKind {
    @Override
    public String id() {
      return "mutex";
    }

    @Override
    public String namePrefix() {
      return "x";
    }

    @Override
    public boolean available(RedisLockFactory locks) {
      return true;
    }

    @Override
    public Target target(RedisLockFactory locks, String name, SplittableRandom random) {
      return Target.exclusive(locks.getLock(name));
    }
  }

  /** {@link RedisLockFactory#getFairLock}: runs once fair locks exist (issue 10). */
  final class FairKind implements TortureKind {
    @Override
    public String id() {
      return "fair";
    }

    @Override
    public String namePrefix() {
      return "f";
    }

    @Override
    public boolean available(RedisLockFactory locks) {
      try {
        locks.getFairLock(namePrefix() + "0");
        return true;
      } catch (UnsupportedOperationException e) {
        return false;
      }
    }

    @Override
    public Target target(RedisLockFactory locks, String name, SplittableRandom random) {
      return Target.exclusive(locks.getFairLock(name));
    }
  }
}
