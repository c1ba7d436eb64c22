package io.github.redislock.shedlock.example;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * The example's overlap detector: counts the runs of the job on each node, and the most runs at
 * once (a counter up on entry and down on exit, which must never pass 1).
 */
public final class Runs {
  private final AtomicInteger running = new AtomicInteger();
  private final AtomicInteger mostAtOnce = new AtomicInteger();
  private final Map<String, LongAdder> byNode = new ConcurrentHashMap<>();

  void started(String node) {
    int now = running.incrementAndGet();
    mostAtOnce.accumulateAndGet(now, Math::max);
    byNode.computeIfAbsent(node, n -> new LongAdder()).increment();
  }

  void ended() {
    running.decrementAndGet();
  }

  /**
   * The runs a node started.
   *
   * @param node the node's name
   * @return how many
   */
  public long of(String node) {
    LongAdder runs = byNode.get(node);
    return runs == null ? 0 : runs.sum();
  }

  /**
   * The most runs there were at once, on all nodes.
   *
   * @return 1 if the job never ran on two nodes at once
   */
  public int mostAtOnce() {
    return mostAtOnce.get();
  }

  @Override
  public String toString() {
    return "Runs[byNode=" + byNode + ", mostAtOnce=" + mostAtOnce + "]";
  }
}
