package io.github.redislock.shedlock;

import org.junit.jupiter.api.BeforeAll;

/**
 * ShedLock's provider tests on a master, its replica and a Sentinel, reached through the Sentinel.
 */
class SentinelProviderTest extends ProviderContract {
  @BeforeAll
  static void startSentinel() {
    startOn(Deployment::sentinel);
  }
}
