package io.github.redislock.faults;

import io.github.redislock.RedisLockFactory;
import io.github.redislock.testing.ProxiedDeployment;
import io.github.redislock.testing.RespProxy;
import java.util.List;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisProtocol;
import redis.clients.jedis.csc.DefaultCache;

/** The {@link HostileRun.Setup}s of the hostile-connection tests. */
final class HostileSetups {
  /** The name of the caching clients' connections; faults aim at names starting "redis-lock". */
  static final String CACHING_CLIENT_NAME = "redis-lock-test-caching";

  private static final int CACHE_SIZE = 1000;

  private HostileSetups() {}

  /** Factories built on the deployment's endpoint, through its proxies. */
  static HostileRun.Setup of(ProxiedDeployment deployment) {
    return new HostileRun.Setup(
        deployment.toString(),
        () -> deployment.builder(HostileRun.COMMAND_TIMEOUT).leaseTime(HostileRun.LEASE).build(),
        deployment.proxies(),
        deployment.servers(),
        deployment.isRedlock(),
        deployment::unproxiedClients,
        () -> {});
  }

  /**
   * Factories on {@code redlockClients(...)} of the caller's RESP3 clients with client-side caching
   * (so {@code CLIENT TRACKING ON} on every connection), one per Redlock master, through its proxy;
   * the clients are closed after the factories.
   */
  static HostileRun.Setup redlockWithCachingClients(ProxiedDeployment deployment) {
    int timeout = Math.toIntExact(HostileRun.COMMAND_TIMEOUT.toMillis());
    List<RedisClient> clients =
        deployment.proxies().stream()
            .map(RespProxy::address)
            .map(
                address ->
                    RedisClient.builder()
                        .hostAndPort(address)
                        .clientConfig(
                            DefaultJedisClientConfig.builder()
                                .protocol(RedisProtocol.RESP3)
                                .clientName(CACHING_CLIENT_NAME)
                                .socketTimeoutMillis(timeout)
                                .connectionTimeoutMillis(timeout)
                                .build())
                        .cache(new TrackingCache())
                        .build())
            .toList();
    return new HostileRun.Setup(
        deployment + ", caller's RESP3 clients with client-side caching",
        () ->
            RedisLockFactory.builder()
                .redlockClients(clients)
                .redlockNodeTimeout(HostileRun.COMMAND_TIMEOUT.dividedBy(3))
                .leaseTime(HostileRun.LEASE)
                .build(),
        deployment.proxies(),
        deployment.servers(),
        true,
        deployment::unproxiedClients,
        () -> clients.forEach(RedisClient::close));
  }

  /**
   * Jedis's own cache, in its compatibility mode: Jedis checks for Redis 7.4 otherwise, though
   * {@code CLIENT TRACKING} (what matters here) exists since Redis 6.
   */
  private static final class TrackingCache extends DefaultCache {
    TrackingCache() {
      super(CACHE_SIZE);
    }

    @Override
    public boolean compatibilityMode() {
      return true;
    }
  }
}
