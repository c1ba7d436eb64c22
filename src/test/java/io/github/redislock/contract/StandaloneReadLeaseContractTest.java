package io.github.redislock.contract;

/**
 * Leases given per call, of the read lock (each read share's own lease), against one standalone
 * {@code redis-server}.
 */
class StandaloneReadLeaseContractTest extends LeaseContractTest {
  @Override
  protected Deployment startDeployment() {
    return new StandaloneDeployment();
  }

  @Override
  protected HoldKind kind() {
    return HoldKind.READ;
  }
}
