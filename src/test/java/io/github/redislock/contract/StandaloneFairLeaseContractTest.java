package io.github.redislock.contract;

/** Leases given per call, of the fair lock, against one standalone {@code redis-server}. */
class StandaloneFairLeaseContractTest extends LeaseContractTest {
  @Override
  protected Deployment startDeployment() {
    return new StandaloneDeployment();
  }

  @Override
  protected HoldKind kind() {
    return HoldKind.FAIR;
  }
}
