package io.github.redislock.shedlock;

import org.junit.jupiter.api.BeforeAll;

/** ShedLock's provider tests on one {@code redis-server}. */
class StandaloneProviderTest extends ProviderContract {
  @BeforeAll
  static void startStandalone() {
    startOn(Deployment::standalone);
  }
}
