package io.github.redislock.internal.backend;

import io.github.redislock.internal.backend.Acquisition.Grant;
import io.github.redislock.internal.jedis.Lender;
import io.github.redislock.internal.jedis.Lenders;
import io.github.redislock.internal.transport.Direct;
import io.github.redislock.internal.transport.SlotMasters;
import io.github.redislock.internal.util.Ticker;
import java.util.List;
import java.util.Optional;
import redis.clients.jedis.UnifiedJedis;

/**
 * The lock on one Redis deployment reached through one {@link UnifiedJedis}: a standalone server, a
 * Sentinel-managed master or a Cluster (every key of a lock sits in one slot). Each operation is
 * one of {@link LockCommands}' requests, called on the client.
 */
public final class SingleNodeBackend implements LockBackend {
  private final UnifiedJedis client;

  /** Closes the client, when this backend made it (the caller's is never closed); or null. */
  private final Runnable closeClient;

  private final WireArguments wire;
  private final LockCommands commands;
  private final Direct direct;
  private final AccessCheck access;
  private final AccessCheck fairAccess = new AccessCheck();
  private final AccessCheck readWriteAccess = new AccessCheck();
  private final AccessCheck conditionAccess = new AccessCheck();
  private final OrderedOps ordered;

  /** Whether this is a view for another lease ({@link #withLease}), which closes nothing. */
  private final boolean view;

  private final InspectCommands inspection;

  /** On a Cluster, which master serves each slot; else {@code null}. */
  private final SlotMasters slotMasters;

  /** On Sentinel, what the client that tells the current master lends; else {@code null}. */
  private final Lender sentinel;

  /**
   * A backend on {@code client}, whose nodes' names (on a Cluster) are refreshed on the system
   * clock.
   *
   * @param client a standalone, Sentinel or Cluster client
   * @param closeClient how {@link #close()} closes the client, or {@code null} for a caller's
   *     client, which it never closes
   * @param leaseMillis the lease every acquisition and renewal sets
   */
  public SingleNodeBackend(UnifiedJedis client, Runnable closeClient, long leaseMillis) {
    this(client, closeClient, leaseMillis, Ticker.SYSTEM);
  }

  /**
   * A backend on {@code client}.
   *
   * @param client a standalone, Sentinel or Cluster client
   * @param closeClient how {@link #close()} closes the client, or {@code null} for a caller's
   *     client, which it never closes
   * @param leaseMillis the lease every acquisition and renewal sets
   * @param ticker the clock by which a Cluster's masters are asked for again (see {@link
   *     SlotMasters})
   */
  public SingleNodeBackend(
      UnifiedJedis client, Runnable closeClient, long leaseMillis, Ticker ticker) {
    this.client = client;
    this.closeClient = closeClient;
    Lender lender = Lenders.of(client);
    boolean cluster = lender.shape() == Lender.Shape.CLUSTER;
    // A Redis Cluster carries wake-ups by sharded Pub/Sub (see internal.wakeup's PubSubClient).
    this.wire = WireArguments.of(leaseMillis, cluster);
    this.commands = new LockCommands(wire);
    this.access = new AccessCheck();
    this.direct = new Direct(client);
    this.ordered =
        new OrderedOps(
            new FairQueue(
                client,
                new FairCommands(wire),
                direct,
                keys -> checkAccess(fairAccess, keys, "fair")),
            new ReadWriteOps(
                client,
                new ReadWriteCommands(wire),
                direct,
                keys -> checkAccess(readWriteAccess, keys, "rw")),
            new ConditionQueue(
                client, direct, wire, keys -> checkAccess(conditionAccess, keys, "cond")));
    this.inspection = new InspectCommands(wire);
    this.slotMasters = cluster ? new SlotMasters(lender, ticker) : null;
    this.sentinel = lender.shape() == Lender.Shape.SENTINEL && knowsMaster(lender) ? lender : null;
    this.view = false;
  }

  /** A view of {@code base} whose holds and entries last {@code leaseMillis} (see withLease). */
  private SingleNodeBackend(SingleNodeBackend base, long leaseMillis) {
    this.client = base.client;
    this.closeClient = null;
    this.wire = base.wire.withLease(leaseMillis);
    this.commands = new LockCommands(wire);
    this.direct = base.direct;
    this.access = base.access;
    this.ordered = base.ordered.withLease(leaseMillis); // its checks are the base's
    this.inspection = new InspectCommands(wire);
    this.slotMasters = base.slotMasters;
    this.sentinel = base.sentinel;
    this.view = true;
  }

