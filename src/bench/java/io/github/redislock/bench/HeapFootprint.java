package io.github.redislock.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.ref.Reference;
import java.util.concurrent.locks.Lock;

/**
 * Heap per idle lock object and per held lock, measured with many instances: the live heap ({@link
 * MemoryMXBean} after {@code System.gc()}, the least of three readings) before creating N lock
 * objects of distinct names, after creating them, and after this thread acquired all N. The names
 * themselves are created before the first reading. The differences divided by N are the bytes
 * retained per lock object (including anything the implementation caches per name) and the extra
 * bytes per held lock (hold state, renewal tasks, watchdog entries). Background threads make each
 * reading noisy by some tens of kilobytes, so the figures are good to a few bytes per lock at N =
 * 5,000.
 */
final class HeapFootprint {

  /**
   * The result for one implementation.
   *
   * @param impl the implementation
   * @param count lock objects measured
   * @param bytesPerIdleLock retained bytes per lock object never locked
   * @param bytesPerHeldLock further retained bytes per lock while held
   * @param note remarks, empty when none
   */
  record Result(
      Implementation impl,
      int count,
      double bytesPerIdleLock,
      double bytesPerHeldLock,
      String note) {}

  private HeapFootprint() {}

  static Result measure(Implementation impl, LockUnderTest locks, int count)
      throws InterruptedException {
    String[] names = new String[count];
    for (int i = 0; i < count; i++) {
      names[i] = "bench:heap:" + impl.keyTag() + ":" + i; // the names are in the baseline
    }
    Lock[] held = new Lock[count];
    long base = liveHeap();
    for (int i = 0; i < count; i++) {
      held[i] = locks.newLock(names[i]);
    }
    long idle = liveHeap();
    int acquired = 0;
    String note = "";
    try {
      for (; acquired < count; acquired++) {
        held[acquired].lock();
      }
    } catch (RuntimeException e) {
      note = "acquired only " + acquired + ": " + e;
    }
    long busy = liveHeap();
    for (int i = 0; i < acquired; i++) {
      held[i].unlock();
    }
    Reference.reachabilityFence(held);
    Reference.reachabilityFence(names);
    return new Result(
        impl,
        count,
        (idle - base) / (double) count,
        acquired == 0 ? Double.NaN : (busy - idle) / (double) acquired,
        note);
  }

  /** The used heap after a full collection: the least of three readings. */
  static long liveHeap() throws InterruptedException {
    MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    long least = Long.MAX_VALUE;
    for (int i = 0; i < 3; i++) {
      System.gc();
      Thread.sleep(50);
      least = Math.min(least, memory.getHeapMemoryUsage().getUsed());
    }
    return least;
  }
}
