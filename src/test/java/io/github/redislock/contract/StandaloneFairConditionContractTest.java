package io.github.redislock.contract;

/** The condition contract suite on fair locks, against one standalone {@code redis-server}. */
class StandaloneFairConditionContractTest extends ConditionContractTest {
  @Override
  protected Deployment startDeployment() {
    return new StandaloneDeployment();
  }

  @Override
  protected Form form() {
    return Form.FAIR;
  }
}
