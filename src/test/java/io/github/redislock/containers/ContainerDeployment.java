package io.github.redislock.containers;

import io.github.redislock.RedisLockFactory;
import io.github.redislock.contract.Deployment;
import io.github.redislock.testing.LiveServers;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.utility.DockerImageName;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisProtocol;

/**
 * A Redis-compatible server in a container, for running the contract suite against server versions
 * the machine does not have. Pausing uses {@code docker pause}; the stop/restart faults need a
 * local {@code redis-server} and are skipped here.
 */
final class ContainerDeployment implements Deployment {
  private final GenericContainer<?> container;
  private volatile boolean paused;

  /** The container's server, for the leak check of the tests ({@link LiveServers}). */
  private final LiveServers.Endpoint endpoint =
      new LiveServers.Endpoint() {
        @Override
        public boolean isRunning() {
          return container.isRunning();
        }

        @Override
        public Jedis connectForCheck() {
          if (paused) {
            resume();
          }
          return raw("");
        }

        @Override
        public void close() {
          ContainerDeployment.this.close();
        }

        @Override
        public String toString() {
          return "container " + container.getDockerImageName() + " at " + address();
        }
      };

  @SuppressWarnings("resource")
  ContainerDeployment(String image) {
    container = new GenericContainer<>(DockerImageName.parse(image)).withExposedPorts(6379);
    container.start();
    LiveServers.started(endpoint);
  }

  private HostAndPort address() {
    return new HostAndPort(container.getHost(), container.getMappedPort(6379));
  }

  @Override
  public RedisLockFactory.Builder builder() {
    HostAndPort address = address();
    return RedisLockFactory.builder()
        .standalone("redis://" + address.getHost() + ":" + address.getPort())
        .commandTimeout(Duration.ofMillis(500));
  }

  @Override
  public Jedis raw(String key) {
    return new Jedis(
        address(), DefaultJedisClientConfig.builder().protocol(RedisProtocol.RESP2).build());
  }

  @Override
  public List<Jedis> rawAll() {
    return List.of(raw(""));
  }

  @Override
  public void stop() {
    Assumptions.abort("stopping and restarting Redis needs a local redis-server");
  }

  @Override
  public void restart() {
    Assumptions.abort("stopping and restarting Redis needs a local redis-server");
  }

  @Override
  public void pause() {
    container.getDockerClient().pauseContainerCmd(container.getContainerId()).exec();
    paused = true;
  }

  @Override
  public void resume() {
    container.getDockerClient().unpauseContainerCmd(container.getContainerId()).exec();
    paused = false;
  }

  @Override
  public void close() {
    try {
      LiveServers.stopping(endpoint);
    } finally {
      container.stop();
      LiveServers.stopped(endpoint);
    }
  }
}
