package io.github.redislock.internal;

import io.github.redislock.LockLostException;
import io.github.redislock.RedisLockException;
import io.github.redislock.internal.backend.ReadWriteOps;
import io.github.redislock.internal.backend.Release;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * The read holds of a factory's read-write locks: for each thread that reads a name, its share in
 * Redis (a {@link Hold} of a {@link ReadKind}, renewed by the {@link LeaseRenewer} like every hold)
 * and its reentrancy count. Readers do not exclude each other, so there is no local queue: each
 * reading thread runs its own {@link RedisWait} and holds its own share, and the round trips of
 * several readers of one JVM run in parallel. Only the first acquisition and the last release of a
 * thread reach Redis.
 *
 * <p>A share found lost (by renewal, or the factory's close) stays recorded until its thread's next
 * call on the name, which throws {@link LockLostException} and forgets it: there is no local lock
 * to revoke, since nobody in this JVM waits for a reader.
 */
final class ReadHolds {
  private static final long MAX_TIMEOUT_NANOS = Long.MAX_VALUE / 4;

  private final Toolkit t;
  private final ReadWriteOps ops;
  private final ConcurrentHashMap<Reader, Share> shares = new ConcurrentHashMap<>();

  /** A thread reading a name. */
  private record Reader(Thread thread, String name) {
    static Reader current(LockName name) {
      return new Reader(Thread.currentThread(), name.name);
    }
  }

  /** One thread's read hold of one name. */
  private static final class Share {
    final Hold hold;

    /** The thread's holds; only that thread reads or writes it. */
    int count = 1;

    Share(Hold hold) {
      this.hold = hold;
    }
  }

  ReadHolds(Toolkit toolkit, ReadWriteOps ops) {
    this.t = toolkit;
    this.ops = ops;
  }

  // ---- Lock ----

  /**
   * Acquires the read lock of {@code name} for the calling thread.
   *
   * @param mode how to wait; {@link Mode#ONCE} with {@code barge} is {@code tryLock()}, which takes
   *     a share whatever writers wait
   * @param writeHold the calling thread's write hold of the name (a downgrade), or {@code null}
   * @return whether the read lock was acquired
   */
  boolean acquire(LockName name, Mode mode, long timeoutNanos, boolean barge, Hold writeHold)
      throws InterruptedException {
    t.lifecycle().checkOpen();
    if ((mode == Mode.INTERRUPTIBLE || mode == Mode.TIMED) && Thread.interrupted()) {
      throw new InterruptedException();
    }
    long deadline = t.ticker().read() + Math.min(timeoutNanos, MAX_TIMEOUT_NANOS);
    Reader reader = Reader.current(name);
    Share held = shares.get(reader);
    if (held != null) {
      if (held.hold.isLost()) {
        shares.remove(reader);
        throw new LockLostException(name.name, held.hold.lostReason());
      }
      if (held.count == Integer.MAX_VALUE) {
        throw new Error("Maximum lock count exceeded");
      }
      held.count++;
      return true;
    }
    ReadKind kind = new ReadKind(ops, writeHold == null ? "" : writeHold.token, barge);
    Telemetry.Acquiring seen = t.telemetry().acquiring(); // null: nothing records it
    RedisWait wait =
        new RedisWait(t.waiting(), name.name, name.keys, kind, mode, deadline).watchedBy(seen);
    boolean acquired = false;
    Throwable failure = null;
    try {
      acquired = wait.run();
    } catch (Throwable e) {
      failure = e;
      throw e;
    } finally {
      if (seen != null) {
        t.telemetry().acquisitionEnded(seen, name.name, kind, mode, acquired, failure);
      }
    }
    if (!acquired) {
      return false;
    }
    long start = wait.attemptStart();
    Hold hold =
        new Hold(
            kind,
            null, // nothing local to revoke: see the class comment
            name.name,
            name.keys,
            wait.token(),
            0,
            wait.granted().grant(),
            start,
            start + t.validNanos(),
            t.ticker());
    hold.limitTo(t.settings().maxHoldNanos);
    shares.put(reader, new Share(hold));
    if (!t.renewer().start(hold)) {
      shares.remove(reader);
      t.releases().releaseLater(hold);
      t.lifecycle().checkOpen();
    }
    return true;
  }

  /** Releases one read hold of the calling thread; the last gives its share back in Redis. */
  void unlock(LockName name) {
    Reader reader = Reader.current(name);
    Share share = shares.get(reader);
    if (share == null) {
      throw new IllegalMonitorStateException(
          "the current thread does not hold the read lock of '" + name.name + "'");
    }
    Hold hold = share.hold;
    if (hold.isLost()) {
      shares.remove(reader);
      throw new LockLostException(name.name, hold.lostReason());
    }
    if (share.count > 1) {
      share.count--;
      return;
    }
    shares.remove(reader);
    if (!hold.beginRelease()) {
      throw new LockLostException(name.name, hold.lostReason());
    }
    Release release;
    try {
      release = t.releases().releaseWithRetry(hold);
    } catch (RedisLockException e) {
      t.telemetry().redisErrors(name.name, 1);
      throw new RedisLockException(
          "the read lock of '"
              + name.name
              + "' was released in this JVM, but Redis could not confirm the release;"
              + " its share expires within the lease ("
              + t.settings().leaseMillis
              + " ms)",
          e);
    }
    t.telemetry().released(hold, hold.kind, release.released());
    if (!release.released()) {
      throw new LockLostException(name.name, "the read share expired or was removed before unlock");
    }
  }

  // ---- queries ----

  /** The calling thread's read holds of {@code name}; 0 once its share was lost. */
  int holdCount(LockName name) {
    Share share = shares.get(Reader.current(name));
    return share != null && share.hold.isValid() ? share.count : 0;
  }

  /**
   * Whether the calling thread holds (or held, and was not told it lost) a share of {@code name}.
   */
  boolean isRecorded(LockName name) {
    return shares.containsKey(Reader.current(name));
  }

  /** The live read shares of {@code name} in Redis, in every process. */
  int readers(LockName name) {
    t.lifecycle().checkOpen();
    return ops.readers(name.keys);
  }

  /** Every read hold: held, or lost but not yet learnt of by its thread. */
  void forEachHold(Consumer<Hold> action) {
    for (Share share : shares.values()) {
      action.accept(share.hold);
    }
  }

  /** Adds the names some thread of this JVM holds a read lock of (lost or not) to {@code names}. */
  void namesInUse(Set<String> names) {
    shares.keySet().forEach(reader -> names.add(reader.name()));
  }
}
