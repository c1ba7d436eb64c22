package io.github.redislock.internal.backend;

import io.github.redislock.RedisLockException;
import io.github.redislock.internal.transport.FanOut;
import io.github.redislock.internal.transport.Node;
import io.github.redislock.internal.transport.Pipelined;
import io.github.redislock.internal.transport.Request;
import io.github.redislock.internal.transport.Round;
import io.github.redislock.internal.transport.Transport;
import io.github.redislock.internal.util.Threads;
import io.github.redislock.internal.util.Ticker;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.UnifiedJedis;

/**
 * The Redlock algorithm over N independent masters (no replication between them), each spoken to
 * with the single-node commands ({@link LockCommands}) and the same token.
 *
 * <p>Every operation goes to all nodes at once, each bounded by the per-node timeout, and is
 * decided by a majority (N/2+1): an acquisition holds when a majority said yes and the time it took
 * leaves a positive validity (lease - elapsed - drift, drift = 1% of the lease + 2 ms); otherwise
 * it is released on every node, also those that failed or did not answer (their reply may have been
 * lost), as soon as each has answered. Renewal keeps the hold while a majority confirms; release
 * goes to every node.
 *
 * <p>Fencing: each node issues its own token, with the acquisition when asked to ({@link
 * Ask#FENCED}), else at the holder's first request ({@link #reissueFence}); the hold's token is the
 * maximum over the nodes that issued one. Before anyone sees it, {@link #confirmFence} raises the
 * counters of a majority to it, and so does every release: any two majorities share a node, so
 * every later hold's token is greater.
 */
public final class RedlockBackend implements LockBackend {
  private static final Logger log = LoggerFactory.getLogger(RedlockBackend.class);
  private static final long WARN_EVERY_NANOS = TimeUnit.SECONDS.toNanos(10);

  private final List<Node> nodes;
  private final boolean ownsClients;
  private final LockCommands commands;

  private final int quorum;
  private final long leaseMillis;
  private final long safetyMarginNanos;
  private final long nodeTimeoutNanos;
  private final long nodeTimeoutMillis;
  private final long releaseTimeoutNanos;
  private final ExecutorService executor;

  /**
   * Acquisitions and releases, the calls a caller waits for: pipelined when every master allows it,
   * else {@link #threads}.
   */
  private final Transport transport;

  /**
   * Renewal, fencing and inspection, and the clean-up nobody waits for. On threads, which return as
   * soon as a majority decides, whatever a stalled minority does: the pipelined transport reads
   * every master, and until it keeps per-node health and sets connections up without blocking
   * (issue 9), a frozen master could hold every renewal in its connection set-up, beyond the node
   * timeout.
   */
  private final FanOut threads;

  /**
   * Whether a {@link Ask#PLAIN} acquisition first tries a plain {@code SET} round: with pipelining
   * a second, scripted round costs little when the first finds the lock busy; on threads it would
   * cost a second hand-off per master, so the script runs at once.
   */
  private final boolean plainFirst;

  /**
   * What a release must know of a hold: which nodes granted it (the acquisition's replies, which
   * keep arriving from nodes that answer after the majority did), and whether it was released (a
   * node that grants it after that is released at once).
   */
  private record Grant(Round<Acquisition> round, AtomicBoolean released) {}

  private final AtomicLong lastMinorityWarning =
      new AtomicLong(System.nanoTime() - WARN_EVERY_NANOS);

  public RedlockBackend(
      List<? extends UnifiedJedis> clients,
      List<String> labels,
      boolean ownsClients,
      long leaseMillis,
      long nodeTimeoutNanos,
      long commandTimeoutNanos) {
    List<Node> list = new ArrayList<>(clients.size());
    for (int i = 0; i < clients.size(); i++) {
      list.add(new Node(labels.get(i), clients.get(i)));
    }
    this.nodes = List.copyOf(list);
    this.ownsClients = ownsClients;
    this.commands = new LockCommands(leaseMillis);
    this.quorum = nodes.size() / 2 + 1;
    this.leaseMillis = leaseMillis;
    this.safetyMarginNanos = TimeUnit.MILLISECONDS.toNanos(leaseMillis / 100 + 2);
    this.nodeTimeoutNanos = nodeTimeoutNanos;
    this.nodeTimeoutMillis = TimeUnit.NANOSECONDS.toMillis(nodeTimeoutNanos);
    // A release is not raced against a lease: it waits for slow masters' actual replies rather
    // than giving up after the node timeout and retrying, since by then another holder may have
    // come and gone, and the retry could no longer tell that the first attempt released.
    this.releaseTimeoutNanos = Math.max(nodeTimeoutNanos, commandTimeoutNanos);
    this.executor =
        new ThreadPoolExecutor(
            0,
            Integer.MAX_VALUE,
            10,
            TimeUnit.SECONDS,
            new SynchronousQueue<>(),
            Threads.daemon("redis-lock-redlock"));
    this.threads = new FanOut(nodes, executor, Ticker.SYSTEM);
    this.plainFirst = Pipelined.supports(nodes);
    this.transport = plainFirst ? new Pipelined(nodes, Ticker.SYSTEM) : threads;
  }

