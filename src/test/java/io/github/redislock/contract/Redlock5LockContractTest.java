package io.github.redislock.contract;

/** The contract suite against Redlock over 5 independent masters. */
class Redlock5LockContractTest extends LockContractTest {
  @Override
  protected Deployment startDeployment() {
    return new RedlockDeployment(5);
  }
}