  /**
   * {@inheritDoc}
   *
   * <p>Here: on the same client, connections, access checks and nodes' names.
   */
  @Override
  public LockBackend withLease(long leaseMillis) {
    return new SingleNodeBackend(this, leaseMillis);
  }

  /** Whether the client tells its current master (one built on a provider of its own may not). */
  private static boolean knowsMaster(Lender sentinel) {
    try {
      return sentinel.currentMaster() != null;
    } catch (RuntimeException e) {
      return false;
    }
  }

  /**
   * {@inheritDoc}
   *
   * <p>Here: on a Cluster, the master of the keys' slot ({@link SlotMasters}); on Sentinel, the
   * current master, so that after a failover the new master's calls do not wait behind the old
   * one's; else the one server.
   */
  @Override
  public String nodeOf(LockKeys keys) {
    if (slotMasters != null) {
      return slotMasters.masterOf(keys.lock());
    }
    if (sentinel != null) {
      return String.valueOf(sentinel.currentMaster());
    }
    return ONE_NAME;
  }

  /**
   * Until a check of {@code check} passes, asks the server whether the Redis user may run every
   * command that locks of {@code kind} need ({@link AccessCheck}), and throws, having taken
   * nothing, when it may not.
   */
  private void checkAccess(AccessCheck check, LockKeys keys, String kind) {
    if (!check.passed()) {
      List<String> denied = commands.checkAccess(keys, kind).call(client);
      if (!denied.isEmpty()) {
        throw AccessCheck.refused(keys, denied, "");
      }
      check.pass();
    }
  }

  @Override
  public Optional<OrderedOps> orderedOps() {
    return Optional.of(ordered);
  }

  /**
   * {@inheritDoc}
   *
   * <p>The first acquisition asks the server first whether the Redis user may run every command the
   * lock needs ({@link AccessCheck}), and throws, taking nothing, when it may not.
   */
  @Override
  public Acquisition tryAcquire(LockKeys keys, String token, boolean fenced, boolean expectBusy) {
    checkAccess(access, keys, "lock");
    return tryAcquire(keys, token, Ask.of(fenced, expectBusy));
  }

  /**
   * One attempt, with the commands {@code ask} calls for.
   *
   * <p>For {@link Ask#PLAIN}, a plain {@code SET NX PX}; when it finds the lock busy (or an earlier
   * attempt's {@code SET} landed and its reply was lost), the acquire script tells which, and how
   * long the lock stays busy.
   */
  Acquisition tryAcquire(LockKeys keys, String token, Ask ask) {
    if (ask == Ask.PLAIN) {
      Acquisition plain = commands.plainAcquire(keys, token).call(client);
      if (plain.acquired()) {
        return plain;
      }
    }
    return commands.acquire(keys, token, ask == Ask.FENCED).call(client);
  }

  @Override
  public boolean extend(LockKeys keys, String token) {
    return commands.extend(keys, token).call(client);
  }

  /**
   * {@inheritDoc}
   *
   * <p>Here the release is sent at most once ({@link Direct}): never resent by the client's own
   * retries, whose second answer ("not ours", after the first deleted the key) would pass for a
   * lost hold. A failure tells whether the release may have run ({@link Failures#certainlyNotRun})
   * and where it was sent; a "not ours" names the server that gave it.
   */
  @Override
  public Release release(LockKeys keys, String token, long fencingToken, Grant grant) {
    // This node issued the token from its own counter: the counter is at least the token.
    Direct.Reply<Release> reply = direct.send(commands.release(keys, token, 0), keys.lock());
    return reply.value().released() ? reply.value() : Release.notOurs(reply.server());
  }

  @Override
  public long reissueFence(LockKeys keys, String token, Grant grant) {
    return commands.reissueFence(keys, token).call(client);
  }

  @Override
  public boolean confirmFence(LockKeys keys, String token, long fencingToken) {
    return true; // issued atomically with the acquisition, or reissued, by this node's counter
  }

  @Override
  public long safetyMarginNanos() {
    return 0;
  }

  @Override
  public boolean isLocked(LockKeys keys) {
    return commands.isLocked(keys).call(client);
  }

  @Override
  public LockState inspect(LockKeys keys) {
    return inspection.inspect(keys).call(client);
  }

  @Override
  public boolean forceUnlock(LockKeys keys) {
    return inspection.forceUnlock(keys).call(client) > 0;
  }

  @Override
  public void describeHolder(LockKeys keys, String token, String host, long pid, String thread) {
    inspection.describe(keys, token, host, pid, thread).call(client);
  }

  @Override
  public void close() {
    if (view) {
      return; // the base's client and slot masters
    }
    if (slotMasters != null) {
      slotMasters.close();
    }
    if (closeClient != null) {
      closeClient.run();
    }
  }
}
