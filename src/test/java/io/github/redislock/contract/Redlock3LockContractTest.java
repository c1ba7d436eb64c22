package io.github.redislock.contract;

/** The contract suite against Redlock over 3 independent masters. */
class Redlock3LockContractTest extends LockContractTest {
  @Override
  protected Deployment startDeployment() {
    return new RedlockDeployment(3);
  }
}
