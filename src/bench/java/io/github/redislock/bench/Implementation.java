package io.github.redislock.bench;

import java.util.Arrays;
import java.util.List;
import org.springframework.integration.redis.util.RedisLockRegistry.RedisLockType;

/**
 * The implementations compared, in report order: two floors, the single-node locks, then the
 * Redlock ones over five independent masters. The {@code ours-base} rows are this library as built
 * from another commit ({@link Baseline}); they run only when one is given.
 */
enum Implementation {
  PING_FLOOR("ping-floor", "floor: PING (1 round trip)", 1, false, false),
  RAW_FLOOR("raw-floor", "floor: SET NX PX + EVALSHA", 1, true, false),
  OURS("ours", "redis-lock", 1, true, true),
  OURS_ASYNC("ours-async", "redis-lock async hold", 1, true, false),
  OURS_BASE("ours-base", "ours-base", 1, true, true),
  REDISSON("redisson", "Redisson RLock", 1, true, true),
  SPRING_SPIN("spring-spin", "Spring RedisLockRegistry (spin)", 1, true, true),
  SPRING_PUBSUB("spring-pubsub", "Spring RedisLockRegistry (pub/sub)", 1, true, true),
  OURS_REDLOCK("ours-redlock", "redis-lock Redlock (5 nodes)", 5, true, true),
  OURS_BASE_REDLOCK("ours-base-redlock", "ours-base Redlock", 5, true, true),
  REDISSON_REDLOCK("redisson-redlock", "RedissonRedLock (5 nodes)", 5, true, true),
  OURS_FAIR("ours-fair", "redis-lock fair", 1, true, true),
  REDISSON_FAIR("redisson-fair", "Redisson RFairLock", 1, true, true);

  private final String id;
  private final String label;
  private final int nodes;
  private final boolean excludes;
  private final boolean reentrant;

  Implementation(String id, String label, int nodes, boolean excludes, boolean reentrant) {
    this.id = id;
    this.label = label;
    this.nodes = nodes;
    this.excludes = excludes;
    this.reentrant = reentrant;
  }

  String id() {
    return id;
  }

  /**
   * The report's name; a baseline row's names the baseline's commit, e.g. "ours-base (5ced63e)".
   */
  String label() {
    if (!baseline()) {
      return label;
    }
    String name = Baseline.installedName();
    return label + " (" + (name == null ? "no baseline" : name) + (nodes > 1 ? ", 5 nodes)" : ")");
  }

  /**
   * The implementation's part of the Redis key names it locks: its id, except that a baseline row's
   * is as long as its current row's ("base" for "ours"): a held lock keeps its keys in the heap,
   * and before and after must pay for keys of the same length.
   */
  String keyTag() {
    return baseline() ? "base" + current().id.substring("ours".length()) : id;
  }

  /** Whether it runs the library as built from the baseline commit. */
  boolean baseline() {
    return this == OURS_BASE || this == OURS_BASE_REDLOCK;
  }

  /** For a baseline row, the row of the current build it is compared with. */
  Implementation current() {
    return switch (this) {
      case OURS_BASE -> OURS;
      case OURS_BASE_REDLOCK -> OURS_REDLOCK;
      default -> throw new IllegalStateException(id + " is not a baseline row");
    };
  }

  /** The number of Redis servers it runs on: 1, or 5 for Redlock. */
  int nodes() {
    return nodes;
  }

  /** Whether it is a lock at all (the PING floor excludes nobody). */
  boolean excludes() {
    return excludes;
  }

  boolean reentrant() {
    return reentrant;
  }

  /** The Redisson row it is compared with: the same topology's, a fair lock's for fair rows. */
  Implementation redissonAnchor() {
    if (this == OURS_FAIR || this == REDISSON_FAIR) {
      return REDISSON_FAIR;
    }
    return nodes == 1 ? REDISSON : REDISSON_REDLOCK;
  }

  static Implementation byId(String id) {
    return Arrays.stream(values())
        .filter(i -> i.id.equals(id))
        .findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no implementation '" + id + "'"));
  }

  /**
   * Creates the implementation on the given servers.
   *
   * @param uris {@link #nodes()} server URIs
   * @param settings the benchmark settings (the raw floor's backoff)
   * @return a fresh instance; close it
   * @throws UnsupportedOperationException if the implementation is not available (yet), or it is a
   *     baseline row and no baseline is installed
   */
  LockUnderTest create(List<String> uris, BenchSettings settings) {
    if (uris.size() != nodes) {
      throw new IllegalArgumentException(id + " runs on " + nodes + " servers, got " + uris);
    }
    String uri = uris.get(0);
    return switch (this) {
      case PING_FLOOR -> new PingFloor(uri);
      case RAW_FLOOR -> new RawLockFloor(uri, settings.rawBackoffMicros());
      case OURS -> OursUnderTest.standalone(uri);
      case OURS_ASYNC -> OursUnderTest.standaloneAsync(uri);
      case OURS_BASE -> BaselineUnderTest.standalone(Baseline.require().loader(), uri);
      case REDISSON -> RedissonUnderTest.single(uri);
      case SPRING_SPIN -> new SpringUnderTest(uri, RedisLockType.SPIN_LOCK);
      case SPRING_PUBSUB -> new SpringUnderTest(uri, RedisLockType.PUB_SUB_LOCK);
      case OURS_REDLOCK -> OursUnderTest.redlock(uris);
      case OURS_BASE_REDLOCK -> BaselineUnderTest.redlock(Baseline.require().loader(), uris);
      case REDISSON_REDLOCK -> RedissonUnderTest.redLock(uris);
      case OURS_FAIR -> OursUnderTest.standaloneFair(uri);
      case REDISSON_FAIR -> RedissonUnderTest.singleFair(uri);
    };
  }
}
