package io.github.redislock.contract;

/** The handle contract of the write lock against one standalone {@code redis-server}. */
class StandaloneWriteHandleContractTest extends HandleContractTest {
  @Override
  protected Deployment startDeployment() {
    return new StandaloneDeployment();
  }

  @Override
  protected HoldKind kind() {
    return HoldKind.WRITE;
  }
}
