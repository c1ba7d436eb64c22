package io.github.redislock.shedlock;

import org.junit.jupiter.api.BeforeAll;

/** ShedLock's provider tests on a Redis Cluster of three masters. */
class ClusterProviderTest extends ProviderContract {
  @BeforeAll
  static void startCluster() {
    startOn(Deployment::cluster);
  }
}
