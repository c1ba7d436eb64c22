package io.github.redislock;

import io.github.redislock.internal.Settings;
import io.github.redislock.internal.backend.LockState;
import io.github.redislock.internal.client.Kind;
import io.github.redislock.internal.client.RedisClients;
import io.github.redislock.internal.client.Tls;
import io.github.redislock.internal.engine.Assembly;
import io.github.redislock.internal.engine.LockEngine;
import io.github.redislock.internal.jedis.JedisApi;
import io.github.redislock.internal.util.Ticker;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocketFactory;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.UnifiedJedis;

/**
 * Hands out {@link RedisDistributedLock}s by name, on one Redis deployment or over Redlock masters.
 * One per application: thread-safe, long-lived, {@link AutoCloseable}.
 *
 * <pre>{@code
 * try (RedisLockFactory locks = RedisLockFactory.builder()
 *     .standalone("redis://localhost:6379")
 *     .build()) {
 *   Lock lock = locks.getLock("orders");
 *   ...
 * }
 * }</pre>
 *
 * <p>A factory owns a renewal thread (while anything is held), one pub/sub connection per Redis
 * source (while anyone waits; on a Redis Cluster, one per master whose locks it waits for), the
 * Redis clients it created from URIs, and threads for background Redis calls, kept apart per Redis
 * node (each master of a Cluster; under Redlock the masters count as one, its transport bounding
 * each): a node that stops answering delays only its own holds' renewals and its own callers. For
 * each node serving a held or awaited lock, it runs at most 16 threads for timed attempts that
 * could overrun their deadline and for clean-up releases, with at most 256 more such calls waiting
 * (beyond, a timed attempt fails with {@link RedisLockException} as when Redis is unavailable, and
 * a clean-up leaves its key to expire with its lease), and at most 8 threads for renewals, behind
 * which at most one renewal per hold waits. They start only when the node's others are busy, and
 * end after 10 seconds idle. At most 16 more threads do its bookkeeping (leaving a fair lock's
 * queue, withdrawing a writer's intent, conditions, checking subscriptions), however stalled Redis
 * is. Closing it stops renewals and releases nothing that users still hold: their holds are
 * reported lost, and their next {@code unlock()} throws {@link LockLostException}; every thread
 * waiting in a lock call of the factory throws {@link IllegalStateException}. Closing always
 * completes, whatever the {@code onLockLost} listener throws. It closes only the clients it created
 * itself, never a caller's {@link UnifiedJedis}.
 */
public final class RedisLockFactory implements AutoCloseable {
  /**
   * The most background threads a factory runs for calls to one Redis node: {@value}, the 16 for
   * timed attempts and clean-up releases and the 8 for renewals (see the class description). {@link
   * LockActivity#threadsOf} never exceeds it.
   */
  public static final int MAX_THREADS_PER_NODE = LockEngine.MAX_THREADS_PER_NODE;

  private final LockEngine engine;

  private RedisLockFactory(LockEngine engine) {
    this.engine = engine;
  }

  /**
   * Returns a new builder.
   *
   * @return a builder with no endpoint and the default settings
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Returns the lock of the given name. Locks of the same name are the same lock: across the
   * instances this factory returns, and across processes using the same Redis and key prefix. Locks
   * of different names never share a key or channel in Redis, whatever the names look like: {@code
   * "orders"} and {@code "{orders}"} are two locks.
   *
   * <p>Besides its key, a lock keeps companion keys in Redis (its fencing counter, {@code
   * "{name}:lock-meta"} for a name without braces, and its wake-up channel), whose names end in
   * {@code ":lock-"} followed by lowercase letters. No lock key may end so, or one lock would be
   * another's companion: the name {@code "{a}:lock-meta"} is refused, since it is lock {@code a}'s
   * fencing counter.
   *
   * @param name the lock's name; its Redis key is {@code keyPrefix + name}
   * @return the lock
   * @throws NullPointerException if {@code name} is null
   * @throws IllegalArgumentException if {@code name} is empty, has a lone surrogate (it is not
   *     Unicode text, and has no UTF-8 form), or its key ends in {@code ":lock-"} followed by
   *     lowercase letters (reserved for companion keys)
   * @throws IllegalStateException if this factory is closed
   */
  public RedisDistributedLock getLock(String name) {
    return new RedisDistributedLock(
        engine.exclusive(), engine.exclusiveConditions(), checkName(name));
  }

