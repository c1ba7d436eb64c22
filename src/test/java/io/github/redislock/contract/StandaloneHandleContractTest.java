package io.github.redislock.contract;

/** The handle contract of the plain lock against one standalone {@code redis-server}. */
class StandaloneHandleContractTest extends HandleContractTest {
  @Override
  protected Deployment startDeployment() {
    return new StandaloneDeployment();
  }

  @Override
  protected HoldKind kind() {
    return HoldKind.PLAIN;
  }
}
