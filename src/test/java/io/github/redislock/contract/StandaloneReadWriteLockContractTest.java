package io.github.redislock.contract;

/** The read-write lock contract suite against one standalone {@code redis-server}. */
class StandaloneReadWriteLockContractTest extends ReadWriteLockContractTest {
  @Override
  protected Deployment startDeployment() {
    return new StandaloneDeployment();
  }
}
