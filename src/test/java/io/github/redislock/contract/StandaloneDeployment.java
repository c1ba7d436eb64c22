package io.github.redislock.contract;

import io.github.redislock.RedisLockFactory;
import io.github.redislock.testing.RedisServer;
import java.time.Duration;
import java.util.List;
import redis.clients.jedis.Jedis;

/** One real {@code redis-server}, reached by {@code standalone(uri)}. */
public final class StandaloneDeployment implements Deployment {
  private final RedisServer server = RedisServer.start();

  public RedisServer server() {
    return server;
  }

  @Override
  public RedisLockFactory.Builder builder() {
    return RedisLockFactory.builder()
        .standalone(server.uri())
        .commandTimeout(Duration.ofMillis(500));
  }

  @Override
  public Jedis raw(String key) {
    return server.jedis();
  }

  @Override
  public List<Jedis> rawAll() {
    return List.of(server.jedis());
  }

  @Override
  public void stop() {
    server.kill();
  }

  @Override
  public void restart() {
    server.restart();
  }

  @Override
  public void pause() {
    server.pause();
  }

  @Override
  public void resume() {
    server.resume();
  }

  @Override
  public void close() {
    server.close();
  }
}
