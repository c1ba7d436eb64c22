package io.github.redislock.faults;

import io.github.redislock.testing.ProxiedDeployment;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** {@link HostileConnectionsTest} on {@link ProxiedDeployment#cluster()}. */
class HostileConnectionsClusterTest extends HostileConnectionsTest {
  private static ProxiedDeployment deployment;

  @BeforeAll
  static void start() {
    deployment = ProxiedDeployment.cluster();
  }

  @AfterAll
  static void stop() {
    deployment.close();
  }

  @Override
  ProxiedDeployment deployment() {
    return deployment;
  }
}
