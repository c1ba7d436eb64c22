package io.github.redislock.contract;

/** The read-write lock contract suite against a real master, replica and three Sentinels. */
class SentinelReadWriteLockContractTest extends ReadWriteLockContractTest {
  @Override
  protected Deployment startDeployment() {
    return new SentinelDeployment();
  }
}
