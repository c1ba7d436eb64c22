package io.github.redislock.contract;

/** The read-write lock contract suite against a real 3-master Redis Cluster. */
class ClusterReadWriteLockContractTest extends ReadWriteLockContractTest {
  @Override
  protected Deployment startDeployment() {
    return new ClusterDeployment();
  }
}
