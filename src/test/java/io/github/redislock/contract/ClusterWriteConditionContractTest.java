package io.github.redislock.contract;

/**
 * The condition contract suite on the write locks of read-write locks, against a real 3-master
 * Redis Cluster: every key of a condition in its lock's slot, its channel a shard channel.
 */
class ClusterWriteConditionContractTest extends ConditionContractTest {
  @Override
  protected Deployment startDeployment() {
    return new ClusterDeployment();
  }

  @Override
  protected Form form() {
    return Form.WRITE;
  }
}