  /**
   * {@inheritDoc}
   *
   * <p>For {@link Ask#PLAIN} (with pipelined masters) every node first gets a plain {@code SET NX
   * PX}; when that finds the lock busy somewhere without a majority granting, a second round runs
   * the acquire script with the same token, which confirms the first round's grants and tells how
   * long the busy nodes stay busy. Otherwise every node runs the acquire script at once.
   */
  @Override
  public Acquisition tryAcquire(LockKeys keys, String token, boolean fenced, boolean expectBusy) {
    Ask ask = Ask.of(fenced, expectBusy);
    long start = System.nanoTime();
    Round<Acquisition> round;
    if (ask == Ask.PLAIN && plainFirst) {
      round = transport.send(commands.plainAcquire(keys, token), start + nodeTimeoutNanos);
      if (round.count(Acquisition::acquired) < quorum && round.count(a -> !a.acquired()) > 0) {
        round = scriptedRound(keys, token, Ask.PROBE, System.nanoTime() + nodeTimeoutNanos);
      }
    } else {
      round = scriptedRound(keys, token, ask, start + nodeTimeoutNanos);
    }
    return judge(round, keys, token, start);
  }

  private Round<Acquisition> scriptedRound(LockKeys keys, String token, Ask ask, long deadline) {
    return transport
        .send(commands.acquire(keys, token, ask == Ask.FENCED), deadline)
        .await(
            r ->
                r.count(Acquisition::acquired) >= quorum
                    || r.count(a -> !a.acquired()) + r.failed() > nodes.size() - quorum);
  }

  /** The outcome of an acquisition round that started at {@code start}. */
  private Acquisition judge(Round<Acquisition> round, LockKeys keys, String token, long start) {
    int acquired = round.count(Acquisition::acquired);
    if (acquired >= quorum) {
      long elapsed = System.nanoTime() - start;
      long validity = TimeUnit.MILLISECONDS.toNanos(leaseMillis) - elapsed - safetyMarginNanos;
      if (validity > 0) {
        warnAboutMinority(round, keys, "acquire");
        long fence = 0;
        for (Acquisition reply : round.replies()) {
          if (reply != null && reply.acquired()) {
            fence = Math.max(fence, reply.fencingToken());
          }
        }
        return Acquisition.acquired(fence, grant(round, keys, token));
      }
      releaseEverywhere(round, keys, token);
      throw new RedisLockException(
          "acquiring lock key '"
              + keys.lock()
              + "' on a majority took "
              + TimeUnit.NANOSECONDS.toMillis(elapsed)
              + " ms, leaving no validity of its "
              + leaseMillis
              + " ms lease; released it on every node",
          new Failures.TransientFailure("Redlock acquisition slower than the lease"));
    }
    releaseEverywhere(round, keys, token);
    int busy = round.count(a -> !a.acquired());
    if (busy > nodes.size() - quorum || round.failedOrMissing() <= nodes.size() - quorum) {
      return busyEstimate(round, busy);
    }
    throw failure(round, "acquire", keys, nodeTimeoutNanos);
  }

  @Override
  public boolean extend(LockKeys keys, String token) {
    return decide(commands.extend(keys, token), "renew", keys, nodeTimeoutNanos);
  }