  /**
   * Returns the read-write lock of the given name: a {@link RedisReadWriteLock} whose read lock is
   * shared by threads of every process and whose write lock excludes them all, like a {@code
   * ReentrantReadWriteLock} across processes. Read-write locks of the same name are the same lock,
   * across the instances this factory returns and across processes using the same Redis and key
   * prefix.
   *
   * <p>The write lock is held in the lock key {@code keyPrefix + name}, the key the lock {@link
   * #getLock} returns for the name holds; read shares and waiting writers' intents are kept in
   * sorted sets beside it ({@code "{name}:lock-rs"} and {@code "{name}:lock-wi"} for a name without
   * braces), in its cluster slot, and expire when unused.
   *
   * @param name the lock's name; its Redis key is {@code keyPrefix + name}
   * @return the read-write lock
   * @throws NullPointerException if {@code name} is null
   * @throws IllegalArgumentException if {@code name} is empty, or its key is reserved (see {@link
   *     #getLock})
   * @throws IllegalStateException if this factory is closed
   * @throws UnsupportedOperationException with {@link Builder#redlock}: each independent master
   *     would decide on its own whether a reader waits behind a writer (see <a
   *     href="https://github.com/redislock/redis-lock/blob/main/docs/read-write.md">docs/read-write.md</a>)
   */
  public RedisReadWriteLock getReadWriteLock(String name) {
    String checked = checkName(name);
    return new RedisReadWriteLock(engine.readWrite(), checked);
  }

  /**
   * Returns the fair lock of the given name: a {@link RedisDistributedLock} whose waiters, in every
   * process, acquire it in the order they reached Redis, like a {@code ReentrantLock} created with
   * {@code new ReentrantLock(true)} across processes.
   *
   * <p>Waiters queue in Redis, ordered by a sequence Redis draws, never by a client's clock. Each
   * waiter's place has a lease that its waiting renews, so that the place of a waiter whose process
   * died is skipped once its lease runs out; a waiter that times out or is interrupted leaves the
   * queue at once; a release hands the lock to the first waiter, and wakes it alone. {@link
   * RedisDistributedLock#tryLock()} barges, as on a fair {@code ReentrantLock}: it takes a free
   * lock whoever waits. {@code tryLock(0, unit)} honours the queue (it takes a free lock only if
   * nobody waits), as the JDK advises for a fair {@code ReentrantLock}; a timed {@code tryLock},
   * {@code lock} and {@code lockInterruptibly} queue. Threads of this JVM also wait in their order
   * of arrival, and a hold never passes from one of them to the next without a release in Redis, so
   * that the order across processes holds.
   *
   * <p>The fair lock of a name is held in the same Redis key as the lock {@link #getLock} returns
   * for it: the two exclude each other, but only fair waiters queue.
   *
   * <p>In this implementation a place's lease is the {@linkplain Builder#leaseTime lease time}, and
   * a waiter renews its place at least every third of it; so a waiter that died while first delays
   * the others by at most one lease. Closing the factory takes its waiters' places out of their
   * queues, waiting for Redis at most one second. Keys, scripts, faults and the reasons for the
   * Redlock refusal: <a
   * href="https://github.com/redislock/redis-lock/blob/main/docs/fair.md">docs/fair.md</a>.
   *
   * @param name the lock's name; its Redis key is {@code keyPrefix + name}
   * @return the lock
   * @throws NullPointerException if {@code name} is null
   * @throws IllegalArgumentException if {@code name} is empty, or its key is reserved (see {@link
   *     #getLock})
   * @throws IllegalStateException if this factory is closed
   * @throws UnsupportedOperationException with {@link Builder#redlock}: independent masters can see
   *     waiters in different orders, so no queue across them is first come, first served
   */
  public RedisDistributedLock getFairLock(String name) {
    String checked = checkName(name); // bad input first, as for getLock, then Redlock's refusal
    return new RedisDistributedLock(engine.fair(), engine.fairConditions(), checked);
  }

  /**
   * Returns a snapshot of this factory's statistics: acquisitions, failed and timed-out attempts,
   * their waits, local handoffs, lost holds, Redis errors and renewals, counted since the factory
   * was built (see {@link LockStats}). Counted only when the factory was built with {@link
   * Builder#recordStats()}; otherwise every count is zero.
   *
   * <p>In this implementation counting costs a few striped counter increments ({@code LongAdder})
   * per acquisition; the snapshot sums them, without stopping the counting threads, so counts of
   * events in progress may be in or out.
   *
   * @return the statistics so far
   */
  public LockStats stats() {
    return Snapshots.stats(engine.stats());
  }

  /**
   * Returns a snapshot of what this factory is doing: the holds it renews, the lock names in use in
   * this JVM, the wake-up channels it is subscribed to, its background threads per Redis node, and
   * two counts since it was built, the turns it gave to other processes and the spurious wake-ups
   * of its conditions (see {@link LockActivity}). For monitoring, such as gauges, and for checking
   * that nothing is left once the locks are unlocked. Kept whatever the settings ({@link
   * Builder#recordStats()} is not needed).
   *
   * <p>As {@link #stats()}, it may be called after {@link #close()}: the snapshot then shows what
   * is left (no hold is renewed any more, the threads end within moments) and the counts keep their
   * values.
   *
   * <p>In this implementation it reads the state of this JVM only, with no Redis call; its cost
   * grows with the names in use, not with the locks ever made. Each figure is read without stopping
   * the threads that change it, so figures of events in progress may be in or out.
   *
   * @return the activity now
   */
  public LockActivity activity() {
    return Snapshots.activity(engine.activity());
  }

