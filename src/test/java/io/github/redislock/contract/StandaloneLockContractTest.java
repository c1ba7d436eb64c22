package io.github.redislock.contract;

/** The contract suite against one standalone {@code redis-server}. */
class StandaloneLockContractTest extends LockContractTest {
  @Override
  protected Deployment startDeployment() {
    return new StandaloneDeployment();
  }
}
