package io.github.redislock.internal.transport;

import java.util.Objects;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisClientConfig;

/**
 * How the pipelined transport opens connections of its own to a node: the node's address, and the
 * client configuration its client was built with (credentials, database, client name, protocol,
 * TLS, timeouts).
 *
 * @param address the node's address
 * @param config the configuration of the connections
 */
public record Dial(HostAndPort address, JedisClientConfig config) {

  public Dial {
    Objects.requireNonNull(address, "address");
    Objects.requireNonNull(config, "config");
  }
}
