package io.github.redislock;

import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * What one factory is doing, as a snapshot: what {@link RedisLockFactory#activity()} returns. The
 * first four figures are levels, read now: the holds it renews, the lock names in use in this JVM,
 * the wake-up channels it listens to, and its background threads per Redis node. The last two are
 * counts since the factory was built: the turns it gave to other processes, and the spurious
 * wake-ups of its conditions. Unlike {@link LockStats} they need no setting: the factory keeps them
 * anyway.
 *
 * <p>Every figure is of this JVM's factory only: other processes' locks and threads are not in it.
 * Each figure is read on its own, without stopping the threads that change it, so a snapshot taken
 * while locks are taken and released is an estimate, as {@code ReentrantLock.getQueueLength()} is;
 * they are meant for monitoring (gauges) and for checking that nothing is left behind, not for
 * synchronization.
 *
 * <p>Instances are immutable and thread-safe.
 */
public final class LockActivity {
  private final int renewingHoldCount;
  private final int namesInUseCount;
  private final int subscribedChannelCount;
  private final Map<String, Integer> threadsPerNode;
  private final long turnsGivenCount;
  private final long spuriousWakeUpCount;

  private LockActivity(
      int renewingHoldCount,
      int namesInUseCount,
      int subscribedChannelCount,
      Map<String, Integer> threadsPerNode,
      long turnsGivenCount,
      long spuriousWakeUpCount) {
    this.renewingHoldCount = renewingHoldCount;
    this.namesInUseCount = namesInUseCount;
    this.subscribedChannelCount = subscribedChannelCount;
    this.threadsPerNode = threadsPerNode;
    this.turnsGivenCount = turnsGivenCount;
    this.spuriousWakeUpCount = spuriousWakeUpCount;
  }

  /**
   * Returns a snapshot with the given figures.
   *
   * @param renewingHoldCount the holds being renewed
   * @param namesInUseCount the lock names some thread holds or waits for
   * @param subscribedChannelCount the wake-up channels subscribed
   * @param threadsPerNode the background threads of each Redis node, by node; copied
   * @param turnsGivenCount the releases after which the factory gave the next turn away
   * @param spuriousWakeUpCount the awaits woken without a signal
   * @return the snapshot
   * @throws NullPointerException if {@code threadsPerNode}, or a node or count in it, is null
   * @throws IllegalArgumentException if a figure is negative
   */
  public static LockActivity of(
      int renewingHoldCount,
      int namesInUseCount,
      int subscribedChannelCount,
      Map<String, Integer> threadsPerNode,
      long turnsGivenCount,
      long spuriousWakeUpCount) {
    long[] all = {
      renewingHoldCount,
      namesInUseCount,
      subscribedChannelCount,
      turnsGivenCount,
      spuriousWakeUpCount
    };
    for (long count : all) {
      requireNotNegative(count);
    }
    Objects.requireNonNull(threadsPerNode, "threadsPerNode");
    TreeMap<String, Integer> threads = new TreeMap<>();
    threadsPerNode.forEach(
        (node, count) -> {
          Objects.requireNonNull(node, "node");
          Objects.requireNonNull(count, "count");
          requireNotNegative(count);
          threads.put(node, count);
        });
    return new LockActivity(
        renewingHoldCount,
        namesInUseCount,
        subscribedChannelCount,
        Collections.unmodifiableMap(threads),
        turnsGivenCount,
        spuriousWakeUpCount);
  }

  private static void requireNotNegative(long count) {
    if (count < 0) {
      throw new IllegalArgumentException("figures must not be negative, got " + count);
    }
  }

  /**
   * Returns the number of holds the factory is renewing: locks held now by threads of this JVM
   * (each read hold of a read-write lock counts, one per reading thread; a reentrant hold counts
   * once), whose leases it extends in the background. A hold leaves the count when it is released,
   * or when it is lost (its holder learns it at its next {@code unlock()}). Zero after {@link
   * RedisLockFactory#close()}.
   *
   * @return the number of holds being renewed
   */
  public int renewingHoldCount() {
    return renewingHoldCount;
  }

  /**
   * Returns the number of lock names in use in this JVM: distinct names that some thread holds the
   * lock of (plain, fair, read or write) or waits to acquire (a thread waiting for a read lock
   * counts once it holds it). A lost hold leaves the count at once, but for a read hold, which
   * counts until its thread's next call on the lock. The factory keeps state for each name in use,
   * and drops it with the name's last user, so that this count, not the number of lock objects or
   * names ever used, is what the factory's memory grows with.
   *
   * @return the number of names in use
   */
  public int namesInUseCount() {
    return namesInUseCount;
  }

  /**
   * Returns the number of wake-up channels the factory is subscribed to, or subscribing to: one per
   * lock that a thread of this JVM waits for, and one per condition that a thread awaits (a channel
   * lingers a moment after its last waiter left, for the next one). A lock's releases and a
   * condition's signals are published on its channel, so that waiters wake at once rather than
   * poll.
   *
   * @return the number of wake-up channels subscribed
   */
  public int subscribedChannelCount() {
    return subscribedChannelCount;
  }

  /**
   * Returns the factory's background threads for calls to each Redis node: timed attempts that
   * could overrun their deadline, clean-up releases, and renewals. A node is named {@code
   * host:port} on a Redis Cluster (the master of the lock's slot) and with Sentinel (the current
   * master), and {@code redis} for one server and for Redlock (whose masters count as one). Only
   * nodes with threads are in the map; threads end after 10 seconds idle. Each node has at most
   * {@link RedisLockFactory#MAX_THREADS_PER_NODE} of them.
   *
   * @return node to number of threads, sorted by node; unmodifiable
   */
  public Map<String, Integer> threadsPerNode() {
    return threadsPerNode;
  }

  /**
   * Returns the factory's background threads for calls to the Redis node {@code node}, as in {@link
   * #threadsPerNode()}.
   *
   * @param node the node's name: {@code host:port}, or {@code redis}
   * @return its number of threads, 0 for a node without any
   * @throws NullPointerException if {@code node} is null
   */
  public int threadsOf(String node) {
    return threadsPerNode.getOrDefault(Objects.requireNonNull(node, "node"), 0);
  }

  /**
   * Returns the number of releases after which this factory gave the next turn to other processes,
   * since it was built. When a plain lock or a write lock is released while threads of other
   * processes wait for it, the next attempt of this JVM on that name waits a moment (a few round
   * trips) before it tries, so that a waiter elsewhere gets the lock rather than this JVM taking it
   * again at once. A count that grows with the acquisitions tells of locks contended across
   * processes. Fair locks give their turns through their queue in Redis, and are not counted.
   *
   * @return the number of turns given
   */
  public long turnsGivenCount() {
    return turnsGivenCount;
  }

  /**
   * Returns the number of awaits on the factory's conditions that returned without a signal, since
   * it was built: awaits whose entry in Redis was lost (its lease ran out while Redis could not be
   * reached or the process was paused, or Redis restarted or failed over), so that they could not
   * tell whether they missed a signal. The {@code Condition} contract allows such wake-ups (which a
   * {@code while (!condition) await();} loop absorbs); a count that grows tells of Redis trouble.
   *
   * @return the number of spurious wake-ups
   */
  public long spuriousWakeUpCount() {
    return spuriousWakeUpCount;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof LockActivity a
        && renewingHoldCount == a.renewingHoldCount
        && namesInUseCount == a.namesInUseCount
        && subscribedChannelCount == a.subscribedChannelCount
        && threadsPerNode.equals(a.threadsPerNode)
        && turnsGivenCount == a.turnsGivenCount
        && spuriousWakeUpCount == a.spuriousWakeUpCount;
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        renewingHoldCount,
        namesInUseCount,
        subscribedChannelCount,
        threadsPerNode,
        turnsGivenCount,
        spuriousWakeUpCount);
  }

  @Override
  public String toString() {
    return "LockActivity{renewingHoldCount="
        + renewingHoldCount
        + ", namesInUseCount="
        + namesInUseCount
        + ", subscribedChannelCount="
        + subscribedChannelCount
        + ", threadsPerNode="
        + threadsPerNode
        + ", turnsGivenCount="
        + turnsGivenCount
        + ", spuriousWakeUpCount="
        + spuriousWakeUpCount
        + "}";
  }
}
