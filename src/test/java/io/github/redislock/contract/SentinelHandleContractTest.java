package io.github.redislock.contract;

import io.github.redislock.testing.IntegrationTest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.TestInstance;

/**
 * The handle contract through {@code sentinel(uri)} (a master, a replica and three Sentinels): the
 * cases that go through the wire (see {@link HandleContractTest}), for every kind of lock, each in
 * a {@code @Nested} class, on one deployment started for the class (its start takes most of the
 * class's time, so the kinds share it).
 */
@IntegrationTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SentinelHandleContractTest {
  private Deployment deployment;

  @BeforeAll
  void startRedis() {
    deployment = new SentinelDeployment();
  }

  @AfterAll
  void stopRedis() {
    deployment.close();
  }

  /** The suite of one kind on the class's deployment, with the cases that go through the wire. */
  abstract class OnTheClassDeployment extends HandleContractTest {
    @Override
    protected Deployment startDeployment() {
      return new SharedDeployment(deployment);
    }

    @Override
    protected boolean everyCase() {
      return false;
    }
  }

  @Nested
  class PlainLock extends OnTheClassDeployment {
    @Override
    protected HoldKind kind() {
      return HoldKind.PLAIN;
    }
  }

  @Nested
  class FairLock extends OnTheClassDeployment {
    @Override
    protected HoldKind kind() {
      return HoldKind.FAIR;
    }
  }

  @Nested
  class WriteLock extends OnTheClassDeployment {
    @Override
    protected HoldKind kind() {
      return HoldKind.WRITE;
    }
  }

  @Nested
  class ReadLock extends OnTheClassDeployment {
    @Override
    protected HoldKind kind() {
      return HoldKind.READ;
    }
  }
}