  /**
   * Returns a snapshot of the lock of the given name, read from Redis without taking the lock:
   * whether it is held, its remaining lease, its fencing counter, how many processes wait for it,
   * how many read holds a read-write lock of the name has, and, if its holder's factory was built
   * with {@link Builder#describeHolders()}, who holds it. For monitoring and operators: the lock
   * may have changed by the time the snapshot is read.
   *
   * <p>The name is the one given to {@link #getLock}, {@link #getFairLock} or {@link
   * #getReadWriteLock} (the key prefix of this factory applies). A plain and a fair lock of a name
   * share its key and look the same; for a read-write name the lock key is the write lock's, so
   * {@link LockInfo#isLocked()} tells whether the write lock is held and {@link LockInfo#readers()}
   * counts the read holds. The lock need not be one of this library: any client's {@code SET key
   * value NX PX} lock shows as held.
   *
   * <p>In this implementation one script reads the lock's keys and the subscriber count of its
   * wake-up channel ({@code PUBSUB NUMSUB}, or {@code PUBSUB SHARDNUMSUB} on a Redis Cluster) on
   * the node of the lock's slot, in one round trip, and writes nothing. Under Redlock every master
   * is asked, and the snapshot is what a majority agrees on: the lock is held when a majority of
   * the masters hold its key for the same owner, for as long as a majority keeps it; the fencing
   * counter and the waiters are the greatest any master has.
   *
   * @param name the lock's name
   * @return the snapshot
   * @throws NullPointerException if {@code name} is null
   * @throws IllegalArgumentException if {@code name} is empty or reserved (see {@link #getLock})
   * @throws RedisLockException if Redis cannot be reached (under Redlock, fewer than a majority of
   *     the masters answered)
   * @throws IllegalStateException if this factory is closed
   */
  public LockInfo inspect(String name) {
    LockState state = engine.inspect(checkName(name));
    return new LockInfo(
        name,
        state.owner() != null,
        state.owner() != null && state.pttlMillis() >= 0
            ? Duration.ofMillis(state.pttlMillis())
            : null,
        state.fencingCounter(),
        (int) Math.min(Integer.MAX_VALUE, state.subscribers()),
        (int) Math.min(Integer.MAX_VALUE, state.readers()),
        state.host() == null
            ? null
            : new LockInfo.Holder(
                state.host(),
                state.pid(),
                state.thread(),
                Instant.ofEpochMilli(state.sinceMillis())));
  }

  /**
   * Deletes the lock of the given name, whoever holds it, and wakes the processes waiting for it.
   * For operators, to free a lock whose holder is stuck.
   *
   * <p><b>This is dangerous.</b> It breaks mutual exclusion on purpose: the holder goes on running
   * as if it held the lock while the next process acquires it. The holder learns that it lost its
   * hold only at its next renewal (within a third of the lease), when its {@code onLockLost}
   * listener is told and its next {@code unlock()} throws {@link LockLostException}; until then it
   * may write to the protected resource. Use it only when the holder is known to be dead or stuck,
   * and protect the resource with fencing tokens ({@link RedisDistributedLock#getFencingToken()}):
   * the fencing counter is kept, so that the next holder's token is greater and the former holder's
   * late writes are rejected.
   *
   * <p>For a read-write name it deletes the write lock and every read hold; waiting writers keep
   * their place. For a fair name it deletes the lock and wakes the waiters, whose queue moves on. A
   * holder of this factory learns it at its next renewal, like any other.
   *
   * <p>In this implementation one script deletes the lock key, the read shares and the holder's
   * description, and publishes the release on the lock's wake-up channel. Under Redlock it is run
   * on every master; it returns whether any master deleted a key, and throws when fewer than a
   * majority of the masters answered (a majority may still hold the lock).
   *
   * @param name the lock's name
   * @return {@code true} if a lock key or read hold was deleted, {@code false} if nobody held the
   *     lock
   * @throws NullPointerException if {@code name} is null
   * @throws IllegalArgumentException if {@code name} is empty or reserved (see {@link #getLock})
   * @throws RedisLockException if Redis cannot be reached (under Redlock, fewer than a majority of
   *     the masters answered)
   * @throws IllegalStateException if this factory is closed
   */
  public boolean forceUnlock(String name) {
    return engine.forceUnlock(checkName(name));
  }

  /**
   * Stops renewals, wakes waiting threads (they throw {@link IllegalStateException}), and closes
   * the Redis clients this factory created. Holds still held are reported lost. Threads waiting in
   * a fair lock's queue or on a condition first leave their queues in Redis, so that no release
   * hands the lock to them; each kind of lock waits at most a second for Redis there, and what it
   * could not remove runs out with its lease. Calling it again has no effect.
   */
  @Override
  public void close() {
    engine.close();
  }

