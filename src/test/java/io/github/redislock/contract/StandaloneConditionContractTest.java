package io.github.redislock.contract;

/** The condition contract suite against one standalone {@code redis-server}. */
class StandaloneConditionContractTest extends ConditionContractTest {
  @Override
  protected Deployment startDeployment() {
    return new StandaloneDeployment();
  }
}
