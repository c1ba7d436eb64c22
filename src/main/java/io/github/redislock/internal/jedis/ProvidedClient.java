package io.github.redislock.internal.jedis;

import java.util.Set;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import redis.clients.jedis.Connection;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.providers.PooledConnectionProvider;
import redis.clients.jedis.providers.SentineledConnectionProvider;

/**
 * A standalone or Sentinel client this library creates on a Jedis without Jedis 8's clients ({@link
 * JedisApi#MODERN} false): a plain {@link UnifiedJedis} on Jedis's own connection provider, which
 * it keeps, so that it lends the provider's connections as a Jedis 8 client would. Built through
 * constructors that Jedis 7.0.0 and 8 both have; commands run once, with no retry, as on Jedis 8's
 * {@code RedisClient} and {@code RedisSentinelClient}.
 */
public final class ProvidedClient extends UnifiedJedis {
  private final Lender lender;

  private ProvidedClient(
      PooledConnectionProvider provider, JedisClientConfig config, Lender lender) {
    super(provider, config.getRedisProtocol());
    this.lender = lender;
  }

  private ProvidedClient(
      SentineledConnectionProvider provider, JedisClientConfig config, Lender lender) {
    super(provider, config.getRedisProtocol());
    this.lender = lender;
  }

  /**
   * A client of the one server at {@code node}.
   *
   * @param node the server
   * @param config its connections' configuration
   * @param pool the pool's settings
   * @return the client; the caller closes it
   */
  public static UnifiedJedis standalone(
      HostAndPort node, JedisClientConfig config, GenericObjectPoolConfig<Connection> pool) {
    PooledConnectionProvider provider = new PooledConnectionProvider(node, config, pool);
    return new ProvidedClient(provider, config, new Standalone(provider, node));
  }

  /**
   * A client of the master the Sentinels know as {@code masterName}, followed across failovers.
   *
   * @param masterName the master's name
   * @param config the master's connections' configuration
   * @param pool the pool's settings
   * @param sentinels the Sentinels
   * @param sentinelConfig the Sentinels' connections' configuration
   * @return the client; the caller closes it
   */
  public static UnifiedJedis sentinel(
      String masterName,
      JedisClientConfig config,
      GenericObjectPoolConfig<Connection> pool,
      Set<HostAndPort> sentinels,
      JedisClientConfig sentinelConfig) {
    SentineledConnectionProvider provider =
        new SentineledConnectionProvider(masterName, config, pool, sentinels, sentinelConfig);
    return new ProvidedClient(provider, config, new Sentinel(provider));
  }

  Lender lender() {
    return lender;
  }

  private static final class Standalone extends Lender {
    private final PooledConnectionProvider provider;
    private final HostAndPort node;

    Standalone(PooledConnectionProvider provider, HostAndPort node) {
      this.provider = provider;
      this.node = node;
    }

    @Override
    public Shape shape() {
      return Shape.STANDALONE;
    }

    @Override
    public boolean lends() {
      return true;
    }

    @Override
    public Connection borrow(String key) {
      return provider.getPool().getResource();
    }

    @Override
    public HostAndPort nodeOf(Connection borrowed, String key, HostAndPort redirectedTo) {
      return node;
    }
  }

  private static final class Sentinel extends Lender {
    private final SentineledConnectionProvider provider;

    Sentinel(SentineledConnectionProvider provider) {
      this.provider = provider;
    }

    @Override
    public Shape shape() {
      return Shape.SENTINEL;
    }

    @Override
    public boolean lends() {
      return true;
    }

    @Override
    public Connection borrow(String key) {
      return provider.getConnection();
    }

    /** The master when asked: after a failover in between, the name may be the old one's. */
    @Override
    public HostAndPort nodeOf(Connection borrowed, String key, HostAndPort redirectedTo) {
      return provider.getCurrentMaster();
    }

    @Override
    public HostAndPort currentMaster() {
      return provider.getCurrentMaster();
    }
  }
}