  private String checkName(String name) {
    Objects.requireNonNull(name, "lock name must not be null");
    if (name.isEmpty()) {
      throw new IllegalArgumentException("lock name must not be empty");
    }
    engine.exclusive().checkName(name);
    engine.checkOpen();
    return name;
  }

  /**
   * Builds a {@link RedisLockFactory}. Exactly one endpoint must be given: {@link #standalone},
   * {@link #sentinel}, {@link #cluster}, {@link #client}, {@link #redlock} or {@link
   * #redlockClients}. Each setting may be given once; a bad or repeated setting is rejected at
   * once.
   */
  public static final class Builder {
    static final Duration DEFAULT_LEASE = Duration.ofSeconds(30);
    static final Duration MIN_LEASE = Duration.ofMillis(100);
    static final Duration MAX_LEASE = Duration.ofDays(1);
    static final Duration DEFAULT_COMMAND_TIMEOUT = Duration.ofSeconds(2);
    static final Duration DEFAULT_NODE_TIMEOUT = Duration.ofMillis(50);

    private String endpoint;
    private String endpointUri;
    private UnifiedJedis client;
    private List<String> redlockUris;
    private List<UnifiedJedis> redlockMasters;
    private Duration redlockNodeTimeout;
    private Duration leaseTime;
    private Duration commandTimeout;
    private String keyPrefix;
    private Consumer<LockLostEvent> onLockLost;
    private Tls tls;
    private Duration maxHoldTime;
    private boolean describeHolders;
    private boolean recordStats;
    private LockStatsListener statsListener;

    private Builder() {}

    /**
     * Uses one Redis server, reached with a client this factory creates and closes.
     *
     * @param redisUri {@code redis://[user:password@]host:port[/db]}, or {@code rediss://...} for
     *     TLS (see {@link #tls})
     * @return this builder
     * @throws NullPointerException if {@code redisUri} is null
     * @throws IllegalArgumentException if it is not such a URI
     * @throws IllegalStateException if an endpoint was already set
     */
    public Builder standalone(String redisUri) {
      Objects.requireNonNull(redisUri, "redisUri");
      setUri("standalone", redisUri, Kind.STANDALONE);
      return this;
    }

    /**
     * Uses the master of a Redis Sentinel deployment, reached with a client this factory creates
     * and closes. The client asks the Sentinels for the master at {@link #build()}, and follows it
     * across failovers. Replication is asynchronous: a lock taken just before a failover may be
     * missing on the new master; its holder then learns that its hold was lost (see {@link
     * #onLockLost}), and fencing tokens keep increasing.
     *
     * @param sentinelUri {@code
     *     redis-sentinel://[user:password@]host:port[,host:port...]/masterName[/db]}, with the
     *     addresses of the Sentinels; the user and password are the master's. {@code
     *     rediss-sentinel://} reaches the Sentinels and the master over TLS (see {@link #tls})
     * @return this builder
     * @throws NullPointerException if {@code sentinelUri} is null
     * @throws IllegalArgumentException if it is not such a URI
     * @throws IllegalStateException if an endpoint was already set
     */
    public Builder sentinel(String sentinelUri) {
      Objects.requireNonNull(sentinelUri, "sentinelUri");
      setUri("sentinel", sentinelUri, Kind.SENTINEL);
      return this;
    }

    /**
     * Uses a Redis Cluster, reached with a client this factory creates and closes. The client asks
     * the seed nodes for the cluster's slots at {@link #build()}. Every key of one lock is in one
     * slot, whatever the lock's name. A master that fails over to a replica may not have replicated
     * a lock taken just before; as with {@link #sentinel}, its holder then learns that its hold was
     * lost.
     *
     * @param clusterUri {@code redis-cluster://[user:password@]host:port[,host:port...]}, with one
     *     or more of the cluster's nodes; {@code rediss-cluster://} for TLS (see {@link #tls})
     * @return this builder
     * @throws NullPointerException if {@code clusterUri} is null
     * @throws IllegalArgumentException if it is not such a URI
     * @throws IllegalStateException if an endpoint was already set
     */
    public Builder cluster(String clusterUri) {
      Objects.requireNonNull(clusterUri, "clusterUri");
      setUri("cluster", clusterUri, Kind.CLUSTER);
      return this;
    }

