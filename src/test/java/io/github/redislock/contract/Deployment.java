package io.github.redislock.contract;

import io.github.redislock.RedisLockFactory;
import redis.clients.jedis.Jedis;

/**
 * A Redis deployment the contract suite runs against, with the faults it can inject. Each
 * implementation starts real servers.
 */
public interface Deployment extends AutoCloseable {

  /** A builder with this deployment's endpoint set; the test adds the other settings. */
  RedisLockFactory.Builder builder();

  /** A new raw connection to the server that holds {@code key}, for inspection; caller closes. */
  Jedis raw(String key);

  /**
   * New raw connections to every server that keeps a copy of {@code key} as a lock: the one that
   * holds it, or every Redlock master. Caller closes each.
   */
  default java.util.List<Jedis> rawCopies(String key) {
    return java.util.List.of(raw(key));
  }

  /** A new raw connection to every server; caller closes each. */
  java.util.List<Jedis> rawAll();

  /**
   * Commands that the deployment's own machinery sends to the servers of {@link #rawAll()} at any
   * time (Sentinels ping and publish, replicas acknowledge), as {@code INFO commandstats} names
   * them: tests that count the library's Redis calls leave them out.
   */
  default java.util.Set<String> backgroundCommands() {
    return java.util.Set.of();
  }

  /** Makes Redis unreachable: connections are refused. */
  void stop();

  /** Brings Redis back after {@link #stop()}, empty. */
  void restart();

  /** Freezes Redis (SIGSTOP): connections hang. */
  void pause();

  /** Thaws Redis after {@link #pause()}. */
  void resume();

  @Override
  void close();
}