  /**
   * Releases on every node, and judges the release by the nodes that granted the hold: it was lost
   * when so many of them answer "not ours" that no majority can have kept it; it was released when
   * a majority of nodes confirm, or when the granting nodes that did not confirm are unreachable
   * (their keys expire with the lease: a node failure is not a lost hold).
   */
  @Override
  public Release release(LockKeys keys, String token, long fencingToken, Object grant) {
    long start = System.nanoTime();
    List<Boolean> granting = new ArrayList<>(nodes.size());
    if (grant instanceof Grant granted) {
      // Nodes still granting are given until the release timeout, so that they count as holders.
      granted.round().awaitUntil(start + releaseTimeoutNanos, r -> r.unanswered() == 0);
      granted.released().set(true);
      granted.round().replies().forEach(reply -> granting.add(reply != null && reply.acquired()));
    } else {
      nodes.forEach(node -> granting.add(true)); // an attempt that was not granted: ask all
    }
    int granted = (int) granting.stream().filter(Boolean::booleanValue).count();
    Round<Release> round =
        transport.send(commands.release(keys, token, fencingToken), start + releaseTimeoutNanos);
    if (round.unanswered() > 0) {
      round.await(r -> confirmed(r, granting) >= quorum || granted - denied(r, granting) < quorum);
    }
    int confirmed = confirmed(round, granting);
    int denied = denied(round, granting);
    long listeners = 0;
    for (Release reply : round.replies()) {
      listeners = reply == null ? listeners : Math.max(listeners, reply.listeners());
    }
    if (granted - denied < quorum) {
      log.debug(
          "Redlock release of lock key '{}': {} of its {} granting nodes no longer held it",
          keys.lock(),
          denied,
          granted);
      return Release.NOT_OURS;
    }
    if (confirmed < quorum) {
      log.warn(
          "Redlock release of lock key '{}' confirmed by {} of {} nodes; the others could not"
              + " be reached and expire it with its lease: {}",
          keys.lock(),
          confirmed,
          nodes.size(),
          round.describeFailures(TimeUnit.NANOSECONDS.toMillis(releaseTimeoutNanos)));
    }
    return Release.released(listeners);
  }

  /** Granting nodes that confirmed the release. */
  private static int confirmed(Round<Release> round, List<Boolean> granting) {
    return countGranting(round, granting, true);
  }

  /** Granting nodes that answered that the hold was not theirs any more. */
  private static int denied(Round<Release> round, List<Boolean> granting) {
    return countGranting(round, granting, false);
  }

  private static int countGranting(Round<Release> round, List<Boolean> granting, boolean released) {
    List<Release> replies = round.replies();
    int count = 0;
    for (int i = 0; i < replies.size(); i++) {
      Release reply = replies.get(i);
      if (granting.get(i) && reply != null && reply.released() == released) {
        count++;
      }
    }
    return count;
  }

  /**
   * A new token for a hold passed on inside its JVM: every node still holding it issues one, the
   * maximum is taken and raised on a majority, as at acquisition.
   */
  @Override
  public long reissueFence(LockKeys keys, String token, Object grant) {
    Round<Long> round =
        threads
            .send(commands.reissueFence(keys, token), System.nanoTime() + nodeTimeoutNanos)
            .await(
                r ->
                    r.count(fence -> fence >= 0) >= quorum
                        || r.count(fence -> fence < 0) > nodes.size() - quorum);
    if (round.count(fence -> fence < 0) > nodes.size() - quorum) {
      return -1;
    }
    if (round.count(fence -> fence >= 0) < quorum) {
      throw failure(round, "fence", keys, nodeTimeoutNanos);
    }
    long fence =
        round.replies().stream()
            .filter(f -> f != null)
            .mapToLong(Long::longValue)
            .max()
            .orElseThrow();
    if (!confirmFence(keys, token, fence)) {
      return -1;
    }
    return fence;
  }

  @Override
  public boolean confirmFence(LockKeys keys, String token, long fencingToken) {
    return decide(commands.raiseFence(keys, fencingToken), "fence", keys, nodeTimeoutNanos);
  }

  @Override
  public boolean isLocked(LockKeys keys) {
    return decide(commands.isLocked(keys), "inspect", keys, nodeTimeoutNanos);
  }

  @Override
  public long safetyMarginNanos() {
    return safetyMarginNanos;
  }

  @Override
  public void close() {
    executor.shutdownNow();
    if (ownsClients) {
      nodes.forEach(node -> node.client().close());
    }
  }