    /**
     * Uses the Redlock algorithm over independent masters (no replication between them), reached
     * with clients this factory creates and closes. A lock is held when a majority of the masters
     * (N/2+1) granted it within its validity; see {@link RedisDistributedLock} for what this does
     * and does not promise. An even number of masters is allowed but wasteful: four tolerate no
     * more failures than three.
     *
     * <p>Each master must be a different Redis server: {@link #build()} asks every master which
     * server it is and refuses two URIs that reach the same one (such as {@code localhost} and
     * {@code 127.0.0.1}, or databases {@code /0} and {@code /1} of one server), which would count
     * twice towards a majority.
     *
     * <p>In this implementation an operation that succeeds on a majority while some masters fail
     * logs a warning naming them, at most every 10 seconds. Unless {@link #commandTimeout} is set,
     * the clients' socket timeout is ten times the {@linkplain #redlockNodeTimeout node timeout},
     * and at least 200 milliseconds. Each master gets connections of its own, at most 64, opened on
     * a background thread (within the socket timeout) while an operation asks the other masters. A
     * master that has not answered within the node timeout, or whose connection failed, is skipped
     * by the following operations until it answers again: its late reply comes, or a new connection
     * succeeds, tried in the background after 5 to 10 milliseconds and then with a backoff that
     * doubles up to 1 second. So a dead, frozen or unreachable master costs one operation about the
     * node timeout, and the next ones nothing. An operation whose replies have decided (a majority
     * granted, or made a majority impossible) waits for the other masters no longer than the
     * decision took, at least a millisecond; their replies are read in the background. A release
     * waits for the replies it needs up to the longer of the node timeout and the socket timeout; a
     * master that counts as down gets the release once it answers again, within the longer of the
     * lease and the socket timeout, after which its key has expired. A connection whose reply has
     * not come within that time either is closed.
     *
     * @param redisUris one {@code redis://} or {@code rediss://} URI per master, at least three
     * @return this builder
     * @throws NullPointerException if the array or a URI is null
     * @throws IllegalArgumentException if fewer than three URIs are given, one is malformed, or one
     *     is given twice
     * @throws IllegalStateException if an endpoint was already set
     */
    public Builder redlock(String... redisUris) {
      Objects.requireNonNull(redisUris, "redisUris");
      if (redisUris.length < 3) {
        throw new IllegalArgumentException(
            "Redlock needs at least 3 independent masters, got " + redisUris.length);
      }
      // Compared and named without their user information: two URIs of one server that differ
      // only in credentials are one master, and no password may reach a message.
      Set<String> masters = new HashSet<>();
      for (String uri : redisUris) {
        parse(Objects.requireNonNull(uri, "redisUris contains null"));
        String master = RedisClients.describe(uri);
        if (!masters.add(master)) {
          throw new IllegalArgumentException(
              "Redlock masters must be distinct, got " + master + " more than once");
        }
      }
      setEndpoint("redlock");
      this.redlockUris = List.of(redisUris);
      return this;
    }

    /**
     * Uses a caller's client: a {@link RedisClient}, or a Sentinel or Cluster client. The factory
     * never closes it.
     *
     * <p>In this implementation a release is sent on a connection borrowed from the client's pool
     * for the key's node, without the client's own retries, so that a release whose reply was lost
     * is judged by the lock (see {@link RedisDistributedLock#unlock()}). A client of another class,
     * or one built with a connection provider of the caller's, is used through its API for releases
     * too; so is every client of the caller's on Jedis 7 (whose clients lend no connection through
     * their public API), and wake-ups then use plain Pub/Sub. A key preprocessor on the client is
     * not supported: use {@link #keyPrefix}.
     *
     * @param client the client
     * @return this builder
     * @throws NullPointerException if {@code client} is null
     * @throws IllegalStateException if an endpoint was already set
     */
    public Builder client(UnifiedJedis client) {
      Objects.requireNonNull(client, "client");
      setEndpoint("client");
      this.client = client;
      return this;
    }

    /**
     * Uses the Redlock algorithm over caller's clients of independent masters. The factory never
     * closes them. Each client must reach a different Redis server: {@link #build()} refuses two
     * that reach the same one, as for {@link #redlock}.
     *
     * <p>In this implementation the clients are called on helper threads (Jedis does not tell a
     * client's settings, so the factory cannot open connections of its own to their masters, as it
     * does for {@link #redlock}), one call per master and operation, through their own API, at most
     * 8 calls per master at once: a master holds at most 8 of these threads (and one more while it
     * is asked which server it is), and further calls wait for a free one. A master that stopped
     * answering costs each call up to the client's socket timeout on its thread, though the
     * operation still returns within the node timeout; once its 8 calls have all run longer than
     * the node timeout, operations skip it at once, until one of them returns (a release waits for
     * a thread instead).
     *
     * @param masters one client per master, at least three
     * @return this builder
     * @throws NullPointerException if the list or a client is null
     * @throws IllegalArgumentException if fewer than three clients are given, or one is given twice
     * @throws IllegalStateException if an endpoint was already set
     */
    public Builder redlockClients(List<? extends UnifiedJedis> masters) {
      Objects.requireNonNull(masters, "masters");
      masters.forEach(m -> Objects.requireNonNull(m, "masters contains null"));
      if (masters.size() < 3) {
        throw new IllegalArgumentException(
            "Redlock needs at least 3 independent masters, got " + masters.size());
      }
      if (masters.stream().distinct().count() != masters.size()) {
        throw new IllegalArgumentException("Redlock masters must be distinct clients");
      }
      setEndpoint("redlockClients");
      this.redlockMasters = List.copyOf(masters);
      return this;
    }

