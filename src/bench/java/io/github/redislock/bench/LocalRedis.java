package io.github.redislock.bench;

import io.github.redislock.testing.RedisServer;
import java.util.ArrayList;
import java.util.List;
import redis.clients.jedis.Jedis;

/**
 * A group of local {@code redis-server} processes on free loopback ports, started with the test
 * fixture {@link RedisServer}: one for single-node implementations, five independent masters for
 * Redlock ones. Closing it kills them (and the fixture's shutdown hook does, should the JVM die).
 */
final class LocalRedis implements AutoCloseable {
  private final List<RedisServer> servers;

  private LocalRedis(List<RedisServer> servers) {
    this.servers = List.copyOf(servers);
  }

  /** Starts {@code count} servers and waits until each answers {@code PING}. */
  static LocalRedis start(int count) {
    List<RedisServer> started = new ArrayList<>();
    try {
      for (int i = 0; i < count; i++) {
        started.add(RedisServer.start());
      }
      return new LocalRedis(started);
    } catch (RuntimeException e) {
      started.forEach(RedisServer::close);
      throw e;
    }
  }

  List<RedisServer> servers() {
    return servers;
  }

  /** The servers' URIs, {@code redis://127.0.0.1:port}, in start order. */
  List<String> uris() {
    return servers.stream().map(RedisServer::uri).toList();
  }

  /** The servers' process ids. */
  List<Long> pids() {
    return servers.stream().map(RedisServer::pid).toList();
  }

  /** Deletes every key on every server. */
  void flushAll() {
    servers.forEach(RedisServer::flushAll);
  }

  /** The version the first server reports, e.g. {@code 7.0.15}. */
  String version() {
    try (Jedis jedis = servers.get(0).jedis()) {
      return RedisInfo.field(jedis.info("server"), "redis_version");
    }
  }

  @Override
  public void close() {
    servers.forEach(RedisServer::close);
  }
}
