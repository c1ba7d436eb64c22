package io.github.redislock.contract;

/**
 * The contract suite against a real 3-master Redis Cluster, through a caller's {@code
 * RedisClusterClient} with Jedis's default retries (which sleep, and swallow interrupts).
 */
class ClusterClientLockContractTest extends LockContractTest {
  @Override
  protected Deployment startDeployment() {
    return new ClusterDeployment(true);
  }
}
