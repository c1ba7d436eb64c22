package io.github.redislock.bench;

import io.github.redislock.RedisLockFactory;
import java.util.List;
import java.util.concurrent.locks.Lock;

/** This library, as a user builds it: a factory with default settings, one lock per name. */
final class OursUnderTest implements LockUnderTest {
  private final RedisLockFactory factory;
  private final boolean fair;
  private final boolean async;

  private OursUnderTest(RedisLockFactory factory) {
    this(factory, false, false);
  }

  private OursUnderTest(RedisLockFactory factory, boolean fair, boolean async) {
    this.factory = factory;
    this.fair = fair;
    this.async = async;
  }

  /** On one node: {@code builder().standalone(uri).build()}. */
  static OursUnderTest standalone(String uri) {
    return new OursUnderTest(RedisLockFactory.builder().standalone(uri).build());
  }

  /** Fair locks on one node: {@code builder().standalone(uri).build()}, {@code getFairLock}. */
  static OursUnderTest standaloneFair(String uri) {
    return new OursUnderTest(RedisLockFactory.builder().standalone(uri).build(), true, false);
  }

  /**
   * Holds owned by handles on one node, taken asynchronously: {@code getLock(name)}'s {@code
   * acquireHoldAsync()} and the handle's {@code release()} (see {@link AsyncHoldLock}).
   */
  static OursUnderTest standaloneAsync(String uri) {
    return new OursUnderTest(RedisLockFactory.builder().standalone(uri).build(), false, true);
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
    if (async) {
      return new AsyncHoldLock(factory.getLock(name));
    }
    return fair ? factory.getFairLock(name) : factory.getLock(name);
  }

  @Override
  public void close() {
    factory.close();
  }
}
