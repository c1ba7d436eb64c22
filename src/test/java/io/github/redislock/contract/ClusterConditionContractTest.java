package io.github.redislock.contract;

/**
 * The condition contract suite against a real 3-master Redis Cluster, through {@code cluster(uri)}:
 * every key of a condition in its lock's slot, its channel a shard channel.
 */
class ClusterConditionContractTest extends ConditionContractTest {
  @Override
  protected Deployment startDeployment() {
    return new ClusterDeployment();
  }
}
