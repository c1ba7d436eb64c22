package io.github.redislock.torture;

import io.github.redislock.RedisDistributedLock;
import io.github.redislock.RedisLockFactory;
import java.util.SplittableRandom;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * A kind of lock the workers torture, one class each: the worker picks a kind, a name of the kind
 * and a lock form at random, takes the {@link Target} the kind gives, and runs a critical section
 * under it (see {@link Worker}).
 *
 * <p>To add a kind: implement this interface and list it in {@link #ALL}. Its names are its own
 * ({@link #name(int)}), so kinds never share a name; {@link AliasKind}'s names are the ones a
 * careless key layout would make share keys. A kind whose sections may overlap (the read side of a
 * read-write lock, {@link ReadWriteKind}) gives its read sections mode {@code 'r'}: the checker
 * lets read sections overlap each other, never a write, and they make no fenced writes. A kind
 * whose lock has conditions ({@link ConditionKind}) gives its {@link Target#condition()}: the
 * worker then signals it or awaits it inside some sections (see {@link Worker}).
 *
 * <p>A factory built with {@code redlock(...)} throws {@link UnsupportedOperationException} from
 * {@code getFairLock}, {@code getReadWriteLock} and {@code newCondition} by design; the workers
 * probe every kind and run those the factory offers, so under Redlock only {@link MutexKind} (and
 * the kinds that fall back on the plain lock: {@link AliasKind}, {@link HandleKind}).
 */
interface TortureKind {

  /** Every kind, in the order workers weigh them; those a factory lacks are skipped. */
  TortureKind[] ALL = {
    new MutexKind(),
    new FairKind(),
    new ReadWriteKind(),
    new ConditionKind(),
    new AliasKind(),
    new HandleKind()
  };

  /** The id of the kind whose names {@code name} is one of (the keepers' too). */
  static String kindOf(String name) {
    if (name.startsWith("rw")) {
      return "read-write";
    }
    return switch (name.charAt(0)) {
      case 'x' -> "mutex";
      case 'f' -> "fair";
      case 'c' -> "condition";
      case 'k' -> "keeper";
      case 'h' -> "handle";
      case 'm', '{' -> "alias";
      default -> "other";
    };
  }

  /** A short id, for logs and reports. */
  String id();

  /** The prefix of this kind's lock names, and of its probe's name. */
  String namePrefix();

  /** The name of index {@code index}: {@code prefix + index}, unless the kind says otherwise. */
  default String name(int index) {
    return namePrefix() + index;
  }

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
   * it, its hold count, and the condition of the lock its sections signal and await (null when
   * none).
   */
  record Target(
      Lock lock,
      char mode,
      LongSupplier token,
      BooleanSupplier heldByCurrentThread,
      IntSupplier holdCount,
      Supplier<Condition> condition) {

    Target(
        Lock lock,
        char mode,
        LongSupplier token,
        BooleanSupplier heldByCurrentThread,
        IntSupplier holdCount) {
      this(lock, mode, token, heldByCurrentThread, holdCount, null);
    }

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

  /**
   * The keepers' kind ({@link RedisLockFactory#getLock}, names {@code k0} to {@code k5}): one
   * thread of each worker, the keeper, takes only holds of one to three leases of these names, so
   * that renewals are under way whatever fault strikes (with short holds alone, a fault rarely
   * finds a hold old enough to need one). On a Redis Cluster of three shards the six names fall two
   * on each. Not in {@link #ALL}: the other threads leave these names to the keepers.
   */
  final class KeeperKind implements TortureKind {
    /** The number of keeper names. */
    static final int NAMES = 6;

    @Override
    public String id() {
      return "keeper";
    }

    @Override
    public String namePrefix() {
      return "k";
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

  /** {@link RedisLockFactory#getFairLock}: the fair lock. */
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

  /**
   * {@link RedisDistributedLock#newCondition(String)}: the plain lock (odd names) or the fair lock
   * (even names), whose sections signal or await one of two conditions of the name, {@code a} and
   * {@code b}, named so that every lock object of the name, in every JVM, has the same ones.
   */
  final class ConditionKind implements TortureKind {
    @Override
    public String id() {
      return "condition";
    }

    @Override
    public String namePrefix() {
      return "c";
    }

    @Override
    public boolean available(RedisLockFactory locks) {
      try {
        locks.getLock(namePrefix() + "0").newCondition("a");
        return true;
      } catch (UnsupportedOperationException e) {
        return false;
      }
    }

    @Override
    public Target target(RedisLockFactory locks, String name, SplittableRandom random) {
      boolean fair = (name.charAt(name.length() - 1) - '0') % 2 == 0;
      RedisDistributedLock lock = fair ? locks.getFairLock(name) : locks.getLock(name);
      String condition = random.nextBoolean() ? "a" : "b";
      return new Target(
          lock,
          'x',
          lock::getFencingToken,
          lock::isHeldByCurrentThread,
          lock::getHoldCount,
          () -> lock.newCondition(condition));
    }
  }
}
