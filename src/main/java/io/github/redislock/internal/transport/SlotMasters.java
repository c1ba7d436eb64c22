package io.github.redislock.internal.transport;

import io.github.redislock.internal.jedis.Lender;
import io.github.redislock.internal.util.Threads;
import io.github.redislock.internal.util.Ticker;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionPool;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.util.JedisClusterCRC16;
import redis.clients.jedis.util.SafeEncoder;

/**
 * Which master serves each slot of a Redis Cluster, by name ({@code host:port}), as the cluster
 * answered {@code CLUSTER SLOTS} when last asked. For keeping each master's work apart, never for
 * routing: the client routes every command itself and follows redirections, so an answer out of
 * date after a failover or a resharding costs only that separation, until the next refresh.
 *
 * <p>Look-ups are answered from memory. The table is asked for in the background: at creation, and
 * again when a look-up finds it older than {@value #REFRESH_SECONDS} s; the node that answered last
 * is asked first, then the others in turn, so a node that stopped answering costs a refresh its
 * timeout, never a caller. Until the first answer every key is on {@link #UNKNOWN}.
 *
 * <p>Jedis keeps the same table, but lends it only through {@code getConnectionFromSlot}, which
 * borrows a connection: one that may have to be made, or waited for, on a node that stopped
 * answering.
 */
public final class SlotMasters implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(SlotMasters.class);

  /** The name of every master before the cluster's first answer. */
  public static final String UNKNOWN = "cluster";

  private static final int SLOTS = 16_384;
  private static final long REFRESH_SECONDS = 5;
  private static final long REFRESH_NANOS = TimeUnit.SECONDS.toNanos(REFRESH_SECONDS);
  private static final CommandArguments CLUSTER_SLOTS =
      new CommandArguments(Protocol.Command.CLUSTER).add(Protocol.ClusterKeyword.SLOTS);

  private final Lender cluster;
  private final Ticker ticker;
  private final AtomicBoolean refreshing = new AtomicBoolean();

  /** Each slot's master; {@code null}: not asked yet. */
  private volatile String[] masters;

  private volatile long refreshedAt;
  private volatile String lastAnswered;
  private volatile boolean closed;

  /**
   * The masters of {@code cluster}'s slots, asked for at once in the background.
   *
   * @param cluster what the Cluster client whose nodes are asked lends
   * @param ticker the clock of the refreshes
   */
  public SlotMasters(Lender cluster, Ticker ticker) {
    this.cluster = cluster;
    this.ticker = ticker;
    refreshInBackground();
  }

  /**
   * The master that served the slot of {@code key} when the cluster was last asked.
   *
   * @param key a key
   * @return its name, {@code host:port}, or {@link #UNKNOWN} before the cluster's first answer
   */
  public String masterOf(String key) {
    String[] table = masters;
    if (table == null || ticker.read() - refreshedAt >= REFRESH_NANOS) {
      refreshInBackground();
    }
    String master = table == null ? null : table[JedisClusterCRC16.getSlot(key)];
    return master == null ? UNKNOWN : master;
  }

  private void refreshInBackground() {
    if (closed || !refreshing.compareAndSet(false, true)) {
      return;
    }
    try {
      Threads.daemon("redis-lock-slots").newThread(this::refresh).start();
    } catch (RuntimeException | Error e) {
      refreshing.set(false);
      log.debug("could not start asking the cluster for its slots", e);
    }
  }

  private void refresh() {
    try {
      for (String node : nodesToAsk()) {
        if (closed) {
          return;
        }
        ConnectionPool pool = cluster.clusterNodes().get(node);
        if (pool != null && ask(node, pool)) {
          return;
        }
      }
    } catch (RuntimeException e) {
      log.debug("could not ask the cluster for its slots", e);
    } finally {
      refreshedAt = ticker.read(); // after a failure too: the next look-up after the period retries
      refreshing.set(false);
    }
  }

  /** The nodes of the cluster, the one that answered last first. */
  private List<String> nodesToAsk() {
    List<String> nodes = new ArrayList<>(cluster.clusterNodes().keySet());
    Collections.shuffle(nodes);
    String last = lastAnswered;
    if (last != null && nodes.remove(last)) {
      nodes.add(0, last);
    }
    return nodes;
  }

  /** Asks {@code node} for the slots' masters; {@code false} when it did not answer. */
  private boolean ask(String node, ConnectionPool pool) {
    try (Connection connection = pool.getResource()) {
      String[] table = parse(connection.executeCommand(CLUSTER_SLOTS));
      masters = table;
      lastAnswered = node;
      return true;
    } catch (RuntimeException e) {
      log.debug("{} did not tell the cluster's slots", node, e);
      return false;
    }
  }

  /**
   * Each slot's master in a {@code CLUSTER SLOTS} reply: ranges of {@code [start, end, master,
   * replicas...]}, each node {@code [ip, port, id, ...]}; a master of unknown address ({@code ""}
   * or {@code "?"}) is named by its node id.
   */
  static String[] parse(Object reply) {
    String[] table = new String[SLOTS];
    for (Object entry : (List<?>) reply) {
      List<?> range = (List<?>) entry;
      int start = ((Long) range.get(0)).intValue();
      int end = ((Long) range.get(1)).intValue();
      List<?> master = (List<?>) range.get(2);
      String host = SafeEncoder.encode((byte[]) master.get(0));
      String name =
          host.isEmpty() || host.equals("?")
              ? SafeEncoder.encode((byte[]) master.get(2))
              : host + ":" + master.get(1);
      Arrays.fill(table, start, end + 1, name);
    }
    return table;
  }

  /** Stops refreshing. */
  @Override
  public void close() {
    closed = true;
  }
}
