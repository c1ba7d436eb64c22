/**
 * A {@link java.util.concurrent.locks.Lock} across processes and machines, on Redis. Start at
 * {@link io.github.redislock.RedisLockFactory}.
 */
module io.github.redislock {
  requires transitive redis.clients.jedis;
  requires org.apache.commons.pool2;
  requires org.slf4j;
  requires jdk.jfr;

  exports io.github.redislock;
}
