package io.github.redislock.contract;

import io.github.redislock.RedisLockFactory;
import io.github.redislock.testing.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** N independent real {@code redis-server} masters, reached by {@code redlock(uris...)}. */
public final class RedlockDeployment implements Deployment {
  private final List<RedisServer> servers = new ArrayList<>();

  public RedlockDeployment(int masters) {
    try {
      for (int i = 0; i < masters; i++) {
        servers.add(RedisServer.start());
      }
    } catch (RuntimeException e) {
      close();
      throw e;
    }
  }

  public List<RedisServer> servers() {
    return servers;
  }

  public String[] uris() {
    return servers.stream().map(RedisServer::uri).toArray(String[]::new);
  }

  @Override
  public RedisLockFactory.Builder builder() {
    // A generous per-node timeout: this suite checks the contract, not Redlock's timing, and runs
    // on small shared machines.
    return RedisLockFactory.builder()
        .redlock(uris())
        .redlockNodeTimeout(Duration.ofMillis(250))
        .commandTimeout(Duration.ofMillis(500));
  }

  @Override
  public redis.clients.jedis.Jedis raw(String key) {
    return servers.get(0).jedis();
  }

  @Override
  public List<redis.clients.jedis.Jedis> rawCopies(String key) {
    return rawAll();
  }

  @Override
  public List<redis.clients.jedis.Jedis> rawAll() {
    return servers.stream().map(RedisServer::jedis).toList();
  }

  @Override
  public void stop() {
    servers.forEach(RedisServer::kill);
  }

  @Override
  public void restart() {
    servers.forEach(RedisServer::restart);
  }

  @Override
  public void pause() {
    servers.forEach(RedisServer::pause);
  }

  @Override
  public void resume() {
    servers.forEach(RedisServer::resume);
  }

  @Override
  public void close() {
    servers.forEach(RedisServer::close);
  }
}
