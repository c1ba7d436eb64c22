package io.github.redislock.torture;

import io.github.redislock.testing.RedisServer;
import java.util.List;
import java.util.Map;

/**
 * A deployment under torture: its servers (started by the test fixtures), what the workers' factory
 * is built from, the faults it offers, and how each is done and healed.
 */
interface Deployment extends AutoCloseable {

  /** {@code single}, {@code sentinel}, {@code cluster} or {@code redlock}. */
  String id();

  /** One line about its servers, for the log and the report. */
  String describe();

  /** The workers' factory spec: see {@link Worker#factory}. */
  String spec();

  /** The faults the nemesis draws from, besides the worker faults every deployment gets. */
  List<Fault.Type> faultTypes();

  /**
   * Does the fault, and returns once it is healed (the servers answer again).
   *
   * @return what it hit, for the log and the history (a fault aimed at one command names the
   *     command), or an empty string
   */
  String inject(Fault fault) throws InterruptedException;

  /**
   * The current masters, as text that changes when a failover happens: the nemesis records a change
   * that no fault of its own made (a failover the deployment did by itself) as a fault outside the
   * model.
   */
  default String masters() {
    return "";
  }

  /**
   * The servers that hold the deployment's keys now, by label ({@code m1}, {@code shard0}...):
   * every master, not their replicas. The orphan check looks for keys left on them after a phase.
   */
  Map<String, RedisServer> keyServers();

  /**
   * For a deployment of several shards, the shard that serves each of {@code names} ({@code
   * shard0}, as the faults name them); empty for a deployment of one.
   */
  default Map<String, String> shardsOf(List<String> names) {
    return Map.of();
  }

  /**
   * Whether each worker runs a keeper besides its threads: a thread that only takes holds of one to
   * three leases ({@link TortureKind.KeeperKind}), so that renewals are under way when a fault
   * strikes. The Cluster's {@code shard-freeze} check needs them.
   */
  default boolean keepers() {
    return false;
  }

  /** Heals anything still broken (the end of the run, or an aborted fault). */
  void healAll();

  @Override
  void close();
}
