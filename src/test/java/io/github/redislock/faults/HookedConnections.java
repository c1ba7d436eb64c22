package io.github.redislock.faults;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import org.apache.commons.pool2.PooledObject;
import org.apache.commons.pool2.PooledObjectFactory;
import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionFactory;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.providers.PooledConnectionProvider;

/**
 * The connection factory of a fault-injecting {@link RedisClient}: a caller's client whose pool
 * keeps no idle connection, so that every command opens a connection here, where the test can act
 * first (change the server's state, inject the exception a refused connection or an exhausted pool
 * makes, stall the replies of the connection it opens) or send the connection to another server.
 * Everything else is Jedis's own: the commands reach real {@code redis-server}s.
 */
final class HookedConnections implements PooledObjectFactory<Connection> {

  /** What to do instead of simply opening the next connection. */
  interface Hook {
    /**
     * Opens a connection (or throws, as a failed connection would).
     *
     * @param connections the factory of the current target, to open a connection with
     */
    PooledObject<Connection> open(PooledObjectFactory<Connection> connections) throws Exception;
  }

  private final JedisClientConfig config;
  private final Deque<Hook> hooks = new ArrayDeque<>();
  private volatile ConnectionFactory target;

  private HookedConnections(HostAndPort target, Duration timeout) {
    int millis = Math.toIntExact(timeout.toMillis());
    this.config =
        DefaultJedisClientConfig.builder()
            .connectionTimeoutMillis(millis)
            .socketTimeoutMillis(millis)
            .build();
    this.target = new ConnectionFactory(target, config);
  }

  /**
   * A client of {@code port} on localhost whose connections open here.
   *
   * @param timeout the connect and socket timeout, and the longest wait for a pooled connection
   * @return the client, with its connection factory
   */
  static Client client(int port, Duration timeout) {
    HookedConnections connections =
        new HookedConnections(new HostAndPort("127.0.0.1", port), timeout);
    ConnectionPoolConfig pool = new ConnectionPoolConfig();
    pool.setMaxTotal(8);
    pool.setMaxIdle(0);
    pool.setMinIdle(0);
    pool.setMaxWait(timeout);
    pool.setJmxEnabled(false);
    RedisClient client =
        RedisClient.builder()
            .connectionProvider(new PooledConnectionProvider(connections, pool))
            .build();
    return new Client(client, connections);
  }

  /** A client and the factory of its connections. */
  record Client(RedisClient client, HookedConnections connections) implements AutoCloseable {
    @Override
    public void close() {
      client.close();
    }
  }

  /** The next connection opened runs {@code hook}; hooks run in the order given. */
  synchronized HookedConnections thenOpen(Hook hook) {
    hooks.add(hook);
    return this;
  }

  /** Whether every hook has run. */
  synchronized boolean allUsed() {
    return hooks.isEmpty();
  }

  /** Connections opened from now on go to {@code port} on localhost. */
  void retarget(int port) {
    target = new ConnectionFactory(new HostAndPort("127.0.0.1", port), config);
  }

  @Override
  public PooledObject<Connection> makeObject() throws Exception {
    Hook hook;
    synchronized (this) {
      hook = hooks.poll();
    }
    return hook == null ? target.makeObject() : hook.open(target);
  }

  @Override
  public void destroyObject(PooledObject<Connection> p) throws Exception {
    target.destroyObject(p);
  }

  @Override
  public boolean validateObject(PooledObject<Connection> p) {
    return target.validateObject(p);
  }

  @Override
  public void activateObject(PooledObject<Connection> p) throws Exception {
    target.activateObject(p);
  }

  @Override
  public void passivateObject(PooledObject<Connection> p) throws Exception {
    target.passivateObject(p);
  }
}
