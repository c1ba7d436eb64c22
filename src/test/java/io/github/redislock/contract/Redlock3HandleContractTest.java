package io.github.redislock.contract;

/**
 * The handle contract of the plain lock against Redlock over 3 independent masters: every case, a
 * release removing the hold from every master.
 */
class Redlock3HandleContractTest extends HandleContractTest {
  @Override
  protected Deployment startDeployment() {
    return new RedlockDeployment(3);
  }

  @Override
  protected HoldKind kind() {
    return HoldKind.PLAIN;
  }
}
