package io.github.redislock.contract;

/**
 * The condition contract suite on the write locks of read-write locks, against a real master,
 * replica and three Sentinels, through {@code sentinel(uri)}.
 */
class SentinelWriteConditionContractTest extends ConditionContractTest {
  @Override
  protected Deployment startDeployment() {
    return new SentinelDeployment();
  }

  @Override
  protected Form form() {
    return Form.WRITE;
  }
}