    /**
     * Sets how long a Redlock operation waits for each master: a master that has not answered by
     * then counts as failed for this operation (and, with {@link #redlock}, is skipped by the next
     * ones until it answers again). It should be much smaller than the lease, so that a dead or
     * frozen master costs an acquisition little. Default: 50 milliseconds. Used only with {@link
     * #redlock} and {@link #redlockClients}.
     *
     * @param nodeTimeout between 1 millisecond and 10 seconds, and shorter than the lease
     * @return this builder
     * @throws NullPointerException if {@code nodeTimeout} is null
     * @throws IllegalArgumentException if it is out of range
     * @throws IllegalStateException if it was already set
     */
    public Builder redlockNodeTimeout(Duration nodeTimeout) {
      Objects.requireNonNull(nodeTimeout, "nodeTimeout");
      requireUnset(this.redlockNodeTimeout, "redlockNodeTimeout");
      this.redlockNodeTimeout =
          checkRange(
              "redlockNodeTimeout", nodeTimeout, Duration.ofMillis(1), Duration.ofSeconds(10));
      return this;
    }

    /**
     * Sets the lease of every hold: how long a lock outlives a holder that stopped renewing it.
     * Holds are renewed in the background about every third of the lease. Default: 30 seconds.
     *
     * @param leaseTime between 100 milliseconds and one day
     * @return this builder
     * @throws NullPointerException if {@code leaseTime} is null
     * @throws IllegalArgumentException if it is out of range
     * @throws IllegalStateException if it was already set
     */
    public Builder leaseTime(Duration leaseTime) {
      Objects.requireNonNull(leaseTime, "leaseTime");
      requireUnset(this.leaseTime, "leaseTime");
      this.leaseTime = checkRange("leaseTime", leaseTime, MIN_LEASE, MAX_LEASE);
      return this;
    }

    /**
     * Sets the socket and connect timeout of the clients this factory creates, and the time one
     * Redis command is expected to take at most, which bounds how long a timed {@code tryLock} may
     * block in a call. Default: 2 seconds.
     *
     * @param commandTimeout between 1 millisecond and 1 minute
     * @return this builder
     * @throws NullPointerException if {@code commandTimeout} is null
     * @throws IllegalArgumentException if it is out of range
     * @throws IllegalStateException if it was already set
     */
    public Builder commandTimeout(Duration commandTimeout) {
      Objects.requireNonNull(commandTimeout, "commandTimeout");
      requireUnset(this.commandTimeout, "commandTimeout");
      this.commandTimeout =
          checkRange("commandTimeout", commandTimeout, Duration.ofMillis(1), Duration.ofMinutes(1));
      return this;
    }

    /**
     * Sets the prefix of every lock key. Default: {@code ""}, so the key is the lock name itself.
     *
     * @param prefix the prefix, possibly empty
     * @return this builder
     * @throws NullPointerException if {@code prefix} is null
     * @throws IllegalStateException if it was already set
     */
    public Builder keyPrefix(String prefix) {
      Objects.requireNonNull(prefix, "prefix");
      requireUnset(this.keyPrefix, "keyPrefix");
      this.keyPrefix = prefix;
      return this;
    }

    /**
     * Sets how this factory's clients make their TLS connections, to the servers of {@code
     * rediss://}, {@code rediss-sentinel://} and {@code rediss-cluster://} URIs (and {@code
     * rediss://} Redlock masters): with the trust material of {@code context} (and its key
     * material, for servers that ask clients for a certificate, as {@code redis-server} does unless
     * {@code tls-auth-clients no}). The host name of every server must match its certificate
     * (endpoint identification {@code HTTPS}): a certificate that is not trusted, or is for another
     * host, makes every lock operation throw {@link RedisLockException}, at once. Without this
     * setting, TLS connections trust the JVM's default trust store, and verify host names too.
     *
     * @param context the trust (and key) material, initialized
     * @return this builder
     * @throws NullPointerException if {@code context} is null
     * @throws IllegalStateException if TLS was already set
     */
    public Builder tls(SSLContext context) {
      Objects.requireNonNull(context, "context");
      return tls(context.getSocketFactory(), null);
    }

    /**
     * Sets how this factory's clients make their TLS connections, as {@link #tls(SSLContext)} does,
     * with a socket factory and connection parameters of the caller's. The parameters (protocols,
     * cipher suites, server names, endpoint identification) are copied now and applied to every TLS
     * connection as they are: host names are verified only if their endpoint identification
     * algorithm is {@code "HTTPS"}; {@code new SSLParameters()} turns the verification off. Null
     * parameters keep the defaults, with host names verified.
     *
     * @param socketFactory makes the TLS sockets
     * @param parameters applied to every TLS connection, or null for the defaults
     * @return this builder
     * @throws NullPointerException if {@code socketFactory} is null
     * @throws IllegalStateException if TLS was already set
     */
    public Builder tls(SSLSocketFactory socketFactory, SSLParameters parameters) {
      Objects.requireNonNull(socketFactory, "socketFactory");
      requireUnset(this.tls, "tls");
      this.tls = new Tls(socketFactory, parameters);
      return this;
    }

