package io.github.redislock.internal.jedis;

import redis.clients.jedis.Connection;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.UnifiedJedis;

/** The {@link Lender} of a client. */
public final class Lenders {
  private static final Lender OTHER =
      new Lender() {
        @Override
        public Shape shape() {
          return Shape.OTHER;
        }

        @Override
        public boolean lends() {
          return false;
        }

        @Override
        public Connection borrow(String key) {
          throw new IllegalStateException("a client of another kind lends no connection");
        }

        @Override
        public HostAndPort nodeOf(Connection borrowed, String key, HostAndPort redirectedTo) {
          return null;
        }
      };

  /**
   * What {@code client} lends.
   *
   * @param client any client
   * @return its lender; of {@link Lender.Shape#OTHER} for a client this library does not know
   */
  public static Lender of(UnifiedJedis client) {
    if (client instanceof ProvidedClient provided) {
      return provided.lender();
    }
    if (client instanceof ProvidedCluster provided) {
      return provided.lender();
    }
    if (JedisApi.MODERN) {
      Lender modern = ModernLenders.of(client);
      if (modern != null) {
        return modern;
      }
    }
    return OTHER;
  }

  private Lenders() {}
}
