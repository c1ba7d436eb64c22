package io.github.redislock.contract;

/** Leases given per call, of the write lock, against one standalone {@code redis-server}. */
class StandaloneWriteLeaseContractTest extends LeaseContractTest {
  @Override
  protected Deployment startDeployment() {
    return new StandaloneDeployment();
  }

  @Override
  protected HoldKind kind() {
    return HoldKind.WRITE;
  }
}
