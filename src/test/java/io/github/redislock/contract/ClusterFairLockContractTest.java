package io.github.redislock.contract;

/**
 * The fair lock's contract against a real 3-master Redis Cluster, through {@code cluster(uri)}:
 * every key of a fair lock in its slot.
 */
class ClusterFairLockContractTest extends FairLockContractTest {
  @Override
  protected Deployment startDeployment() {
    return new ClusterDeployment();
  }
}
