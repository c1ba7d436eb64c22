package io.github.redislock.bench;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import org.redisson.Redisson;
import org.redisson.RedissonRedLock;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * Redisson with its default configuration: {@code RLock} from {@code getLock(name)} on one server,
 * or a {@code RedissonRedLock} over one client per master. {@code RedissonRedLock} is deprecated in
 * Redisson 4 (its Javadoc points to {@code RLock}/{@code RFencedLock} on a replicated deployment
 * instead) but still shipped, so it is measured as is.
 */
final class RedissonUnderTest implements LockUnderTest {
  private final List<RedissonClient> clients;
  private final boolean fair;

  private RedissonUnderTest(List<RedissonClient> clients) {
    this(clients, false);
  }

  private RedissonUnderTest(List<RedissonClient> clients, boolean fair) {
    this.clients = clients;
    this.fair = fair;
  }

  /** {@code Redisson.create(config)} with {@code useSingleServer().setAddress(uri)}. */
  static RedissonUnderTest single(String uri) {
    return new RedissonUnderTest(List.of(client(uri)));
  }

  /** {@code RFairLock} from {@code getFairLock(name)} on one server, default configuration. */
  static RedissonUnderTest singleFair(String uri) {
    return new RedissonUnderTest(List.of(client(uri)), true);
  }

  /** One client per master; each lock is a {@code RedissonRedLock} of their {@code RLock}s. */
  static RedissonUnderTest redLock(List<String> uris) {
    return new RedissonUnderTest(uris.stream().map(RedissonUnderTest::client).toList());
  }

  @Override
  @SuppressWarnings("deprecation") // RedissonRedLock: see the class comment
  public Lock newLock(String name) {
    if (clients.size() == 1) {
      return fair ? clients.get(0).getFairLock(name) : clients.get(0).getLock(name);
    }
    return new RedissonRedLock(clients.stream().map(c -> c.getLock(name)).toArray(RLock[]::new));
  }

  @Override
  public void close() {
    // No quiet period: the default shutdown() waits 2 s per client for nothing.
    clients.forEach(c -> c.shutdown(0, 5, TimeUnit.SECONDS));
  }

  private static RedissonClient client(String uri) {
    Config config = new Config();
    config.useSingleServer().setAddress(uri);
    return Redisson.create(config);
  }
}
