package io.github.redislock.spring.boot;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code redis-lock.*} settings of the auto-configured {@link
 * io.github.redislock.RedisLockFactory}. Where the lock's Redis is comes from {@code
 * spring.data.redis.*}, unless {@link #getUri() redis-lock.uri} or {@link Redlock#getMasters()
 * redis-lock.redlock.masters} says otherwise; the defaults are the library's.
 */
@ConfigurationProperties("redis-lock")
public class RedisLockProperties {
  /** Whether to auto-configure a RedisLockFactory. */
  private boolean enabled = true;

  /**
   * The lock's Redis as a redis-lock URI (redis://, rediss://, redis-sentinel://,
   * redis-cluster://...), used instead of the spring.data.redis.* connection settings.
   */
  private String uri;

  /** How long a lock outlives a holder that stopped renewing it, 100 ms to 1 day. */
  private Duration leaseTime = Duration.ofSeconds(30);

  /** Prepended to every lock name to form its Redis key. */
  private String keyPrefix = "";

  /**
   * Socket and connect timeout of the factory's Redis clients, and the longest one command is
   * expected to take, 1 ms to 1 min.
   */
  private Duration commandTimeout = Duration.ofSeconds(2);

  /**
   * How long a hold may be renewed before it is let expire with its lease; none (renewed for as
   * long as it is held) when unset.
   */
  private Duration maxHoldTime;

  /** Whether the factory counts the statistics RedisLockFactory.stats() returns. */
  private boolean recordStats;

  /**
   * Whether every acquisition writes its holder's host, pid, thread and time beside the lock, for
   * RedisLockFactory.inspect. Costs one Redis write per acquisition and renewal.
   */
  private boolean describeHolders;

  /**
   * The name of the SSL bundle (spring.ssl.bundle.*) whose trust and key material the factory's TLS
   * connections use. Defaults to spring.data.redis.ssl.bundle when the endpoint comes from
   * spring.data.redis.*; without a bundle, TLS trusts the JVM's default trust store.
   */
  private String sslBundle;

  /** Redlock over independent masters. */
  private final Redlock redlock = new Redlock();

  /** The Spring Integration LockRegistry, when Spring Integration is present. */
  private final LockRegistry lockRegistry = new LockRegistry();

  /** The Micrometer meters, when Micrometer is present. */
  private final Metrics metrics = new Metrics();

  /** Properties with the library's defaults; Spring binds {@code redis-lock.*} onto them. */
  public RedisLockProperties() {}

  /**
   * Whether to auto-configure a factory.
   *
   * @return {@code true} unless {@code redis-lock.enabled=false}
   */
  public boolean isEnabled() {
    return enabled;
  }

  /**
   * Sets whether to auto-configure a factory.
   *
   * @param enabled {@code false} to leave it out
   */
  public void setEnabled(boolean enabled) {
    this.enabled = enabled;
  }

  /**
   * The endpoint URI that replaces {@code spring.data.redis.*}.
   *
   * @return the URI, or null to use {@code spring.data.redis.*}
   */
  public String getUri() {
    return uri;
  }

  /**
   * Sets the endpoint URI that replaces {@code spring.data.redis.*}.
   *
   * @param uri a URI of one of the forms of {@code docs/deployments.md}, or null
   */
  public void setUri(String uri) {
    this.uri = uri;
  }

  /**
   * The lease of every hold.
   *
   * @return the lease
   */
  public Duration getLeaseTime() {
    return leaseTime;
  }

  /**
   * Sets the lease of every hold.
   *
   * @param leaseTime the lease
   */
  public void setLeaseTime(Duration leaseTime) {
    this.leaseTime = leaseTime;
  }

  /**
   * The prefix of every lock key.
   *
   * @return the prefix, possibly empty
   */
  public String getKeyPrefix() {
    return keyPrefix;
  }

  /**
   * Sets the prefix of every lock key.
   *
   * @param keyPrefix the prefix
   */
  public void setKeyPrefix(String keyPrefix) {
    this.keyPrefix = keyPrefix;
  }

  /**
   * The command timeout.
   *
   * @return the timeout
   */
  public Duration getCommandTimeout() {
    return commandTimeout;
  }

  /**
   * Sets the command timeout.
   *
   * @param commandTimeout the timeout
   */
  public void setCommandTimeout(Duration commandTimeout) {
    this.commandTimeout = commandTimeout;
  }

  /**
   * How long a hold may be renewed.
   *
   * @return the maximum, or null for none
   */
  public Duration getMaxHoldTime() {
    return maxHoldTime;
  }

  /**
   * Sets how long a hold may be renewed.
   *
   * @param maxHoldTime the maximum, or null for none
   */
  public void setMaxHoldTime(Duration maxHoldTime) {
    this.maxHoldTime = maxHoldTime;
  }

  /**
   * Whether the factory counts statistics.
   *
   * @return {@code true} if it does
   */
  public boolean isRecordStats() {
    return recordStats;
  }

  /**
   * Sets whether the factory counts statistics.
   *
   * @param recordStats {@code true} to count them
   */
  public void setRecordStats(boolean recordStats) {
    this.recordStats = recordStats;
  }

  /**
   * Whether acquisitions describe their holder.
   *
   * @return {@code true} if they do
   */
  public boolean isDescribeHolders() {
    return describeHolders;
  }

