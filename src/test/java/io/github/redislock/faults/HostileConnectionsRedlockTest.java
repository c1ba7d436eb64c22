package io.github.redislock.faults;

import io.github.redislock.testing.IntegrationTest;
import io.github.redislock.testing.ProxiedDeployment;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link HostileConnectionsTest}'s workload and checks under Redlock over three masters, each
 * behind its proxy, each stage's fault on one master: the plain lock (the only kind Redlock has:
 * fair and read-write locks and conditions are refused there), with the masters given as URIs (the
 * factory's clients, RESP3 by Jedis's default), and as the caller's RESP3 clients with client-side
 * caching, whose connections track the keys they read, so that Redis itself pushes invalidation
 * frames on them. Longer runs and replays as in {@link HostileConnectionsTest}.
 */
@IntegrationTest
class HostileConnectionsRedlockTest {
  private static ProxiedDeployment deployment;

  @BeforeAll
  static void start() {
    deployment = ProxiedDeployment.redlock(3);
  }

  @AfterAll
  static void stop() {
    deployment.close();
  }

  @Test
  void plainLocks() {
    HostileRun.run(HostileSetups.of(deployment), HostileRun.LockKind.PLAIN, "HostileRedlock.plain");
  }

  @Test
  void plainLocksOverCachingRespThreeClients() {
    HostileRun.run(
        HostileSetups.redlockWithCachingClients(deployment),
        HostileRun.LockKind.PLAIN,
        "HostileRedlock.caching");
  }
}
