package io.github.redislock.contract;

/** The handle contract of the fair lock against one standalone {@code redis-server}. */
class StandaloneFairHandleContractTest extends HandleContractTest {
  @Override
  protected Deployment startDeployment() {
    return new StandaloneDeployment();
  }

  @Override
  protected HoldKind kind() {
    return HoldKind.FAIR;
  }
}
