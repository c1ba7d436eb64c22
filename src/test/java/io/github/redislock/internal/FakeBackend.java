package io.github.redislock.internal;

import io.github.redislock.RedisLockException;
import io.github.redislock.internal.backend.Acquisition;
import io.github.redislock.internal.backend.Acquisition.Grant;
import io.github.redislock.internal.backend.Failures;
import io.github.redislock.internal.backend.FakeScripts;
import io.github.redislock.internal.backend.LockBackend;
import io.github.redislock.internal.backend.LockKeys;
import io.github.redislock.internal.backend.LockState;
import io.github.redislock.internal.backend.OrderedOps;
import io.github.redislock.internal.backend.ReadWriteOps;
import io.github.redislock.internal.backend.Release;
import io.github.redislock.internal.util.Ticker;
import io.github.redislock.internal.util.Tokens;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * An in-memory model of one Redis node's lock semantics, for unit tests of the engine's pieces
 * only: the integration tests run against real {@code redis-server} processes.
 *
 * <p>Each lock key holds a token until its lease ends on the given {@link Ticker}; its fencing
 * counter only grows; a busy answer tells the holder's remaining lease (-1 when it never expires)
 * and whether the holder is one of ours (a token with {@link Tokens#PREFIX}). A release deletes the
 * key only for its token and raises the counter to the hold's token; it answers the number of
 * listeners set by {@link #listenersOnRelease}.
 *
 * <p>Faults are programmed per operation, for the next calls: {@link #failNext} throws before the
 * operation takes effect (a transient {@link RedisLockException} unless told otherwise), {@link
 * #loseReplyNext} throws after it took effect (a lost reply), {@link #answerNotOursNext} answers as
 * if the hold were gone, {@link #stallNext} blocks the call until the test opens its gate. Every
 * call is counted and logged, faulty or not. Thread-safe.
 *
 * <p>{@link #readWrite()} adds the read-write operations ({@link ReadWriteOps}), whose scripts this
 * model answers on the same keys: read shares and writers' intents, each with a lease (see {@link
 * #runScript}). Fair queues and conditions stay unsupported.
 *
 * <p>Keys live on nodes (one, {@value #ONE_NODE}, unless the test says otherwise with {@link
 * #nodes}); {@link #freeze} makes every call on one node's keys block until the test thaws it, as a
 * stopped server would.
 */
final class FakeBackend implements LockBackend {

  /** The operations of {@link LockBackend} that talk to Redis. */
  enum Op {
    TRY_ACQUIRE,
    EXTEND,
    RELEASE,
    CONFIRM_FENCE,
    REISSUE_FENCE,
    IS_LOCKED,
    // The read-write scripts, once enabled by readWrite(); the key logged is the script's first.
    TRY_WRITE,
    TRY_READ,
    EXTEND_SHARE,
    RELEASE_SHARE,
    LEAVE,
    READERS
  }

  /**
   * One call, in the order received.
   *
   * @param fencingToken the fencing token passed (release, confirmation), else 0
   */
  record Call(Op op, String key, String token, long fencingToken) {}

  private enum Kind {
    FAIL,
    LOSE_REPLY,
    NOT_OURS,
    STALL
  }

  private static final class Fault {
    final Kind kind;
    final Supplier<? extends RedisLockException> failure;
    final CountDownLatch gate;
    int remaining;

    Fault(
        Kind kind, int times, Supplier<? extends RedisLockException> failure, CountDownLatch gate) {
      this.kind = kind;
      this.remaining = times;
      this.failure = failure;
      this.gate = gate;
    }
  }

  /** The holder of one key: its token, and when its lease ends ({@code null}: never). */
  private record Entry(String token, Long leaseEnd) {}

  /** The node of every key unless a test places keys with {@link #nodes}. */
  static final String ONE_NODE = "fake-node";

  private final Ticker ticker;
  private final long leaseNanos;

  // All guarded by this.
  private final Map<String, Entry> keys = new HashMap<>();
  private final Map<String, Long> counters = new HashMap<>();
  private final List<Call> calls = new ArrayList<>();
  private final Map<Op, Deque<Fault>> faults = new EnumMap<>(Op.class);
  private long listeners;
  private String server;
  private long safetyMarginNanos;
  private boolean closed;
  private Function<String, String> nodeOfKey = key -> ONE_NODE;
  private final Map<String, Frozen> frozen = new HashMap<>();
  private int blocked;

  /** By read-shares key, each share's token and lease end. */
  private final Map<String, Map<String, Long>> shares = new HashMap<>();

  /** By writer-intents key, each waiting writer's intent (its lease end), or bar (negative). */
  private final Map<String, Map<String, Long>> intents = new HashMap<>();

  private OrderedOps ordered;

  /** A frozen node: the operations that block on it, until the gate opens. */
  private record Frozen(Set<Op> ops, CountDownLatch gate) {}

  /** A node on which every acquisition and renewal sets a lease of {@code lease}. */
  FakeBackend(Ticker ticker, Duration lease) {
    this.ticker = ticker;
    this.leaseNanos = lease.toNanos();
  }

  // ---- programming ----

  /** The next {@code times} calls of {@code op} throw a transient failure, before taking effect. */
  FakeBackend failNext(Op op, int times) {
    return failNext(op, times, () -> transientFailure(op));
  }

  /** The next {@code times} calls of {@code op} throw {@code failure}, before taking effect. */
  synchronized FakeBackend failNext(
      Op op, int times, Supplier<? extends RedisLockException> failure) {
    return add(op, new Fault(Kind.FAIL, times, failure, null));
  }

  /** The next {@code times} calls of {@code op} take effect, then throw a transient failure. */
  synchronized FakeBackend loseReplyNext(Op op, int times) {
    return add(op, new Fault(Kind.LOSE_REPLY, times, () -> transientFailure(op), null));
  }

  /**
   * The next {@code times} calls of {@code op} answer as if the hold were not ours any more,
   * without looking at the key: busy for an acquisition, {@code false} or {@code -1} otherwise.
   */
  synchronized FakeBackend answerNotOursNext(Op op, int times) {
    return add(op, new Fault(Kind.NOT_OURS, times, null, null));
  }

  /**
   * The next call of {@code op} blocks, before taking effect, until the returned gate is opened
   * ({@link CountDownLatch#countDown()}).
   */
  synchronized CountDownLatch stallNext(Op op) {
    CountDownLatch gate = new CountDownLatch(1);
    add(op, new Fault(Kind.STALL, 1, null, gate));
    return gate;
  }

  /** Places each lock key on the node {@code nodeOfKey} names. */
  synchronized void nodes(Function<String, String> nodeOfKey) {
    this.nodeOfKey = nodeOfKey;
  }

  /**
   * Every later call of {@code ops} (every operation when none is given) on a key of {@code node}
   * blocks, before taking effect, until the returned gate is opened: then the node answers again.
   */
  synchronized CountDownLatch freeze(String node, Op... ops) {
    CountDownLatch gate = new CountDownLatch(1);
    frozen.put(node, new Frozen(ops.length == 0 ? Set.of(Op.values()) : Set.of(ops), gate));
    return gate;
  }

  /** How many calls are blocked on a frozen node now. */
  synchronized int blocked() {
    return blocked;
  }

  /** Forgets every programmed fault: Redis is back. */
  synchronized void recover() {
    faults.clear();
  }

  /** How many listeners a release answers it woke (other processes' waiters). */
  synchronized void listenersOnRelease(long count) {
    listeners = count;
  }

  /** The server that answers "not ours" to a release, as a direct send names it. */
  synchronized void server(String name) {
    server = name;
  }

  synchronized void safetyMarginNanos(long nanos) {
    safetyMarginNanos = nanos;
  }

  /** Another client takes {@code lockKey} with {@code token}, whatever held it, for its lease. */
  synchronized void steal(String lockKey, String token) {
    keys.put(lockKey, new Entry(token, ticker.read() + leaseNanos));
  }

  /** Another client, not one of ours, sets {@code lockKey} without an expiry. */
  synchronized void setForever(String lockKey, String token) {
    keys.put(lockKey, new Entry(token, null));
  }

  /**
   * This fake has read-write operations too ({@link #orderedOps()}), answered by its model of the
   * read-write scripts; its fair queues and conditions are {@code null}.
   */
  synchronized FakeBackend readWrite() {
    ReadWriteOps ops = FakeScripts.readWriteOps(leaseNanos / 1_000_000, this::runScript);
    ordered = new OrderedOps(null, ops, null);
    return this;
  }

  /** The read share of {@code token} in {@code readSharesKey} is gone (expired, deleted). */
  synchronized void deleteShare(String readSharesKey, String token) {
    Map<String, Long> all = shares.get(readSharesKey);
    if (all != null) {
      all.remove(token);
    }
  }

  /** The key is deleted behind its holder's back. */
  synchronized void delete(String lockKey) {
    keys.remove(lockKey);
  }

  private FakeBackend add(Op op, Fault fault) {
    if (fault.remaining > 0) {
      faults.computeIfAbsent(op, o -> new ArrayDeque<>()).add(fault);
    }
    return this;
  }

  static RedisLockException transientFailure(Op op) {
    return new RedisLockException(
        "injected failure of " + op, new Failures.TransientFailure("injected"));
  }

  // ---- inspection ----

  /** The token holding {@code lockKey} now, or {@code null}. */
  synchronized String holder(String lockKey) {
    Entry entry = live(lockKey);
    return entry == null ? null : entry.token();
  }

  /** The highest fencing token issued or released on {@code lockKey}. */
  synchronized long fencingCounter(String lockKey) {
    return counters.getOrDefault(lockKey, 0L);
  }

  synchronized int calls(Op op) {
    return (int) calls.stream().filter(call -> call.op() == op).count();
  }

  /** Every call so far, in order. */
  synchronized List<Call> log() {
    return List.copyOf(calls);
  }

  /** The tokens of the live read shares in {@code readSharesKey}. */
  synchronized Set<String> shares(String readSharesKey) {
    return Set.copyOf(liveScores(shares, readSharesKey).keySet());
  }

  /** The ids of the writers whose intent in {@code writerIntentsKey} is live. */
  synchronized Set<String> intents(String writerIntentsKey) {
    return Set.copyOf(liveScores(intents, writerIntentsKey).keySet());
  }

  synchronized boolean isClosed() {
    return closed;
  }

  @Override
  public synchronized String nodeOf(LockKeys keys) {
    return nodeOfKey.apply(keys.lock());
  }

  // ---- LockBackend ----

  @Override
  public Acquisition tryAcquire(LockKeys keys, String token, boolean fenced, boolean expectBusy) {
    Kind fault = enter(Op.TRY_ACQUIRE, keys, token, 0);
    synchronized (this) {
      if (fault == Kind.NOT_OURS) {
        return Acquisition.busy(leaseNanos / 1_000_000, true);
      }
      Acquisition answer;
      Entry holder = live(keys.lock());
      if (holder == null) {
        this.keys.put(keys.lock(), new Entry(token, ticker.read() + leaseNanos));
        long fence = fenced ? counters.merge(keys.lock(), 1L, Long::sum) : 0;
        answer = new Acquisition(true, fence, 0, false, null);
      } else {
        long ttlMillis =
            holder.leaseEnd() == null
                ? -1
                : (holder.leaseEnd() - ticker.read() + 999_999) / 1_000_000; // rounded up
        answer = Acquisition.busy(ttlMillis, holder.token().startsWith(Tokens.PREFIX));
      }
      return reply(fault, Op.TRY_ACQUIRE, answer);
    }
  }

  @Override
  public boolean extend(LockKeys keys, String token) {
    Kind fault = enter(Op.EXTEND, keys, token, 0);
    synchronized (this) {
      if (fault == Kind.NOT_OURS) {
        return false;
      }
      boolean ours = holds(keys.lock(), token);
      if (ours) {
        this.keys.put(keys.lock(), new Entry(token, ticker.read() + leaseNanos));
      }
      return reply(fault, Op.EXTEND, ours);
    }
  }

  @Override
  public Release release(LockKeys keys, String token, long fencingToken, Grant grant) {
    Kind fault = enter(Op.RELEASE, keys, token, fencingToken);
    synchronized (this) {
      Release notOurs = server == null ? Release.NOT_OURS : new Release(false, 0, server);
      if (fault == Kind.NOT_OURS) {
        return notOurs;
      }
      Release answer = notOurs;
      if (holds(keys.lock(), token)) {
        this.keys.remove(keys.lock());
        counters.merge(keys.lock(), fencingToken, Math::max);
        answer = new Release(true, listeners);
      }
      return reply(fault, Op.RELEASE, answer);
    }
  }

  @Override
  public boolean confirmFence(LockKeys keys, String token, long fencingToken) {
    Kind fault = enter(Op.CONFIRM_FENCE, keys, token, fencingToken);
    synchronized (this) {
      if (fault == Kind.NOT_OURS) {
        return false;
      }
      return reply(fault, Op.CONFIRM_FENCE, holds(keys.lock(), token));
    }
  }

  @Override
  public long reissueFence(LockKeys keys, String token, Grant grant) {
    Kind fault = enter(Op.REISSUE_FENCE, keys, token, 0);
    synchronized (this) {
      if (fault == Kind.NOT_OURS) {
        return -1;
      }
      long fence = holds(keys.lock(), token) ? counters.merge(keys.lock(), 1L, Long::sum) : -1;
      return reply(fault, Op.REISSUE_FENCE, fence);
    }
  }

  @Override
  public synchronized long safetyMarginNanos() {
    return safetyMarginNanos;
  }

  @Override
  public boolean isLocked(LockKeys keys) {
    Kind fault = enter(Op.IS_LOCKED, keys, null, 0);
    synchronized (this) {
      return reply(fault, Op.IS_LOCKED, live(keys.lock()) != null);
    }
  }

  /** The fake's state of a name: owner, time to live and counter; no readers, no description. */
  @Override
  public synchronized LockState inspect(LockKeys keys) {
    Entry entry = live(keys.lock());
    long pttl =
        entry == null
            ? -2
            : entry.leaseEnd() == null ? -1 : (entry.leaseEnd() - ticker.read()) / 1_000_000;
    return new LockState(
        entry == null ? null : entry.token(),
        pttl,
        fencingCounter(keys.lock()),
        0,
        0,
        null,
        0,
        null,
        0);
  }

  @Override
  public synchronized boolean forceUnlock(LockKeys keys) {
    return this.keys.remove(keys.lock()) != null;
  }

  /** The fake keeps no holder descriptions. */
  @Override
  public void describeHolder(LockKeys keys, String token, String host, long pid, String thread) {}

  /** The plain lock only, unless {@link #readWrite()}: no fair or condition operations. */
  @Override
  public synchronized Optional<OrderedOps> orderedOps() {
    return Optional.ofNullable(ordered);
  }

  /** Not modelled: this fake has one lease. */
  @Override
  public LockBackend withLease(long leaseMillis) {
    throw new UnsupportedOperationException("FakeBackend has one lease");
  }

  @Override
  public synchronized void close() {
    closed = true;
  }

  // ---- the model ----

  /**
   * Logs a call and applies the fault programmed for it: throws for {@link Kind#FAIL}, waits for
   * {@link Kind#STALL} (outside the monitor, so other calls go on); else returns the fault for the
   * caller to apply after the operation, or {@code null}.
   */
  private Kind enter(Op op, LockKeys keys, String token, long fencingToken) {
    return enter(op, keys.lock(), token, fencingToken);
  }

  private Kind enter(Op op, String key, String token, long fencingToken) {
    awaitThaw(op, key);
    Fault fault;
    synchronized (this) {
      calls.add(new Call(op, key, token, fencingToken));
      Deque<Fault> queue = faults.get(op);
      fault = queue == null ? null : queue.peek();
      if (fault != null && --fault.remaining == 0) {
        queue.poll();
      }
    }
    if (fault == null) {
      return null;
    }
    return switch (fault.kind) {
      case FAIL -> throw fault.failure.get();
      case STALL -> {
        try {
          fault.gate.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new RedisLockException("interrupted while stalled", e);
        }
        yield null;
      }
      default -> fault.kind;
    };
  }

  /** Blocks while the node of {@code keys} is frozen for {@code op}. */
  private void awaitThaw(Op op, String key) {
    Frozen node;
    synchronized (this) {
      node = frozen.get(nodeOfKey.apply(key));
      if (node == null || !node.ops().contains(op) || node.gate().getCount() == 0) {
        return;
      }
      blocked++;
    }
    try {
      node.gate().await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new RedisLockException("interrupted while the node was frozen", e);
    } finally {
      synchronized (this) {
        blocked--;
      }
    }
  }

  private <T> T reply(Kind fault, Op op, T answer) {
    if (fault == Kind.LOSE_REPLY) {
      throw transientFailure(op);
    }
    return answer;
  }

  private Entry live(String lockKey) {
    Entry entry = keys.get(lockKey);
    if (entry != null && entry.leaseEnd() != null && ticker.read() - entry.leaseEnd() >= 0) {
      keys.remove(lockKey);
      return null;
    }
    return entry;
  }

  private boolean holds(String lockKey, String token) {
    Entry entry = live(lockKey);
    return entry != null && entry.token().equals(token);
  }

  // ---- the read-write scripts (rw_*.lua), on the same keys ----

  private static final Map<String, Op> SCRIPT_OPS =
      Map.of(
          "rw_write.lua", Op.TRY_WRITE,
          "rw_read.lua", Op.TRY_READ,
          "rw_read_extend.lua", Op.EXTEND_SHARE,
          "rw_read_release.lua", Op.RELEASE_SHARE,
          "rw_leave.lua", Op.LEAVE,
          "rw_readers.lua", Op.READERS);

  /**
   * What a read-write script answers, as the script does on one node, with the fake's lease instead
   * of the one passed: shares and intents are entries scored by their lease end, an intent left by
   * a busy write attempt of a writer id, a bar (a negative score) by a leave with an unsettled
   * attempt. The programmed faults apply to its {@link Op}. Not modelled: publishing (wake-ups),
   * the companion hash, {@code WRONGTYPE}.
   */
  private Object runScript(String script, List<String> keys, List<String> args) {
    Op op = Objects.requireNonNull(SCRIPT_OPS.get(script), script);
    Kind fault = enter(op, keys.get(0), args.isEmpty() ? null : args.get(0), 0);
    synchronized (this) {
      Object answer =
          switch (op) {
            case TRY_WRITE ->
                fault == Kind.NOT_OURS ? busy(leaseNanos, true) : tryWrite(keys, args);
            case TRY_READ -> fault == Kind.NOT_OURS ? busy(leaseNanos, true) : tryRead(keys, args);
            case EXTEND_SHARE -> fault == Kind.NOT_OURS ? 0L : extendShare(keys, args);
            case RELEASE_SHARE -> fault == Kind.NOT_OURS ? 0L : releaseShare(keys, args);
            case LEAVE -> leave(keys, args);
            case READERS -> (long) liveScores(shares, keys.get(0)).size();
            default -> throw new AssertionError(op);
          };
      return reply(fault, op, answer);
    }
  }

  /** KEYS: lock, shares, intents, companion; ARGV: token, lease, writer id, ttl, fenced. */
  private Object tryWrite(List<String> keys, List<String> args) {
    String lockKey = keys.get(0);
    String token = args.get(0);
    String writerId = args.get(2);
    Map<String, Long> waiting = intents.computeIfAbsent(keys.get(2), k -> new HashMap<>());
    long now = ticker.read();
    Long mine = waiting.get(writerId);
    if (!writerId.isEmpty() && mine != null && mine < 0 && now - (-mine) < 0) {
      return List.of(0L, 0L, 0L); // barred: its wait left while this attempt was on its way
    }
    Entry writer = live(lockKey);
    List<Long> busy = null;
    if (writer != null && writer.token().equals(token)) {
      this.keys.put(lockKey, new Entry(token, now + leaseNanos));
    } else if (writer != null) {
      busy = busyReply(writer);
    } else {
      Map<String, Long> readers = liveScores(shares, keys.get(1));
      if (!readers.isEmpty()) {
        busy = busy(Collections.max(readers.values()) - now, true);
      } else {
        this.keys.put(lockKey, new Entry(token, now + leaseNanos));
      }
    }
    if (busy != null) {
      if (!writerId.isEmpty()) {
        waiting.values().removeIf(end -> end < 0 ? now - (-end) >= 0 : now - end >= 0);
        waiting.put(writerId, now + leaseNanos);
      }
      return busy;
    }
    waiting.remove(writerId);
    long fence = args.get(4).equals("1") ? counters.merge(lockKey, 1L, Long::sum) : 0;
    return List.of(1L, fence);
  }

  /** KEYS: lock, shares, intents; ARGV: token, lease, the caller's write token, barge. */
  private Object tryRead(List<String> keys, List<String> args) {
    String token = args.get(0);
    Entry writer = live(keys.get(0));
    if (writer != null && !writer.token().equals(args.get(2))) {
      return busyReply(writer);
    }
    long now = ticker.read();
    Map<String, Long> mine = shares.computeIfAbsent(keys.get(1), k -> new HashMap<>());
    if (writer == null && !args.get(3).equals("1") && !mine.containsKey(token)) {
      Map<String, Long> waiting = liveScores(intents, keys.get(2));
      if (!waiting.isEmpty()) {
        return busy(Collections.max(waiting.values()) - now, true);
      }
    }
    mine.put(token, now + leaseNanos);
    return 1L;
  }

  /** KEYS: shares; ARGV: token, lease. */
  private Object extendShare(List<String> keys, List<String> args) {
    Map<String, Long> live = liveScores(shares, keys.get(0));
    if (!live.containsKey(args.get(0))) {
      return 0L;
    }
    shares.get(keys.get(0)).put(args.get(0), ticker.read() + leaseNanos);
    return 1L;
  }

  /** KEYS: shares; ARGV: token, channel, publish. 0, or 1 + the writers woken by the last share. */
  private Object releaseShare(List<String> keys, List<String> args) {
    Map<String, Long> all = shares.get(keys.get(0));
    if (all == null || all.remove(args.get(0)) == null) {
      return 0L;
    }
    return liveScores(shares, keys.get(0)).isEmpty() ? 1L + listeners : 1L;
  }

  /** KEYS: intents, lock; ARGV: writer id, channel, publish, unsettled token, lease. */
  private Object leave(List<String> keys, List<String> args) {
    String writerId = args.get(0);
    Map<String, Long> waiting = intents.computeIfAbsent(keys.get(0), k -> new HashMap<>());
    Long intent = waiting.remove(writerId);
    boolean removed = intent != null && intent > 0;
    boolean released = false;
    String unsettled = args.get(3);
    if (!unsettled.isEmpty()) {
      waiting.put(writerId, -(ticker.read() + leaseNanos));
      released = holds(keys.get(1), unsettled);
      if (released) {
        this.keys.remove(keys.get(1));
      }
    }
    return removed || released ? 1L : 0L;
  }

  private List<Long> busyReply(Entry writer) {
    if (writer.leaseEnd() == null) {
      return List.of(0L, -1L, writer.token().startsWith(Tokens.PREFIX) ? 1L : 0L);
    }
    return busy(writer.leaseEnd() - ticker.read(), writer.token().startsWith(Tokens.PREFIX));
  }

  private static List<Long> busy(long ttlNanos, boolean ours) {
    return List.of(0L, (ttlNanos + 999_999) / 1_000_000, ours ? 1L : 0L); // rounded up
  }

  /** The entries of {@code key} in {@code sets} whose lease has not ended (no bars); expired go. */
  private Map<String, Long> liveScores(Map<String, Map<String, Long>> sets, String key) {
    Map<String, Long> all = sets.get(key);
    if (all == null) {
      return Map.of();
    }
    long now = ticker.read();
    all.values().removeIf(end -> end > 0 && now - end >= 0);
    Map<String, Long> live = new HashMap<>(all);
    live.values().removeIf(end -> end < 0);
    return live;
  }
}