  /**
   * Sets whether acquisitions describe their holder.
   *
   * @param describeHolders {@code true} to describe them
   */
  public void setDescribeHolders(boolean describeHolders) {
    this.describeHolders = describeHolders;
  }

  /**
   * The SSL bundle of the factory's TLS connections.
   *
   * @return the bundle's name, or null
   */
  public String getSslBundle() {
    return sslBundle;
  }

  /**
   * Sets the SSL bundle of the factory's TLS connections.
   *
   * @param sslBundle the bundle's name, or null
   */
  public void setSslBundle(String sslBundle) {
    this.sslBundle = sslBundle;
  }

  /**
   * The Redlock settings.
   *
   * @return the Redlock settings
   */
  public Redlock getRedlock() {
    return redlock;
  }

  /**
   * The Spring Integration {@code LockRegistry} settings.
   *
   * @return the registry settings
   */
  public LockRegistry getLockRegistry() {
    return lockRegistry;
  }

  /** The {@code redis-lock.lock-registry.*} settings. */
  public static class LockRegistry {
    /** Whether to auto-configure a LockRegistry when Spring Integration is present. */
    private boolean enabled = true;

    /**
     * The namespace of the registry's locks: the lock of key k is named registry-key:k. None (the
     * lock is named k) when unset.
     */
    private String registryKey;

    /** How many unused locks the registry keeps for reuse. */
    private int cacheCapacity = 256;

    /** Registry settings with the defaults. */
    public LockRegistry() {}

    /**
     * Whether to auto-configure the registry.
     *
     * @return {@code true} unless disabled
     */
    public boolean isEnabled() {
      return enabled;
    }

    /**
     * Sets whether to auto-configure the registry.
     *
     * @param enabled {@code false} to leave it out
     */
    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    /**
     * The namespace of the registry's locks.
     *
     * @return the namespace, or null for none
     */
    public String getRegistryKey() {
      return registryKey;
    }

    /**
     * Sets the namespace of the registry's locks.
     *
     * @param registryKey the namespace, or null for none
     */
    public void setRegistryKey(String registryKey) {
      this.registryKey = registryKey;
    }

    /**
     * How many unused locks the registry keeps.
     *
     * @return the capacity
     */
    public int getCacheCapacity() {
      return cacheCapacity;
    }

    /**
     * Sets how many unused locks the registry keeps.
     *
     * @param cacheCapacity the capacity, zero or more
     */
    public void setCacheCapacity(int cacheCapacity) {
      this.cacheCapacity = cacheCapacity;
    }
  }

  /**
   * The Micrometer settings.
   *
   * @return the metrics settings
   */
  public Metrics getMetrics() {
    return metrics;
  }

  /** The {@code redis-lock.metrics.*} settings. */
  public static class Metrics {
    /** Whether to auto-configure the Micrometer binder when Micrometer is present. */
    private boolean enabled = true;

    /**
     * How many distinct lock names get a name tag of their own on the meters; later names share the
     * tag value "other". 0: no name tag.
     */
    private int perNameTags;

    /** Tags added to every meter of the binder, such as factory=orders. */
    private Map<String, String> tags = new LinkedHashMap<>();

    /** Metrics settings with the defaults. */
    public Metrics() {}

    /**
     * Whether to auto-configure the binder.
     *
     * @return {@code true} unless disabled
     */
    public boolean isEnabled() {
      return enabled;
    }

    /**
     * Sets whether to auto-configure the binder.
     *
     * @param enabled {@code false} to leave it out
     */
    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    /**
     * How many lock names get a tag of their own.
     *
     * @return the number, 0 for no name tag
     */
    public int getPerNameTags() {
      return perNameTags;
    }

    /**
     * Sets how many lock names get a tag of their own.
     *
     * @param perNameTags the number, 0 for no name tag
     */
    public void setPerNameTags(int perNameTags) {
      this.perNameTags = perNameTags;
    }

    /**
     * The common tags.
     *
     * @return tag keys and values
     */
    public Map<String, String> getTags() {
      return tags;
    }

    /**
     * Sets the common tags.
     *
     * @param tags tag keys and values
     */
    public void setTags(Map<String, String> tags) {
      this.tags = tags;
    }
  }

  /** The {@code redis-lock.redlock.*} settings. */
  public static class Redlock {
    /**
     * One redis:// or rediss:// URI per independent master, at least three: when set, the factory
     * uses Redlock over them instead of spring.data.redis.* or redis-lock.uri.
     */
    private List<String> masters = new ArrayList<>();

    /**
     * How long a Redlock operation waits for each master, 1 ms to 10 s, and shorter than the lease.
     */
    private Duration nodeTimeout = Duration.ofMillis(50);

    /** Redlock settings with no masters and the default node timeout. */
    public Redlock() {}

    /**
     * The masters' URIs.
     *
     * @return the URIs, empty when Redlock is not used
     */
    public List<String> getMasters() {
      return masters;
    }

    /**
     * Sets the masters' URIs.
     *
     * @param masters the URIs
     */
    public void setMasters(List<String> masters) {
      this.masters = masters;
    }

    /**
     * The node timeout.
     *
     * @return the timeout
     */
    public Duration getNodeTimeout() {
      return nodeTimeout;
    }

    /**
     * Sets the node timeout.
     *
     * @param nodeTimeout the timeout
     */
    public void setNodeTimeout(Duration nodeTimeout) {
      this.nodeTimeout = nodeTimeout;
    }
  }
}
