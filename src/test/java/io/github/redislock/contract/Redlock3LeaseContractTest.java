package io.github.redislock.contract;

/**
 * Leases given per call, of the plain lock, against Redlock over 3 independent masters: the cases
 * where the lease is set, runs out or is set again on every master (see {@link LeaseContractTest}).
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

  @Override
  protected boolean everyCase() {
    return false;
  }
}
