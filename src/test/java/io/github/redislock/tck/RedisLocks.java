package io.github.redislock.tck;

import static org.awaitility.Awaitility.await;

import io.github.redislock.RedisLockFactory;
import io.github.redislock.testing.RedisServer;
import io.github.redislock.testing.Timing;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/**
 * The library's locks on one {@code redis-server}: through one factory (every thread of the test in
 * one process), or through two (the test's other threads use a second factory on the same Redis, as
 * another process would).
 */
final class RedisLocks implements LockMaker {

  /** The companion hash's lifetime under the default lease of 30 s: max(2 × lease, 1 min). */
  private static final Duration COMPANION_TTL = Duration.ofMinutes(1);

  private final RedisServer server;
  private final RedisLockFactory mine;
  private final RedisLockFactory theirs;

  private RedisLocks(RedisServer server, int factories) {
    this.server = server;
    this.mine = factory();
    this.theirs = factories == 1 ? mine : factory();
  }

  /** The library's locks, every thread of a test using one factory. */
  static RedisLocks oneFactory(RedisServer server) {
    return new RedisLocks(server, 1);
  }

  /** The library's locks, the test's other threads using a second factory. */
  static RedisLocks twoFactories(RedisServer server) {
    return new RedisLocks(server, 2);
  }

  private RedisLockFactory factory() {
    return RedisLockFactory.builder().standalone(server.uri()).build();
  }

  @Override
  public Both<ReentrantLockView> lock(String name, boolean fair) {
    return new Both<>(
        ReentrantLockView.of(fair ? mine.getFairLock(name) : mine.getLock(name)),
        ReentrantLockView.of(fair ? theirs.getFairLock(name) : theirs.getLock(name)));
  }

  @Override
  public Optional<Both<ReadWriteLockView>> readWriteLock(String name, boolean fair) {
    if (fair) {
      return Optional.empty();
    }
    return Optional.of(
        new Both<>(
            ReadWriteLockView.of(mine.getReadWriteLock(name)),
            ReadWriteLockView.of(theirs.getReadWriteLock(name))));
  }

  @Override
  public boolean readersWaitForWaitingWriter(boolean fair) {
    return true;
  }

  @Override
  public boolean readLockCountCountsHolds() {
    return false;
  }

  /**
   * {@inheritDoc}
   *
   * <p>Here: no factory renews a hold, and of the name's keys only its companion hash may be left
   * ({@code {name}:lock-meta}, where conditions draw their sequence numbers), expiring within its
   * documented lifetime, {@code max(2 × lease, 1 min)}: the lock key, a fair queue, read shares,
   * writer intents and condition queues are gone.
   */
  @Override
  public void checkClean(String name) {
    for (RedisLockFactory factory : factories()) {
      await("no hold of the test renewed")
          .atMost(Timing.CLEAN_UP)
          .pollInterval(Duration.ofMillis(10))
          .until(() -> factory.activity().renewingHoldCount() == 0);
    }
    String companion = "{" + name + "}:lock-meta";
    try (Jedis jedis = server.jedis()) {
      await("of lock '" + name + "', at most " + companion + " left, expiring")
          .atMost(Timing.CLEAN_UP)
          .pollInterval(Duration.ofMillis(10))
          .pollInSameThread()
          .until(
              () -> {
                List<String> left = new ArrayList<>();
                for (String key : keysOf(jedis, name)) {
                  long pttl = jedis.pttl(key);
                  if (!key.equals(companion) || pttl < 0 || pttl > COMPANION_TTL.toMillis()) {
                    left.add(key + " (" + jedis.type(key) + ", pttl " + pttl + ")");
                  }
                }
                return left;
              },
              List::isEmpty);
    }
  }

  /**
   * {@inheritDoc}
   *
   * <p>Here: closes the factories, then the server; the {@code LeakCheck} of the test class then
   * finds no {@code redis-lock-} thread left, and no key without a TTL or subscription on the
   * server as it stops.
   */
  @Override
  public void close() {
    try {
      for (RedisLockFactory factory : factories()) {
        factory.close();
      }
    } finally {
      server.close();
    }
  }

  private List<RedisLockFactory> factories() {
    return mine == theirs ? List.of(mine) : List.of(mine, theirs);
  }

  /** The keys whose name contains {@code name}: the lock key and its companions. */
  private static List<String> keysOf(Jedis jedis, String name) {
    List<String> keys = new ArrayList<>();
    ScanParams params = new ScanParams().match("*" + globEscaped(name) + "*").count(1000);
    String cursor = ScanParams.SCAN_POINTER_START;
    do {
      ScanResult<String> page = jedis.scan(cursor, params);
      keys.addAll(page.getResult());
      cursor = page.getCursor();
    } while (!ScanParams.SCAN_POINTER_START.equals(cursor));
    return keys;
  }

  private static String globEscaped(String s) {
    return s.replaceAll("([*?\\[\\]\\\\])", "\\\\$1");
  }
}
