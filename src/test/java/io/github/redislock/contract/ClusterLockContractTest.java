package io.github.redislock.contract;

/** The contract suite against a real 3-master Redis Cluster, through {@code cluster(uri)}. */
class ClusterLockContractTest extends LockContractTest {
  @Override
  protected Deployment startDeployment() {
    return new ClusterDeployment();
  }
}
