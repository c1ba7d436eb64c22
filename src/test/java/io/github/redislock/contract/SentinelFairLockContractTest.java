package io.github.redislock.contract;

/**
 * The fair lock's contract against a real master, replica and three Sentinels, through {@code
 * sentinel(uri)}.
 */
class SentinelFairLockContractTest extends FairLockContractTest {
  @Override
  protected Deployment startDeployment() {
    return new SentinelDeployment();
  }
}
