package io.github.redislock.contract;

/**
 * Leases given per call, of the plain lock, against Redlock over 3 independent masters: the lease
 * on every master.
 */
class Redlock3LeaseContractTest extends LeaseContractTest {
  @Override
  protected Deployment startDeployment() {
    return new RedlockDeployment(3);
  }

  @Override
  protected HoldKind kind() {
    return HoldKind.PLAIN;
  }
}
