package io.github.redislock.internal;

import io.github.redislock.internal.backend.LockKeys;
import io.github.redislock.internal.util.Bulkhead;
import io.github.redislock.internal.util.Threads;
import io.github.redislock.internal.util.Ticker;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Function;

/**
 * Bulkheads: one sort of a factory's background Redis calls (renewals; or timed attempts and
 * clean-ups), kept apart per Redis node. Each node that serves a held or awaited lock gets a {@link
 * Bulkhead} of its own, of at most {@code maxThreads} threads and {@code maxQueued} waiting calls,
 * so that a node that stops answering takes up its own lane only and every other node's calls go
 * on. The node of a call is the backend's ({@code LockBackend.nodeOf}). A lane whose threads all
 * ended idle is dropped, so a node that went away (a failover, a resharding) leaves nothing behind.
 */
public final class Lanes implements NodeExecutor, AutoCloseable {
  private final String purpose;
  private final Function<LockKeys, String> nodeOf;
  private final int maxThreads;
  private final int maxQueued;
  private final long keepAliveNanos;
  private final ConcurrentHashMap<String, Bulkhead> lanes = new ConcurrentHashMap<>();
  private volatile boolean closed;

  /**
   * Lanes made as needed.
   *
   * @param purpose the start of their threads' names, followed by the node's in brackets
   * @param nodeOf the node that serves some keys
   * @param maxThreads the most threads of one node's lane
   * @param maxQueued the most calls that wait for a thread of one node's lane
   * @param keepAliveNanos how long a thread waits for work before it ends
   */
  public Lanes(
      String purpose,
      Function<LockKeys, String> nodeOf,
      int maxThreads,
      int maxQueued,
      long keepAliveNanos) {
    this.purpose = purpose;
    this.nodeOf = nodeOf;
    this.maxThreads = maxThreads;
    this.maxQueued = maxQueued;
    this.keepAliveNanos = keepAliveNanos;
  }

  /**
   * {@inheritDoc}
   *
   * <p>The lane of a node retires when its last thread ends idle; a call that finds it retired
   * drops it and makes the node a new one. A lane made while the factory closes is closed by the
   * call that made it, so none outlives {@link #close()}.
   */
  @Override
  public void execute(LockKeys keys, Runnable task) {
    String node = nodeOf.apply(keys);
    while (true) {
      if (closed) {
        throw new RejectedExecutionException("the lock factory is closed");
      }
      Bulkhead lane = lanes.computeIfAbsent(node, this::newLane);
      switch (lane.offer(task)) {
        case ACCEPTED -> {
          if (closed) {
            lane.close();
          }
          return;
        }
        case RETIRED -> lanes.remove(node, lane);
        case FULL ->
            throw new RejectedExecutionException(
                "the "
                    + maxThreads
                    + " threads for Redis calls to "
                    + node
                    + " are busy and "
                    + maxQueued
                    + " more calls wait: Redis there is slower than the calls come");
        case CLOSED -> throw new RejectedExecutionException("the lock factory is closed");
      }
    }
  }

  private Bulkhead newLane(String node) {
    return new Bulkhead(
        Threads.daemon(purpose + "[" + node + "]"),
        maxThreads,
        maxQueued,
        keepAliveNanos,
        retired -> lanes.remove(node, retired));
  }

  @Override
  public void remove(LockKeys keys, Runnable task) {
    Bulkhead lane = lanes.get(nodeOf.apply(keys));
    if (lane != null) {
      lane.remove(task);
    }
  }

  /**
   * The threads of each node's lane, busy or idle: every lane, one per node with threads or queued
   * calls (a lane whose last thread just ended may show none, until it is dropped).
   */
  public Map<String, Integer> threadsPerNode() {
    Map<String, Integer> threads = new HashMap<>();
    lanes.forEach((node, lane) -> threads.put(node, lane.threads()));
    return threads;
  }

  /**
   * Refuses every later call and drops the queued ones; the callers of dropped or running timed
   * attempts stop waiting ({@link Bulkhead.Abortable}). Threads end after the call they run.
   */
  @Override
  public void close() {
    closed = true;
    lanes.values().forEach(Bulkhead::close);
  }

  /**
   * Waits, after {@link #close}, until every lane's threads have ended their calls, up to {@code
   * deadlineNanos} (real time: {@link Ticker#SYSTEM}).
   */
  public void awaitEnd(long deadlineNanos) throws InterruptedException {
    for (Bulkhead lane : lanes.values()) {
      lane.awaitEnd(deadlineNanos - Ticker.SYSTEM.read());
    }
  }
}
