package io.github.redislock.contract;

/**
 * The condition contract suite on the write locks of read-write locks, against one standalone
 * {@code redis-server}.
 */
class StandaloneWriteConditionContractTest extends ConditionContractTest {
  @Override
  protected Deployment startDeployment() {
    return new StandaloneDeployment();
  }

  @Override
  protected Form form() {
    return Form.WRITE;
  }
}
