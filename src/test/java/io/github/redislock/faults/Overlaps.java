package io.github.redislock.faults;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Who holds each lock name in this JVM right now, as the holders themselves say: a thread enters
 * once its acquisition returned and leaves before it releases. An entry that finds a conflicting
 * holder (a second writer, a writer beside readers, a reader beside a writer) is an overlap: two
 * holders at once, recorded with both. Holds later found lost (their {@code unlock()} threw {@code
 * LockLostException}) excuse the overlaps they took part in: see {@link #overlapsNotExcused}.
 * Thread-safe.
 */
final class Overlaps {

  /** One hold as its holder announced it. */
  record Holder(long id, String who, boolean shared) {}

  /** Two holds at once. */
  record Overlap(Holder entering, List<Holder> present, long atNanos) {}

  private final Map<String, List<Holder>> holders = new HashMap<>(); // guarded by this
  private final List<Overlap> overlaps = new ArrayList<>(); // guarded by this
  private final Set<Long> lost = ConcurrentHashMap.newKeySet();

  /** Announces a hold of {@code name}; records an overlap when it conflicts with one present. */
  synchronized void enter(String name, Holder h) {
    List<Holder> present = holders.computeIfAbsent(name, k -> new ArrayList<>());
    List<Holder> conflicting = new ArrayList<>();
    for (Holder other : present) {
      if (!(h.shared() && other.shared())) {
        conflicting.add(other);
      }
    }
    if (!conflicting.isEmpty()) {
      overlaps.add(new Overlap(h, conflicting, System.nanoTime()));
    }
    present.add(h);
  }

  /** Ends a hold announced by {@link #enter}. */
  synchronized void exit(String name, Holder h) {
    List<Holder> present = holders.get(name);
    if (present == null || !present.remove(h)) {
      throw new IllegalStateException(h + " left " + name + " without having entered");
    }
    if (present.isEmpty()) {
      holders.remove(name);
    }
  }

  /** Notes that the hold {@code id} was lost (its release said so). */
  void lost(long id) {
    lost.add(id);
  }

  /** The overlaps so far in which no hold was lost. */
  synchronized List<Overlap> overlapsNotExcused() {
    List<Overlap> real = new ArrayList<>();
    for (Overlap o : overlaps) {
      boolean excused =
          lost.contains(o.entering().id())
              || o.present().stream().anyMatch(h -> lost.contains(h.id()));
      if (!excused) {
        real.add(o);
      }
    }
    return real;
  }

  /** The number of overlaps so far, excused or not. */
  synchronized int overlapCount() {
    return overlaps.size();
  }

  /** Whether anybody is announced as holding anything. */
  synchronized boolean isEmpty() {
    return holders.isEmpty();
  }
}
