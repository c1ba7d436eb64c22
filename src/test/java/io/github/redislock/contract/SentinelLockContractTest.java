package io.github.redislock.contract;

/**
 * The contract suite against a real master, replica and three Sentinels, through {@code
 * sentinel(uri)}.
 */
class SentinelLockContractTest extends LockContractTest {
  @Override
  protected Deployment startDeployment() {
    return new SentinelDeployment();
  }
}
