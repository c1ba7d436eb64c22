package io.github.redislock.bench;

import io.github.redislock.RedisLockFactory;
import java.util.List;
import java.util.concurrent.locks.Lock;

/** This library, as a user builds it: a factory with default settings, one lock per name. */
final class OursUnderTest implements LockUnderTest {
  private final RedisLockFactory factory;

  private OursUnderTest(RedisLockFactory factory) {
    this.factory = factory;
  }

  /** On one node: {@code builder().standalone(uri).build()}. */
  static OursUnderTest standalone(String uri) {
    return new OursUnderTest(RedisLockFactory.builder().standalone(uri).build());
  }

  /**
   * Redlock over independent masters: {@code builder().redlock(uris...).build()}.
   *
   * @throws UnsupportedOperationException while the library does not implement Redlock
   */
  static OursUnderTest redlock(List<String> uris) {
    return new OursUnderTest(
        RedisLockFactory.builder().redlock(uris.toArray(String[]::new)).build());
  }

  @Override
  public Lock newLock(String name) {
    return factory.getLock(name);
  }

  @Override
  public void close() {
    factory.close();
  }
}
