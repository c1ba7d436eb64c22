package io.github.redislock.contract;

import io.github.redislock.RedisLockFactory;
import java.util.List;
import java.util.Set;
import redis.clients.jedis.Jedis;

/**
 * A deployment that several test classes use in turn (the {@code @Nested} classes of one kind
 * each): closing it leaves the deployment running, for the class that started it to close.
 */
final class SharedDeployment implements Deployment {
  private final Deployment deployment;

  SharedDeployment(Deployment deployment) {
    this.deployment = deployment;
  }

  @Override
  public RedisLockFactory.Builder builder() {
    return deployment.builder();
  }

  @Override
  public Jedis raw(String key) {
    return deployment.raw(key);
  }

  @Override
  public List<Jedis> rawCopies(String key) {
    return deployment.rawCopies(key);
  }

  @Override
  public List<Jedis> rawAll() {
    return deployment.rawAll();
  }

  @Override
  public Set<String> backgroundCommands() {
    return deployment.backgroundCommands();
  }

  @Override
  public void stop() {
    deployment.stop();
  }

  @Override
  public void restart() {
    deployment.restart();
  }

  @Override
  public void pause() {
    deployment.pause();
  }

  @Override
  public void resume() {
    deployment.resume();
  }

  /** Leaves the deployment running: its owner closes it. */
  @Override
  public void close() {}
}
