package io.github.redislock.torture;

import io.github.redislock.RedisDistributedLock;
import io.github.redislock.RedisLock;
import io.github.redislock.RedisLockFactory;
import io.github.redislock.RedisReadWriteLock;
import java.util.SplittableRandom;

/**
 * Holds owned by a handle object ({@link RedisLock#acquireHoldAsync()} and its forms, see {@link
 * HandleRunner}), on names {@code h0}, {@code h1}...: the plain lock ({@code index % 4} is 0 or 3),
 * the fair lock (1) and the read or write lock of a read-write lock (2; 60% read). A factory that
 * lacks a kind (Redlock offers the plain lock only) gets the plain lock for that name. Its sections
 * are not run by the worker's thread-bound section ({@link #target} serves the probe only): each
 * operation starts an acquisition on the worker thread, runs its section on a thread of one pool
 * and releases on a thread of another, and records the same history as every other kind, so the
 * same checks apply.
 */
final class HandleKind implements TortureKind {

  /** One hold's lock and mode ({@code 'x'} exclusive, {@code 'w'} write, {@code 'r'} read). */
  record Choice(RedisLock lock, char mode, String what) {}

  @Override
  public String id() {
    return "handle";
  }

  @Override
  public String namePrefix() {
    return "h";
  }

  @Override
  public boolean available(RedisLockFactory locks) {
    return true;
  }

  @Override
  public Target target(RedisLockFactory locks, String name, SplittableRandom random) {
    return Target.exclusive(locks.getLock(name)); // the probe's
  }

  /** The lock one hold of {@code name} takes. */
  static Choice choose(RedisLockFactory locks, String name, SplittableRandom random) {
    int index = index(name);
    if (index % 4 == 1) {
      try {
        return new Choice(locks.getFairLock(name), 'x', "fair");
      } catch (UnsupportedOperationException e) {
        // Redlock: the plain lock
      }
    } else if (index % 4 == 2) {
      try {
        RedisReadWriteLock rw = locks.getReadWriteLock(name);
        return random.nextInt(100) < 60
            ? new Choice(rw.readLock(), 'r', "read")
            : new Choice(rw.writeLock(), 'w', "write");
      } catch (UnsupportedOperationException e) {
        // Redlock: the plain lock
      }
    }
    RedisDistributedLock plain = locks.getLock(name);
    return new Choice(plain, 'x', "plain");
  }

  private static int index(String name) {
    int i = name.length();
    while (i > 0 && Character.isDigit(name.charAt(i - 1))) {
      i--;
    }
    return i == name.length() ? 0 : Integer.parseInt(name.substring(i));
  }
}