    /**
     * Sets a listener told once of every hold lost before its release: renewal found the key gone
     * or taken, renewal failed until the lease ran out, or the factory was closed. It runs on a
     * thread of the factory (or the one closing it) and should return quickly; whatever it throws,
     * an {@code Error} included, is logged and goes no further.
     *
     * @param listener the listener
     * @return this builder
     * @throws NullPointerException if {@code listener} is null
     * @throws IllegalStateException if it was already set
     */
    public Builder onLockLost(Consumer<LockLostEvent> listener) {
      Objects.requireNonNull(listener, "listener");
      requireUnset(this.onLockLost, "onLockLost");
      this.onLockLost = listener;
      return this;
    }

    /**
     * Sets how long a hold may last: once a hold has been held that long since it was acquired in
     * Redis, the factory stops renewing it, its key expires with its lease, and the hold is lost
     * (reported to {@link #onLockLost} with a reason that starts with "max hold time"; its holder's
     * next {@code unlock()} throws {@link LockLostException}). So a holder stuck in an endless loop
     * cannot keep a lock forever. It applies to every lock of the factory, read and write holds
     * included; {@link RedisDistributedLock#withMaxHoldTime} sets another for one lock object.
     * Default: none, holds are renewed for as long as they are held.
     *
     * <p>In this implementation a hold lasts between the maximum and the maximum plus one lease.
     *
     * @param max how long a hold may be renewed, positive
     * @return this builder
     * @throws NullPointerException if {@code max} is null
     * @throws IllegalArgumentException if it is zero or negative
     * @throws IllegalStateException if it was already set
     */
    public Builder maxHoldTime(Duration max) {
      Objects.requireNonNull(max, "max");
      requireUnset(this.maxHoldTime, "maxHoldTime");
      this.maxHoldTime = RedisDistributedLock.checkMaxHoldTime(max);
      return this;
    }

    /**
     * Makes the factory count what {@link RedisLockFactory#stats()} returns: acquisitions, failed
     * and timed-out attempts, waits, local handoffs, lost holds, Redis errors and renewals.
     * Default: off, and {@code stats()} returns {@link LockStats#empty()}.
     *
     * @return this builder
     * @throws IllegalStateException if statistics were already asked for
     */
    public Builder recordStats() {
      if (recordStats) {
        throw new IllegalStateException("recordStats was already set");
      }
      recordStats = true;
      return this;
    }

    /**
     * Makes the factory count its statistics, as {@link #recordStats()} does, and also tell {@code
     * listener} of each event it counts, as it happens: for a metrics system.
     *
     * @param listener told of each counted event (see {@link LockStatsListener})
     * @return this builder
     * @throws NullPointerException if {@code listener} is null
     * @throws IllegalStateException if statistics were already asked for
     */
    public Builder recordStats(LockStatsListener listener) {
      Objects.requireNonNull(listener, "listener");
      recordStats();
      statsListener = listener;
      return this;
    }

    /**
     * Makes every acquisition of this factory describe its holder beside the lock key, for {@link
     * RedisLockFactory#inspect}: host name, process id, the acquiring thread's name and the time of
     * the acquisition (the Redis server's clock). The description has the lock's expiry, is
     * extended by every renewal, and is shown only while its hold holds the lock. Default: off,
     * since it costs a write.
     *
     * <p>In this implementation the description is a hash, {@code "{name}:lock-holder"} for a name
     * without braces, in the lock key's cluster slot; it costs one Redis call after each
     * acquisition in Redis, on the acquiring thread, and one after each renewal, on the renewal's
     * thread. A description that cannot be written is logged (at debug level) and leaves the lock
     * alone. Read holds are not described.
     *
     * @return this builder
     * @throws IllegalStateException if it was already set
     */
    public Builder describeHolders() {
      if (describeHolders) {
        throw new IllegalStateException("describeHolders was already set");
      }
      describeHolders = true;
      return this;
    }

