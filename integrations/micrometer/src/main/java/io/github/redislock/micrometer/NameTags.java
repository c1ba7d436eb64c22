package io.github.redislock.micrometer;

import java.util.concurrent.ConcurrentHashMap;

/**
 * The value of the {@code name} tag for each lock name: the name itself for the first {@code
 * maxNames} distinct names seen, {@link RedisLockMetrics#OTHER_NAMES} for every later one. Names
 * once admitted keep their tag for the binder's life, so a meter never changes its tags.
 */
final class NameTags {
  private final int maxNames;
  private final ConcurrentHashMap<String, Boolean> admitted = new ConcurrentHashMap<>();

  NameTags(int maxNames) {
    this.maxNames = maxNames;
  }

  /** The tag value of {@code lockName}: itself if admitted (now or before), else the fold. */
  String tagOf(String lockName) {
    if (admitted.containsKey(lockName)) {
      return lockName;
    }
    if (admitted.size() >= maxNames) {
      return RedisLockMetrics.OTHER_NAMES;
    }
    synchronized (admitted) {
      if (admitted.size() < maxNames) {
        admitted.putIfAbsent(lockName, Boolean.TRUE);
      }
    }
    return admitted.containsKey(lockName) ? lockName : RedisLockMetrics.OTHER_NAMES;
  }
}
