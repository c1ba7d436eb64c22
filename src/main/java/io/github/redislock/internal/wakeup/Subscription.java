package io.github.redislock.internal.wakeup;

import io.github.redislock.internal.util.Backoff;
import io.github.redislock.internal.util.Threads;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.Connection;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * One wake-up subscription connection of a {@link WakeUps} source, and the thread that reads it:
 * the channels it carries, and the commands that bring its server in line with them. Its state is
 * guarded by the owner's monitor: the owner calls it with the monitor held, and it calls the owner
 * back with the monitor held.
 *
 * <p>The connection is health-checked. When nothing came on it for {@value #CHECK_MILLIS} ms, a
 * probe goes out (a repeated {@code SUBSCRIBE}, or {@code SSUBSCRIBE}, of one of its channels,
 * answered as a new subscription would be, and changing nothing); when the next check finds that
 * nothing came since, the connection is dropped, and the thread connects again and subscribes where
 * its channels live now. So a connection that went silent (a partition, a frozen master, a failover
 * to another address) is replaced within two checks, where it would otherwise wait for a reply
 * forever. A client that lends no connection (see {@link PubSubClient}) is not checked.
 */
final class Subscription implements PubSubListener.Events {
  /**
   * What a subscription belongs to (a {@link WakeUps} source): it tells it what its connection
   * does, and guards it with its monitor.
   */
  interface Owner {
    /** Whether the owner is closed: the subscription ends. */
    boolean isClosed();

    /** {@code subscription}'s thread ended. */
    void ended(Subscription subscription);

    /** {@code subscription}'s connection ended: its channels are not active until it is back. */
    void lost(Subscription subscription);

    /**
     * The routes of {@code subscription}'s channels may have changed. Called without the monitor.
     */
    void reroute(Subscription subscription);

    /** The server confirmed {@code channel} on {@code subscription}. */
    void subscribed(Subscription subscription, String channel);

    /** {@code channel} left {@code subscription}: asked for, or {@code byServer}. */
    void unsubscribed(Subscription subscription, String channel, boolean byServer);

    /**
     * A message on {@code channel}.
     *
     * @return the signals raised, or {@code null} for none: the caller wakes their threads once it
     *     has let go of the monitor
     */
    List<Signal> message(String channel, String message);
  }

  private static final Logger log = LoggerFactory.getLogger(Subscription.class);
  static final long CHECK_MILLIS = 2000;

  private final Owner owner;
  private final PubSubClient client;
  private final Executor checks;

  /**
   * Where its channels live: their master under sharded Pub/Sub, else {@link PubSubClient#PLAIN}.
   */
  final Object route;

  // All guarded by owner.
  /** The channels it carries: set by the owner. */
  final Set<String> channels = new HashSet<>();

  /** The channels subscribed, or asked for, on the current connection. */
  private final Set<String> sent = new HashSet<>();

  /** The channels whose unsubscribe it sent on the current connection, not yet confirmed. */
  private final Set<String> unsubscribing = new HashSet<>();

  private PubSubListener listener;
  private Connection connection;
  private boolean connected;
  private boolean ending;

  /**
   * Whether the current connection is closed, or about to be: no command may be sent on it any
   * more. Jedis reconnects a closed {@code Connection} on its next command (a new socket, without
   * handshake), and nobody would read or close that socket: it stayed subscribed, and open until a
   * garbage collection.
   */
  private boolean dropped;

  private boolean heard;
  private boolean probed;
  private Thread thread;

  Subscription(Owner owner, PubSubClient client, Object route, Executor executor) {
    this.owner = owner;
    this.client = client;
    this.route = route;
    this.checks = CompletableFuture.delayedExecutor(CHECK_MILLIS, TimeUnit.MILLISECONDS, executor);
  }

  /** Brings the connection in line with {@link #channels}; starts the thread if needed. */
  void reconcile() {
    if (thread == null) {
      if (!channels.isEmpty()) {
        thread = Threads.daemon("redis-lock-wakeups").newThread(this::run);
        thread.start();
      }
      return;
    }
    if (listener == null || !connected || ending || dropped) {
      return; // the thread subscribes to every channel when it (re)connects
    }
    try {
      if (channels.isEmpty()) {
        ending = true; // no command may follow: the connection goes back to the pool
        listener.removeAll();
        return;
      }
      List<String> add = new ArrayList<>();
      for (String channel : channels) {
        if (sent.add(channel)) {
          add.add(channel);
        }
      }
      List<String> remove = new ArrayList<>();
      for (String channel : sent) {
        if (!channels.contains(channel)) {
          remove.add(channel);
        }
      }
      sent.removeAll(remove);
      unsubscribing.addAll(remove);
      if (!add.isEmpty()) {
        listener.add(add.toArray(String[]::new));
      }
      if (!remove.isEmpty()) {
        listener.remove(remove.toArray(String[]::new));
      }
    } catch (RuntimeException e) {
      log.debug("wake-up subscription change failed; the subscriber thread reconnects", e);
    }
  }

  /** Drops the connection, so that the thread connects again (or ends, if closed). */
  void disconnect() {
    Connection current;
    synchronized (owner) {
      current = connection;
      if (current != null) {
        dropped = true; // before the close: nothing is sent on it after
      }
    }
    if (current != null) {
      try {
        current.forceDisconnect();
      } catch (IOException | RuntimeException e) {
        log.debug("dropping a wake-up subscription connection failed", e);
      }
    }
  }

  /** Waits up to {@code millis} for the thread to end. */
  void join(long millis) throws InterruptedException {
    Thread running;
    synchronized (owner) {
      running = thread;
    }
    if (running != null && running != Thread.currentThread()) {
      running.join(Math.max(1, millis));
    }
  }

  private void run() {
    Backoff backoff = new Backoff();
    while (true) {
      PubSubListener current;
      String[] first;
      boolean sharded = client.sharded();
      synchronized (owner) {
        if (channels.isEmpty() || owner.isClosed()) {
          thread = null;
          owner.ended(this);
          return;
        }
        current = sharded ? new PubSubListener.Sharded(this) : new PubSubListener.Plain(this);
        listener = current;
        connected = false;
        ending = false;
        dropped = false;
        sent.clear();
        unsubscribing.clear();
        if (sharded) {
          sent.add(channels.iterator().next()); // one slot per SSUBSCRIBE: the rest when confirmed
        } else {
          sent.addAll(channels);
        }
        first = sent.toArray(String[]::new);
      }
      boolean failed = false;
      try {
        subscribe(current, first);
        backoff = new Backoff();
      } catch (JedisDataException e) {
        if (sharded
            && String.valueOf(e.getMessage())
                .toLowerCase(Locale.ROOT)
                .contains("unknown command")) {
          if (client.shardedUnsupported()) {
            log.info("Redis has no sharded Pub/Sub (before 7.0): wake-ups use plain Pub/Sub");
          }
        } else {
          failed = true;
          log.debug("wake-up subscription failed; waiters re-check until it is back", e);
        }
      } catch (RuntimeException e) {
        failed = true;
        log.debug("wake-up subscription failed; waiters re-check until it is back", e);
      }
      synchronized (owner) {
        listener = null;
        connection = null;
        connected = false;
        owner.lost(this);
        sent.clear();
        if (failed && !channels.isEmpty() && !owner.isClosed()) {
          try {
            owner.wait(TimeUnit.NANOSECONDS.toMillis(backoff.nextNanos()) + 1);
          } catch (InterruptedException e) {
            thread = null;
            owner.ended(this);
            return;
          }
        }
      }
      if (failed || sharded != client.sharded()) {
        owner.reroute(this); // the channels' masters may have changed: a failover, a resharding
      }
    }
  }

  /** Subscribes {@code first} on a new connection, and reads it until the subscription ends. */
  private void subscribe(PubSubListener current, String[] first) {
    synchronized (owner) {
      if (listener != current || owner.isClosed()) {
        return; // closed since the channels were picked: no connection is asked for
      }
    }
    Connection borrowed = client.connection(first[0]);
    if (borrowed == null) {
      client.subscribe(
          (PubSubListener.Plain) current, first); // only plain: a cluster client lends connections
      return;
    }
    try (borrowed) {
      synchronized (owner) {
        if (listener != current || owner.isClosed()) {
          // Closed while the connection was being made: close() found no connection to drop, so
          // nothing may be subscribed on this one (it goes back to the pool, or is destroyed by a
          // pool closed meanwhile).
          return;
        }
        connection = borrowed;
        heard = false;
        probed = false;
      }
      scheduleCheck(current);
      boolean reusable = false;
      try {
        current.run(borrowed, first);
        reusable = endedByUs(current);
      } finally {
        synchronized (owner) {
          dropped = true; // closed or given back below: a change now waits for the next connection
        }
        if (!reusable) {
          // The next command lent this connection would read what is still due on it as its own
          // reply: Pub/Sub messages, a probe's answer, a confirmation. It is closed instead.
          borrowed.setBroken();
        }
      }
    }
  }

  /**
   * Whether the connection of {@code current}, whose loop just returned, may go back to the pool:
   * only when we unsubscribed from everything ({@link #reconcile} with no channel, after which no
   * command is sent) and the server confirmed it, so nothing is due on it any more.
   *
   * <p>Any other end leaves the connection subscribed or with replies under way. Jedis's loop also
   * ends on an error reply, with the connection still subscribed and not marked broken: a server
   * that is loading its data (a replica's resynchronization after a failover, a restart) answers
   * the health probe {@code LOADING}. And the server ends sharded subscriptions by itself
   * (sunsubscribe, when a slot leaves it), whatever is still under way (a probe, a channel added or
   * removed); so a sharded connection is never reused.
   */
  private boolean endedByUs(PubSubListener current) {
    if (current instanceof PubSubListener.Sharded || current.isSubscribed()) {
      return false;
    }
    synchronized (owner) {
      return ending && listener == current;
    }
  }

  private void scheduleCheck(PubSubListener of) {
    try {
      checks.execute(() -> check(of));
    } catch (RejectedExecutionException e) {
      // the factory is closing
    }
  }

  /**
   * Every {@value #CHECK_MILLIS} ms while connected: probes a quiet connection, drops a dead one.
   */
  private void check(PubSubListener of) {
    synchronized (owner) {
      if (listener != of || connection == null || ending || dropped) {
        return; // that connection is gone, or going
      }
      if (heard || !probed) {
        try {
          if (!heard && !sent.isEmpty()) {
            of.probe(sent.iterator().next());
          }
          probed = !heard;
          heard = false;
        } catch (RuntimeException e) {
          log.debug("probing the wake-up subscription failed", e);
        }
        scheduleCheck(of);
        return;
      }
    }
    log.debug("the wake-up subscription went silent; connecting again");
    disconnect();
  }

  // Callbacks from the reading thread.

  @Override
  public void subscribed(PubSubListener from, String channel) {
    synchronized (owner) {
      if (listener != from) {
        return;
      }
      heard = true;
      connected = true;
      owner.subscribed(this, channel);
      reconcile();
    }
  }

  @Override
  public void unsubscribed(PubSubListener from, String channel) {
    boolean byServer;
    synchronized (owner) {
      if (listener != from) {
        return;
      }
      heard = true;
      boolean asked = unsubscribing.remove(channel);
      byServer = !ending && !asked && sent.remove(channel); // its slot moved away
      owner.unsubscribed(this, channel, byServer);
    }
    if (byServer) {
      owner.reroute(this);
    }
  }

  @Override
  public void message(PubSubListener from, String channel, String message) {
    List<Signal> raised;
    synchronized (owner) {
      if (listener == from) {
        heard = true;
      }
      raised = owner.message(channel, message);
    }
    if (raised != null) {
      for (Signal signal : raised) {
        signal.wake();
      }
    }
  }

  @Override
  public void pong(PubSubListener from) {
    synchronized (owner) {
      if (listener == from) {
        heard = true;
      }
    }
  }
}