  /**
   * Asks every node; {@code true} when a majority answers yes, {@code false} when enough nodes
   * answer no that a majority of yes is impossible, else a {@link RedisLockException} naming each
   * node's failure.
   */
  private boolean decide(
      Request<Boolean> request, String operation, LockKeys keys, long timeoutNanos) {
    Round<Boolean> round =
        threads
            .send(request, System.nanoTime() + timeoutNanos)
            .await(
                r ->
                    r.count(Boolean::booleanValue) >= quorum
                        || r.count(yes -> !yes) > nodes.size() - quorum);
    if (round.count(Boolean::booleanValue) >= quorum) {
      warnAboutMinority(round, keys, operation);
      return true;
    }
    if (round.count(yes -> !yes) > nodes.size() - quorum) {
      if (log.isDebugEnabled()) {
        log.debug(
            "Redlock {} of lock key '{}': a majority does not hold it; answers: {}",
            operation,
            keys.lock(),
            describeAnswers(round));
      }
      return false;
    }
    throw failure(round, operation, keys, timeoutNanos);
  }

  /**
   * A majority granted the hold, which is returned while other nodes' grants may be in flight.
   * Should one of those land after the hold's release was sent, it is released then.
   */
  private Grant grant(Round<Acquisition> round, LockKeys keys, String token) {
    Grant grant = new Grant(round, new AtomicBoolean());
    if (round.unanswered() > 0) {
      round.whenEachDone(
          (node, reply) -> {
            if (grant.released().get() && reply != null && reply.acquired()) {
              threads.sendAndForget(node, commands.release(keys, token, 0));
            }
          });
    }
    return grant;
  }

  private String describeAnswers(Round<Boolean> round) {
    List<Boolean> replies = round.replies();
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < nodes.size(); i++) {
      text.append(i == 0 ? "" : ", ")
          .append(nodes.get(i).label())
          .append('=')
          .append(
              replies.get(i) == null ? "failed or no reply" : replies.get(i) ? "ours" : "not ours");
    }
    return text.toString();
  }

  /** Releases {@code token} on every node as soon as that node has answered the acquisition. */
  private void releaseEverywhere(Round<Acquisition> round, LockKeys keys, String token) {
    Request<Release> release = commands.release(keys, token, 0);
    round.whenEachDone((node, reply) -> threads.sendAndForget(node, release));
  }

  /**
   * When a holder's keys expire a majority may become free: that is when the {@code need}-th
   * shortest remaining lease among the busy nodes runs out.
   */
  private Acquisition busyEstimate(Round<Acquisition> round, int busy) {
    List<Long> ttls = new ArrayList<>();
    boolean publishes = true;
    for (Acquisition reply : round.replies()) {
      if (reply != null && !reply.acquired()) {
        ttls.add(reply.holderTtlMillis() < 0 ? Long.MAX_VALUE : reply.holderTtlMillis());
        publishes &= reply.holderPublishes();
      }
    }
    ttls.sort(null);
    int need = quorum - (nodes.size() - busy);
    long ttl = need <= 0 || ttls.isEmpty() ? 0 : ttls.get(Math.min(need, ttls.size()) - 1);
    return Acquisition.busy(ttl == Long.MAX_VALUE ? -1 : ttl, publishes && busy > 0);
  }

  private <T> RedisLockException failure(
      Round<T> round, String operation, LockKeys keys, long timeoutNanos) {
    RedisLockException failure =
        new RedisLockException(
            "Redlock could not "
                + operation
                + " lock key '"
                + keys.lock()
                + "' on a majority ("
                + quorum
                + " of "
                + nodes.size()
                + "): "
                + round.describeFailures(TimeUnit.NANOSECONDS.toMillis(timeoutNanos)),
            transientUnlessPermanent(round));
    round.failures().stream().filter(f -> f != failure.getCause()).forEach(failure::addSuppressed);
    return failure;
  }

  /**
   * The cause to report: a permanent node failure if there is one (waiting will not cure it), else
   * the first node failure, else (every node was merely slow) a transient marker.
   */
  private static <T> Throwable transientUnlessPermanent(Round<T> round) {
    List<RuntimeException> failures = round.failures();
    for (RuntimeException failure : failures) {
      if (!Failures.isTransient(failure)) {
        return failure;
      }
    }
    return failures.isEmpty()
        ? new Failures.TransientFailure("a majority of Redlock nodes did not answer in time")
        : failures.get(0);
  }

  private <T> void warnAboutMinority(Round<T> round, LockKeys keys, String operation) {
    if (round.failedOrMissing() == 0) {
      return;
    }
    long now = System.nanoTime();
    long last = lastMinorityWarning.get();
    if (now - last >= WARN_EVERY_NANOS && lastMinorityWarning.compareAndSet(last, now)) {
      log.warn(
          "Redlock {} of lock key '{}' succeeded on a majority; failed nodes: {}",
          operation,
          keys.lock(),
          round.describeFailures(nodeTimeoutMillis));
    }
  }
}
