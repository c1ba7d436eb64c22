package io.github.redislock.torture;

import io.github.redislock.testing.RedisServer;
import java.time.Duration;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;

/** Faults done to one {@code redis-server}, shared by the deployments. */
final class ServerFaults {
  private ServerFaults() {}

  /** {@code CLIENT KILL} of every normal and Pub/Sub client (not the one asking). */
  static void clientKill(RedisServer server) {
    try (Jedis j = server.jedis(Duration.ofSeconds(2))) {
      j.sendCommand(Protocol.Command.CLIENT, "KILL", "TYPE", "normal", "SKIPME", "yes");
      j.sendCommand(Protocol.Command.CLIENT, "KILL", "TYPE", "pubsub", "SKIPME", "yes");
    }
  }

  /** Restarts a server if it is not running, resumes it if it is paused. */
  static void heal(RedisServer server) {
    if (server.isPaused()) {
      server.resume();
    }
    if (!server.isRunning()) {
      server.restart();
    }
  }

  static void sleep(long millis) throws InterruptedException {
    if (millis > 0) {
      Thread.sleep(millis);
    }
  }
}
