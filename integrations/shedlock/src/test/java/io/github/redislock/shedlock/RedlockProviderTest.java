package io.github.redislock.shedlock;

import org.junit.jupiter.api.BeforeAll;

/** ShedLock's provider tests on Redlock over three independent masters. */
class RedlockProviderTest extends ProviderContract {
  @BeforeAll
  static void startRedlock() {
    startOn(Deployment::redlock);
  }
}
