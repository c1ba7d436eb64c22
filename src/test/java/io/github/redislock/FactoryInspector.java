package io.github.redislock;

/** Test access to a factory's internals, for checks that nothing leaks. */
public final class FactoryInspector {
  private FactoryInspector() {}

  /** Holds the factory is renewing. */
  public static int renewingCount(RedisLockFactory factory) {
    return factory.engine().renewingCount();
  }

  /** Wake-up channels the factory is subscribed to or subscribing to. */
  public static int subscribedCount(RedisLockFactory factory) {
    return factory.engine().subscribedCount();
  }

  /** Names some thread of this JVM holds or waits for, with local state in the factory. */
  public static int namesInUse(RedisLockFactory factory) {
    return factory.engine().namesInUse();
  }

  /** Threads of this JVM queued locally for the lock {@code name}, behind its local owner. */
  public static int queuedThreads(RedisLockFactory factory, String name) {
    return factory.engine().queuedThreads(name);
  }

  /** Releases after which the factory gave other processes the next turn. */
  public static long turnsGiven(RedisLockFactory factory) {
    return factory.engine().turnsGiven();
  }

  /**
   * Threads the factory runs for background calls to the Redis node {@code node} ({@code host:port}
   * of a Cluster master; {@code redis} for any other deployment).
   */
  public static int threadsOf(RedisLockFactory factory, String node) {
    return factory.engine().threadsOf(node);
  }

  /** The most threads a factory runs for background calls to one Redis node. */
  public static int maxThreadsPerNode() {
    return io.github.redislock.internal.LockEngine.maxThreadsPerNode();
  }

  /** Awaits on the factory's conditions woken without a signal they could see (spurious). */
  public static long spuriousWakeUps(RedisLockFactory factory) {
    return factory.engine().spuriousWakeUps();
  }
}
