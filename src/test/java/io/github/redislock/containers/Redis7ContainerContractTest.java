package io.github.redislock.containers;

import io.github.redislock.contract.Deployment;
import io.github.redislock.contract.LockContractTest;
import org.testcontainers.junit.jupiter.Testcontainers;

/** The contract suite against {@code redis:7} in a container; skipped without a Docker engine. */
@Testcontainers(disabledWithoutDocker = true)
class Redis7ContainerContractTest extends LockContractTest {
  @Override
  protected Deployment startDeployment() {
    return new ContainerDeployment("redis:7");
  }
}
