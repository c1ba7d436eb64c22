package io.github.redislock.contract;

/**
 * The condition contract suite against a real master, replica and three Sentinels, through {@code
 * sentinel(uri)}.
 */
class SentinelConditionContractTest extends ConditionContractTest {
  @Override
  protected Deployment startDeployment() {
    return new SentinelDeployment();
  }
}