    /**
     * Builds the factory. With {@link #standalone} or {@link #client} no Redis call is made: an
     * unreachable Redis shows at the first lock operation, as a {@link RedisLockException}. With
     * {@link #sentinel} or {@link #cluster}, the client this factory creates learns the topology
     * now. With {@link #redlock} or {@link #redlockClients}, every master is asked which Redis
     * server it is, all at once; masters that do not answer do not fail the build.
     *
     * <p>In this implementation the Redlock masters are asked for their {@code run_id} ({@code INFO
     * server}), and waited for as long as the longer of the node timeout and the command timeout. A
     * master that does not answer by then is asked again, in the background and at most once a
     * second, while lock operations run; should it turn out to be the same server as another
     * master, every later acquisition, renewal and fencing call of the factory throws {@link
     * RedisLockException} naming both. A master whose server refuses {@code INFO} is trusted to be
     * distinct, and a warning is logged.
     *
     * @return the factory
     * @throws IllegalStateException if no endpoint was set, or the Jedis on the class path is older
     *     than 7.0.0, the lowest this library runs on (the message names the version found and the
     *     one needed)
     * @throws IllegalArgumentException if the Redlock node timeout is not shorter than the lease,
     *     or two Redlock masters are the same Redis server (the message names both); the clients
     *     the factory created are closed again
     * @throws RedisLockException with {@link #sentinel} or {@link #cluster}, if no Sentinel or seed
     *     node answered, or the Sentinels do not know the master
     */
    public RedisLockFactory build() {
      if (endpoint == null) {
        throw new IllegalStateException(
            "no Redis endpoint: call standalone(uri), sentinel(uri), cluster(uri),"
                + " client(UnifiedJedis), redlock(uris...) or redlockClients(clients) once");
      }
      JedisApi.requireSupported();
      checkTlsApplies();
      Duration lease = leaseTime != null ? leaseTime : DEFAULT_LEASE;
      Duration timeout = commandTimeout != null ? commandTimeout : DEFAULT_COMMAND_TIMEOUT;
      Settings settings =
          new Settings(
              keyPrefix != null ? keyPrefix : "",
              lease,
              timeout,
              onLockLost != null ? onLockLost : event -> {},
              Ticker.SYSTEM,
              maxHoldTime,
              describeHolders,
              recordStats,
              statsListener);
      if (redlockUris != null || redlockMasters != null) {
        Duration nodeTimeout =
            redlockNodeTimeout != null ? redlockNodeTimeout : DEFAULT_NODE_TIMEOUT;
        if (nodeTimeout.compareTo(lease) >= 0) {
          throw new IllegalArgumentException(
              "redlockNodeTimeout ("
                  + nodeTimeout
                  + ") must be shorter than leaseTime ("
                  + lease
                  + ")");
        }
        return new RedisLockFactory(
            redlockMasters != null
                ? Assembly.redlockClients(redlockMasters, nodeTimeout, settings)
                : Assembly.redlock(
                    redlockUris, tlsOrDefault(), nodeTimeout, settings, commandTimeout != null));
      }
      return new RedisLockFactory(
          client != null
              ? Assembly.singleNode(client, settings)
              : Assembly.singleNode(endpointUri, tlsOrDefault(), settings));
    }

    private Tls tlsOrDefault() {
      return tls != null ? tls : Tls.JVM_DEFAULT;
    }

    /** A TLS setting needs a TLS URI to apply to. */
    private void checkTlsApplies() {
      if (tls == null) {
        return;
      }
      if (client != null || redlockMasters != null) {
        throw new IllegalStateException(
            "tls(...) applies to the clients this factory creates from URIs; configure TLS on the"
                + " client given to "
                + endpoint
                + " instead");
      }
      List<String> uris = redlockUris != null ? redlockUris : List.of(endpointUri);
      if (uris.stream().noneMatch(RedisClients::isTls)) {
        throw new IllegalStateException(
            "tls(...) was set, but no endpoint URI uses TLS: write rediss://,"
                + " rediss-sentinel:// or rediss-cluster:// (endpoint: "
                + endpoint
                + ")");
      }
    }

    private void setUri(String method, String uri, Kind kind) {
      Kind actual = RedisClients.kind(uri);
      if (actual != kind) {
        throw new IllegalArgumentException(
            method
                + "(uri) takes "
                + kind.form()
                + ", not '"
                + RedisClients.describe(uri)
                + "': call "
                + actual.name().toLowerCase(Locale.ROOT)
                + "(uri) for it");
      }
      setEndpoint(method + "(" + RedisClients.describe(uri) + ")");
      this.endpointUri = uri;
    }

    private void setEndpoint(String which) {
      if (endpoint != null) {
        throw new IllegalStateException(
            "a Redis endpoint was already set (" + endpoint + "); set exactly one");
      }
      endpoint = which;
    }

    private static void requireUnset(Object current, String setting) {
      if (current != null) {
        throw new IllegalStateException(setting + " was already set to " + current);
      }
    }

    private static Duration checkRange(String setting, Duration value, Duration min, Duration max) {
      if (value.compareTo(min) < 0 || value.compareTo(max) > 0) {
        throw new IllegalArgumentException(
            setting + " must be between " + min + " and " + max + ", got " + value);
      }
      return value;
    }

    /** Checks a Redlock master's URI: {@code redis://} or {@code rediss://}. */
    private static void parse(String redisUri) {
      if (RedisClients.kind(redisUri) != Kind.STANDALONE) {
        throw new IllegalArgumentException(
            "not a Redis URI of one server: '"
                + RedisClients.describe(redisUri)
                + "'; expected "
                + Kind.STANDALONE.form());
      }
    }
  }
}
