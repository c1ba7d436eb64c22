package io.github.redislock.internal.backend;

import io.github.redislock.RedisLockException;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.params.SetParams;

/**
 * The lock on one Redis deployment reached through one {@link UnifiedJedis}: a standalone server, a
 * Sentinel-managed master or a Cluster (every key of a lock sits in one slot).
 */
public final class SingleNodeBackend implements LockBackend {
  private final UnifiedJedis client;
  private final boolean ownsClient;
  private final long leaseMillis;
  private final String lease;
  private final String companionTtlMillis;

  /** The plain acquisition's {@code NX PX lease}, built once. */
  private final SetParams plainSet;

  /**
   * A backend on {@code client}.
   *
   * @param client a standalone, Sentinel or Cluster client
   * @param ownsClient whether {@link #close()} closes it
   * @param leaseMillis the lease every acquisition and renewal sets
   */
  public SingleNodeBackend(UnifiedJedis client, boolean ownsClient, long leaseMillis) {
    this.client = client;
    this.ownsClient = ownsClient;
    this.leaseMillis = leaseMillis;
    this.lease = Long.toString(leaseMillis);
    this.companionTtlMillis = Long.toString(companionTtlMillis(leaseMillis));
    this.plainSet = SetParams.setParams().nx().px(leaseMillis);
  }

  /**
   * How long a lock's companion keys (its fencing counter) outlive their last use: twice the lease,
   * and at least a minute.
   */
  static long companionTtlMillis(long leaseMillis) {
    return Math.max(2 * leaseMillis, TimeUnit.MINUTES.toMillis(1));
  }

  /** The lease every acquisition and renewal sets. */
  long leaseMillis() {
    return leaseMillis;
  }

  @Override
  public Acquisition tryAcquire(LockKeys keys, String token, boolean fenced, boolean expectBusy) {
    return tryAcquire(keys, token, Ask.of(fenced, expectBusy));
  }

  Acquisition tryAcquire(LockKeys keys, String token, Ask ask) {
    if (ask == Ask.PLAIN) {
      String reply;
      try { // no lambda on the fast path
        reply = client.set(keys.lock(), token, plainSet);
      } catch (JedisException e) {
        throw failure("acquire", keys, e);
      }
      if (reply != null) {
        return Acquisition.ACQUIRED_UNFENCED;
      }
      // Busy (or an earlier attempt's SET landed and its reply was lost): the script tells which.
    }
    boolean fenced = ask == Ask.FENCED;
    return parseAcquisition(
        call(
            "acquire",
            keys,
            () ->
                Script.ACQUIRE.run(client, acquireKeys(keys, fenced), acquireArgs(token, fenced))));
  }

  /** The acquire script's keys: the companion hash only to issue a fencing token. */
  static List<String> acquireKeys(LockKeys keys, boolean fenced) {
    return fenced ? List.of(keys.lock(), keys.companion()) : List.of(keys.lock());
  }

  List<String> acquireArgs(String token, boolean fenced) {
    return fenced ? List.of(token, lease, companionTtlMillis) : List.of(token, lease);
  }

  static Acquisition parseAcquisition(Object reply) {
    if (reply instanceof Long) {
      return Acquisition.ACQUIRED_UNFENCED;
    }
    List<?> values = (List<?>) reply;
    if (asLong(values.get(0)) == 1) {
      return Acquisition.acquired(asLong(values.get(1)));
    }
    return Acquisition.busy(asLong(values.get(1)), asLong(values.get(2)) == 1);
  }

  @Override
  public boolean extend(LockKeys keys, String token) {
    Object reply =
        call(
            "renew",
            keys,
            () ->
                Script.EXTEND.run(
                    client,
                    List.of(keys.lock(), keys.companion()),
                    List.of(token, lease, companionTtlMillis)));
    return asLong(reply) == 1;
  }

  @Override
  public Release release(LockKeys keys, String token, long fencingToken, Object grant) {
    // This node issued the token from its own counter: the counter is at least the token.
    return releaseRaising(keys, token, 0);
  }

  /**
   * Releases, and raises this node's fencing counter to {@code fencingToken} if it releases (for
   * Redlock, where the token may come from another node's counter; 0 raises nothing).
   */
  Release releaseRaising(LockKeys keys, String token, long fencingToken) {
    try { // no lambda on the fast path
      return parseRelease(
          Script.RELEASE.run(
              client, releaseKeys(keys, fencingToken), releaseArgs(keys, token, fencingToken)));
    } catch (JedisException e) {
      throw failure("release", keys, e);
    }
  }

  /** The release script's keys: the companion hash only when a counter is to be raised. */
  static List<String> releaseKeys(LockKeys keys, long fencingToken) {
    return fencingToken == 0 ? List.of(keys.lock()) : List.of(keys.lock(), keys.companion());
  }

  List<String> releaseArgs(LockKeys keys, String token, long fencingToken) {
    return fencingToken == 0
        ? List.of(token, keys.channel())
        : List.of(token, keys.channel(), Long.toString(fencingToken), companionTtlMillis);
  }

  static Release parseRelease(Object reply) {
    long status = asLong(reply);
    return status == 0 ? Release.NOT_OURS : Release.released(status - 1);
  }

  UnifiedJedis client() {
    return client;
  }

  @Override
  public long reissueFence(LockKeys keys, String token, Object grant) {
    Object reply =
        call(
            "fence",
            keys,
            () ->
                Script.REFENCE.run(
                    client,
                    List.of(keys.lock(), keys.companion()),
                    List.of(token, companionTtlMillis)));
    return asLong(reply);
  }

  @Override
  public boolean confirmFence(LockKeys keys, String token, long fencingToken) {
    return true; // issued atomically with the acquisition, or reissued, by this node's counter
  }

  /** Raises this node's fencing counter to at least {@code fencingToken}. */
  boolean raiseFence(LockKeys keys, long fencingToken) {
    Object reply =
        call(
            "fence",
            keys,
            () ->
                Script.FENCE.run(
                    client,
                    List.of(keys.companion()),
                    List.of(Long.toString(fencingToken), companionTtlMillis)));
    return asLong(reply) == 1;
  }

  @Override
  public long safetyMarginNanos() {
    return 0;
  }

  @Override
  public boolean isLocked(LockKeys keys) {
    return call("inspect", keys, () -> client.exists(keys.lock()));
  }

  @Override
  public void close() {
    if (ownsClient) {
      client.close();
    }
  }

  static <T> T call(String operation, LockKeys keys, Supplier<T> command) {
    try {
      return command.get();
    } catch (JedisException e) {
      throw failure(operation, keys, e);
    }
  }

  private static RedisLockException failure(String operation, LockKeys keys, JedisException e) {
    restoreInterrupt(e);
    return new RedisLockException(
        "Redis failed to " + operation + " lock key '" + keys.lock() + "': " + e.getMessage(), e);
  }

  /**
   * Jedis's cluster client sleeps between retries and wraps an interrupt of that sleep without
   * restoring the flag: restore it, so that the engine sees the interrupt.
   */
  private static void restoreInterrupt(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof InterruptedException) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  private static long asLong(Object value) {
    return ((Number) value).longValue();
  }
}
