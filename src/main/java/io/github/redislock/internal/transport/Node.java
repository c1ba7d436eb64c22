package io.github.redislock.internal.transport;

import redis.clients.jedis.UnifiedJedis;

/**
 * One Redis server that a multi-node operation talks to.
 *
 * @param label how the server is named in messages, never with credentials
 * @param client the client that reaches it
 */
public record Node(String label, UnifiedJedis client) {}
