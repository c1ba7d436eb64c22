package io.github.redislock.contract;

/** The handle contract of the read lock against one standalone {@code redis-server}. */
class StandaloneReadHandleContractTest extends HandleContractTest {
  @Override
  protected Deployment startDeployment() {
    return new StandaloneDeployment();
  }

  @Override
  protected HoldKind kind() {
    return HoldKind.READ;
  }
}
