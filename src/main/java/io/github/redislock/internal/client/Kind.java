package io.github.redislock.internal.client;

/** The kinds of deployment a URI can name, with the scheme and the documented form of each. */
public enum Kind {
  /** One server: {@code redis://} or {@code rediss://}. */
  STANDALONE("redis://[user:password@]host:port[/db] or rediss://[user:password@]host:port[/db]"),
  /** A Sentinel-managed master: {@code redis-sentinel://} or {@code rediss-sentinel://}. */
  SENTINEL(
      "redis-sentinel://[user:password@]host:port[,host:port...]/masterName[/db]"
          + " (rediss-sentinel:// for TLS)"),
  /** A Redis Cluster: {@code redis-cluster://} or {@code rediss-cluster://}. */
  CLUSTER("redis-cluster://[user:password@]host:port[,host:port...] (rediss-cluster:// for TLS)");

  private final String form;

  Kind(String form) {
    this.form = form;
  }

  /** The documented form of this kind's URIs. */
  public String form() {
    return form;
  }
}
