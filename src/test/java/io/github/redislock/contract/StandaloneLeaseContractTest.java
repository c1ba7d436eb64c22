package io.github.redislock.contract;

/** Leases given per call, of the plain lock, against one standalone {@code redis-server}. */
class StandaloneLeaseContractTest extends LeaseContractTest {
  @Override
  protected Deployment startDeployment() {
    return new StandaloneDeployment();
  }

  @Override
  protected HoldKind kind() {
    return HoldKind.PLAIN;
  }
}
