package io.github.redislock.containers;

import io.github.redislock.contract.Deployment;
import io.github.redislock.contract.LockContractTest;
import org.testcontainers.junit.jupiter.Testcontainers;

/**
 * The contract suite against {@code valkey/valkey:8} in a container; skipped without a Docker
 * engine.
 */
@Testcontainers(disabledWithoutDocker = true)
class Valkey8ContainerContractTest extends LockContractTest {
  @Override
  protected Deployment startDeployment() {
    return new ContainerDeployment("valkey/valkey:8");
  }
}
