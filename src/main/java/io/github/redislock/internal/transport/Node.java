package io.github.redislock.internal.transport;

import redis.clients.jedis.UnifiedJedis;

/**
 * One Redis server that a multi-node operation talks to.
 *
 * @param label how the server is named in messages, never with credentials
 * @param client the client that reaches it
 * @param dial how to open connections of one's own to it, or {@code null} when only its client is
 *     known (a caller's client, whose configuration Jedis does not tell)
 */
public record Node(String label, UnifiedJedis client, Dial dial) {}
