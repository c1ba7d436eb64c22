package io.github.redislock.contract;

/** The fair lock's contract against one standalone {@code redis-server}. */
class StandaloneFairLockContractTest extends FairLockContractTest {
  @Override
  protected Deployment startDeployment() {
    return new StandaloneDeployment();
  }
}
