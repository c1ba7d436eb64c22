package io.github.redislock.internal.backend;

import io.github.redislock.internal.backend.Acquisition.Grant;
import io.github.redislock.internal.backend.Quorum.ReleaseVerdict;
import io.github.redislock.internal.events.Jfr;
import io.github.redislock.internal.events.RedlockRoundEvent;
import io.github.redislock.internal.transport.Dial;
import io.github.redislock.internal.transport.Node;
import io.github.redislock.internal.transport.Request;
import io.github.redislock.internal.transport.Round;
import io.github.redislock.internal.transport.Transport;
import io.github.redislock.internal.util.Ticker;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import redis.clients.jedis.UnifiedJedis;

/**
 * The Redlock algorithm over N independent masters (no replication between them), each spoken to
 * with the single-node commands ({@link LockCommands}) and the same token.
 *
 * <p>Every operation goes to all nodes at once, each bounded by the per-node timeout, and is
 * decided by a majority ({@link Quorum}): an acquisition holds when a majority said yes and the
 * time it took leaves a positive validity (lease - elapsed - drift, drift = 1% of the lease + 2
 * ms); otherwise it is released on every node that did not refuse it, also those that failed or did
 * not answer (their reply may have been lost). Renewal keeps the hold while a majority confirms;
 * release goes to every node. A release is sent with {@link Transport#undo}: a node that has not
 * answered the acquisition yet gets it behind the acquisition, so that a late grant is released
 * when it lands, never before, and a node that the transport skips for now (it stopped answering)
 * gets it once it answers again. A release that knows only the token (a clean-up) goes behind the
 * token's acquisition rounds still missing replies ({@link InFlight}).
 *
 * <p>Fencing: each node issues its own token, with the acquisition when asked to ({@link
 * Ask#FENCED}), else at the holder's first request ({@link #reissueFence}, only where the key still
 * holds the hold's owner token); the hold's token is the maximum over the majority that issued one.
 * Before anyone sees it, {@link #confirmFence} raises the counters to it on the nodes where the key
 * still holds the owner token, and it counts only when a majority did: any later hold's majority
 * shares a node with them, where its key was set after the raise, so every later hold's token is
 * greater. When no majority still holds the key, the hold is lost and no token is given out. A
 * release raises the counters of the nodes it releases on, too.
 */
public final class RedlockBackend implements LockBackend {
  private final List<Node> nodes;
  private final boolean ownsClients;

  /** Whether this is a view for another lease ({@link #withLease}), which closes nothing. */
  private final boolean view;

  private final WireArguments wire;
  private final LockCommands commands;
  private final Quorum quorum;
  private final RedlockReports reports;
  private final Ticker ticker;
  private final long nodeTimeoutNanos;
  private final long releaseTimeoutNanos;
  private final ExecutorService executor;
  private final InFlight inFlight;
  private final MasterIdentities identities;
  private final AccessCheck access;
  private final InspectCommands inspection;

  /** Every operation's way to the masters ({@link RedlockTransport}). */
  private final Transport transport;

  /**
   * Whether a {@link Ask#PLAIN} acquisition first tries a plain {@code SET} round: with pipelining
   * a second, scripted round costs little when the first finds the lock busy; on threads it would
   * cost a second hand-off per master, so the script runs at once.
   */
  private final boolean plainFirst;

  private final Predicate<Round<Acquisition>> acquisitionDecided;
  private final Predicate<Round<Boolean>> yesOrNoDecided;
  private final Predicate<Round<Long>> fenceDecided;

  /**
   * Redlock over {@code clients}.
   *
   * @param clients one client per master, at least one
   * @param labels each master's name in messages, in the same order
   * @param dials how to open connections of one's own to each master, in the same order, {@code
   *     null} for a master known only by its client: with one for every master, the pipelined
   *     transport carries the requests, else the thread fan-out
   * @param ownsClients whether {@link #close()} closes the clients
   * @param leaseMillis the lease every acquisition and renewal sets
   * @param nodeTimeoutNanos how long an operation waits for each master
   * @param commandTimeoutNanos the clients' socket timeout: a release waits for the longer of the
   *     two
   * @param ticker the clock of every deadline and validity
   */
  public RedlockBackend(
      List<? extends UnifiedJedis> clients,
      List<String> labels,
      List<Dial> dials,
      boolean ownsClients,
      long leaseMillis,
      long nodeTimeoutNanos,
      long commandTimeoutNanos,
      Ticker ticker) {
    this.nodes = Node.of(labels, clients, dials);
    this.ownsClients = ownsClients;
    this.view = false;
    this.wire = WireArguments.of(leaseMillis, false); // masters publish by plain Pub/Sub
    this.commands = new LockCommands(wire);
    this.inspection = new InspectCommands(wire);
    this.quorum = new Quorum(nodes.size(), leaseMillis, ticker);
    this.reports = new RedlockReports(quorum, ticker, nodeTimeoutNanos);
    this.ticker = ticker;
    this.nodeTimeoutNanos = nodeTimeoutNanos;
    // A release is not raced against a lease: it waits for slow masters' actual replies rather
    // than giving up after the node timeout and retrying, since by then another holder may have
    // come and gone, and the retry could no longer tell that the first attempt released.
    this.releaseTimeoutNanos = Math.max(nodeTimeoutNanos, commandTimeoutNanos);
    // After this, a key an acquisition set has expired, and nobody waits for its reply: a late
    // reply is waited for no longer, nor a release for a master that does not answer.
    long lateBoundNanos = Math.max(TimeUnit.MILLISECONDS.toNanos(leaseMillis), releaseTimeoutNanos);
    RedlockTransport chosen = RedlockTransport.of(nodes, ticker, nodeTimeoutNanos, lateBoundNanos);
    this.transport = chosen.transport();
    this.executor = chosen.executor();
    this.plainFirst = chosen.pipelined();
    this.identities = new MasterIdentities(nodes, executor, ticker);
    this.inFlight = new InFlight();
    this.access = new AccessCheck();
    this.acquisitionDecided =
        round ->
            quorum.decided(
                round.count(Acquisition::acquired),
                round.count(RedlockBackend::busy) + round.failed());
    this.yesOrNoDecided =
        round -> quorum.decided(round.count(Boolean::booleanValue), round.count(yes -> !yes));
    this.fenceDecided =
        round -> quorum.decided(round.count(fence -> fence >= 0), round.count(fence -> fence < 0));
  }

  /** A view of {@code base} whose holds last {@code leaseMillis} (see {@link #withLease}). */
  private RedlockBackend(RedlockBackend base, long leaseMillis) {
    this.nodes = base.nodes;
    this.ownsClients = false;
    this.view = true;
    this.wire = base.wire.withLease(leaseMillis);
    this.commands = new LockCommands(wire);
    this.inspection = new InspectCommands(wire);
    this.quorum = new Quorum(nodes.size(), leaseMillis, base.ticker);
    this.reports = base.reports; // its counts of nodes and majority are the same
    this.ticker = base.ticker;
    this.nodeTimeoutNanos = base.nodeTimeoutNanos;
    this.releaseTimeoutNanos = base.releaseTimeoutNanos;
    this.transport = base.transport;
    this.executor = base.executor;
    this.plainFirst = base.plainFirst;
    this.identities = base.identities;
    this.inFlight = base.inFlight;
    this.access = base.access;
    this.acquisitionDecided = base.acquisitionDecided; // a majority, whatever the lease
    this.yesOrNoDecided = base.yesOrNoDecided;
    this.fenceDecided = base.fenceDecided;
  }

  /**
   * {@inheritDoc}
   *
   * <p>Here: on the same masters, transport, threads, masters' identities and access check, with a
   * {@link Quorum} of that lease, which judges an acquisition's validity by it: a lease no longer
   * than the drift allowance (1% of it + 2 ms) leaves no validity, and every acquisition throws as
   * slower than the lease. A late reply is waited for, and a release for a master that does not
   * answer, as long as for the base's lease (the transport's bound).
   */
  @Override
  public LockBackend withLease(long leaseMillis) {
    return new RedlockBackend(this, leaseMillis);
  }

  /**
   * Asks every master which Redis server it is, waiting for the longer of the node and the command
   * timeout, and refuses two masters that are one server ({@link MasterIdentities}). Masters that
   * do not answer in time are checked when they do; until then, nothing fails.
   *
   * @throws IllegalArgumentException if two masters that answered are one server
   */
  public void checkDistinctMasters() {
    identities.learn(releaseTimeoutNanos);
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
    identities.check();
    if (!access.passed()) {
      checkAccess(keys);
    }
    Ask ask = Ask.of(fenced, expectBusy);
    RedlockRoundEvent event = Jfr.beginRedlockRound(); // null when JFR does not record it
    long start = ticker.read();
    Round<Acquisition> round;
    if (ask == Ask.PLAIN && plainFirst) {
      round =
          transport
              .send(
                  commands.plainAcquire(keys, token), start + nodeTimeoutNanos, acquisitionDecided)
              .await(acquisitionDecided);
      if (!quorum.reached(round.count(Acquisition::acquired))
          && round.count(RedlockBackend::busy) > 0) {
        // Behind the first round on every master that has not answered it yet.
        round =
            transport
                .sendAfter(
                    round,
                    commands.acquire(keys, token, false),
                    ticker.read() + nodeTimeoutNanos,
                    acquisitionDecided)
                .await(acquisitionDecided);
      }
    } else {
      round =
          transport
              .send(
                  commands.acquire(keys, token, ask == Ask.FENCED),
                  start + nodeTimeoutNanos,
                  acquisitionDecided)
              .await(acquisitionDecided);
    }
    inFlight.remember(token, round);
    reports.recordRound(event, round, keys);
    return judge(round, keys, token, start);
  }

  /**
   * Asks every master whether the Redis user may run what the lock needs ({@link AccessCheck}),
   * waiting up to the node timeout, or until a majority accepted or so many refused or failed that
   * no majority can accept. Throws, permanently, when so many masters refuse (by denying a command,
   * or by failing for a reason no retry cures) that no majority is left without them; warns of a
   * refusing minority. The check counts as passed once a majority accepted; until then each
   * acquisition asks again.
   */
  private void checkAccess(LockKeys keys) {
    Predicate<Round<List<String>>> decided =
        r -> quorum.decided(r.count(List::isEmpty), r.count(d -> !d.isEmpty()) + r.failed());
    Round<List<String>> round =
        transport
            .send(commands.checkAccess(keys), ticker.read() + nodeTimeoutNanos, decided)
            .await(decided);
    if (quorum.reached(reports.judgeAccess(round, keys))) {
      access.pass();
    }
  }

  /** The outcome of an acquisition round that started at {@code start}. */
  private Acquisition judge(Round<Acquisition> round, LockKeys keys, String token, long start) {
    // One snapshot: replies may still come, and counts read at two moments could call a free lock
    // busy (a grant missing at the first count, which came before the second).
    List<Acquisition> replies = round.replies();
    int granted = 0;
    int busy = 0;
    long fence = 0;
    for (Acquisition reply : replies) {
      if (reply != null && reply.acquired()) {
        granted++;
        fence = Math.max(fence, reply.fencingToken());
      } else if (reply != null) {
        busy++;
      }
    }
    if (quorum.reached(granted)) {
      if (quorum.validityNanos(start) > 0) {
        reports.warnAboutMinority(round, keys, "acquire");
        return Acquisition.acquired(fence, new Grant(round));
      }
      releaseEverywhere(round, keys, token);
      throw reports.slowerThanTheLease(keys, ticker.read() - start, commands.leaseMillis());
    }
    releaseEverywhere(round, keys, token);
    if (quorum.busyRatherThanFailed(busy, replies.size() - granted - busy)) {
      return busyEstimate(replies);
    }
    throw reports.noMajority(round, "acquire", keys, nodeTimeoutNanos);
  }

  /**
   * How long the lock stays busy ({@link Quorum#freeInMillis}), and whether every busy node's
   * holder publishes its release.
   */
  private Acquisition busyEstimate(List<Acquisition> replies) {
    long[] ttls = new long[replies.size()];
    int busy = 0;
    boolean publishes = true;
    for (Acquisition reply : replies) {
      if (reply != null && !reply.acquired()) {
        ttls[busy++] = reply.holderTtlMillis();
        publishes &= reply.holderPublishes();
      }
    }
    long[] busyTtls = Arrays.copyOf(ttls, busy);
    return Acquisition.busy(quorum.freeInMillis(busyTtls), publishes && busy > 0);
  }

  @Override
  public boolean extend(LockKeys keys, String token) {
    identities.check();
    return decide(commands.extend(keys, token), "renew", keys);
  }

  /**
   * Releases on every node, and judges the release by the nodes that granted the hold ({@link
   * Quorum#release}): a lost hold is {@link Release#NOT_OURS}; a release that fewer than a majority
   * confirmed, because the other granting nodes could not be reached, throws a {@link
   * io.github.redislock.RedisLockException} naming them, not to be retried: their keys expire with
   * the lease, but nothing confirmed the release (a node failure is not a lost hold either). A node
   * that has not answered the acquisition yet gets the release behind it, so that a late grant is
   * released when it comes; it does not count as granting. Without {@code grant}, the release goes
   * behind the last acquisition round of {@code token} whose replies are not all in. A node that
   * counts as down gets the release once it answers again (see {@link Transport#undo}).
   */
  @Override
  public Release release(LockKeys keys, String token, long fencingToken, Grant grant) {
    long start = ticker.read();
    Round<Acquisition> acquisition = grant != null ? grant.round() : inFlight.of(token);
    // Without a grant, an attempt that was not granted: every master may hold it.
    Granting granting = grant != null ? Granting.of(acquisition) : Granting.all(nodes.size());
    int granted = granting.count();
    Predicate<Round<Release>> decided =
        r ->
            quorum.releaseDecided(granted, granting.answered(r, true), granting.answered(r, false));
    Round<Release> round =
        transport.undo(
            acquisition,
            commands.release(keys, token, fencingToken),
            start + releaseTimeoutNanos,
            decided);
    if (round.unanswered() > 0) {
      round.await(decided);
    }
    int confirmed = granting.answered(round, true);
    int denied = granting.answered(round, false);
    ReleaseVerdict verdict = quorum.release(granted, confirmed, denied);
    if (verdict == ReleaseVerdict.LOST) {
      reports.releaseOfALostHold(keys, denied, granted);
      return Release.NOT_OURS;
    }
    if (verdict == ReleaseVerdict.UNCONFIRMED) {
      throw reports.releaseUnconfirmed(round, keys, confirmed, releaseTimeoutNanos);
    }
    long listeners = 0;
    for (Release reply : round.replies()) {
      listeners = reply == null ? listeners : Math.max(listeners, reply.listeners());
    }
    return Release.released(listeners);
  }

  /**
   * {@inheritDoc}
   *
   * <p>Every node still holding the lock with {@code token} issues a token; once a majority did,
   * the maximum of theirs is {@linkplain #confirmFence confirmed}, as at acquisition. Either step
   * finding that no majority holds the key any more answers {@code -1}.
   */
  @Override
  public long reissueFence(LockKeys keys, String token, Grant grant) {
    identities.check();
    Round<Long> round =
        transport
            .send(
                commands.reissueFence(keys, token), ticker.read() + nodeTimeoutNanos, fenceDecided)
            .await(fenceDecided);
    if (quorum.impossible(round.count(fence -> fence < 0))) {
      return -1;
    }
    if (!quorum.reached(round.count(fence -> fence >= 0))) {
      throw reports.noMajority(round, "fence", keys, nodeTimeoutNanos);
    }
    long fence = 0;
    for (Long issued : round.replies()) {
      fence = issued == null ? fence : Math.max(fence, issued);
    }
    return confirmFence(keys, token, fence) ? fence : -1;
  }

  /**
   * {@inheritDoc}
   *
   * <p>Raises the counter to {@code fencingToken} on every node whose key still holds {@code
   * token}: {@code true} once a majority did, {@code false} when so many nodes no longer hold it
   * that no majority can.
   */
  @Override
  public boolean confirmFence(LockKeys keys, String token, long fencingToken) {
    identities.check();
    return decide(commands.raiseFence(keys, token, fencingToken), "fence", keys);
  }

  @Override
  public boolean isLocked(LockKeys keys) {
    return decide(commands.isLocked(keys), "inspect", keys);
  }

  /**
   * {@inheritDoc}
   *
   * <p>Here every master is asked, waiting up to the release timeout; the answer needs a majority.
   */
  @Override
  public LockState inspect(LockKeys keys) {
    Round<LockState> round = everyMaster(inspection.inspect(keys));
    List<LockState> states = round.replies().stream().filter(s -> s != null).toList();
    if (!quorum.reached(states.size())) {
      throw reports.noMajority(round, "inspect", keys, releaseTimeoutNanos);
    }
    return LockState.majority(states, quorum.majority());
  }

  /**
   * {@inheritDoc}
   *
   * <p>Here the lock is deleted on every master that answers within the release timeout; when fewer
   * than a majority answered, a majority may still hold it, and this throws.
   */
  @Override
  public boolean forceUnlock(LockKeys keys) {
    Round<Long> round = everyMaster(inspection.forceUnlock(keys));
    boolean deleted = round.count(n -> n > 0) > 0;
    if (!quorum.reached(round.nodes().size() - round.failedOrMissing())) {
      throw reports.noMajority(round, "force-unlock", keys, releaseTimeoutNanos);
    }
    return deleted;
  }

  @Override
  public void describeHolder(LockKeys keys, String token, String host, long pid, String thread) {
    everyMaster(inspection.describe(keys, token, host, pid, thread));
  }

  private <T> Round<T> everyMaster(Request<T> request) {
    Predicate<Round<T>> everyReply = round -> round.unanswered() == 0;
    return transport
        .send(request, ticker.read() + releaseTimeoutNanos, everyReply)
        .await(everyReply);
  }

  /** Every key is on every master: one name for all. */
  @Override
  public String nodeOf(LockKeys keys) {
    return ONE_NAME;
  }

  /** None: independent masters cannot keep one order of waiters (see {@link OrderedOps}). */
  @Override
  public Optional<OrderedOps> orderedOps() {
    return Optional.empty();
  }

  @Override
  public long safetyMarginNanos() {
    return quorum.driftNanos();
  }

  @Override
  public void close() {
    if (view) {
      return; // the base's transport, threads and clients
    }
    transport.close();
    executor.shutdownNow();
    if (ownsClients) {
      nodes.forEach(node -> node.client().close());
    }
  }

  /**
   * Asks every node; {@code true} when a majority answers yes, {@code false} when enough nodes
   * answer no that a majority of yes is impossible, else a {@link
   * io.github.redislock.RedisLockException} naming each node's failure.
   */
  private boolean decide(Request<Boolean> request, String operation, LockKeys keys) {
    Round<Boolean> round =
        transport
            .send(request, ticker.read() + nodeTimeoutNanos, yesOrNoDecided)
            .await(yesOrNoDecided);
    if (quorum.reached(round.count(Boolean::booleanValue))) {
      reports.warnAboutMinority(round, keys, operation);
      return true;
    }
    if (quorum.impossible(round.count(yes -> !yes))) {
      reports.notHeld(round, keys, operation);
      return false;
    }
    throw reports.noMajority(round, operation, keys, nodeTimeoutNanos);
  }

  /** Whether a node's reply to an acquisition is a refusal. */
  private static boolean busy(Acquisition reply) {
    return !reply.acquired();
  }

  /**
   * Releases {@code token} on every node that may hold it: all but those that refused; a node that
   * has not answered the acquisition gets the release behind it.
   */
  private void releaseEverywhere(Round<Acquisition> round, LockKeys keys, String token) {
    transport.followUp(
        round,
        Acquisition::acquired,
        commands.release(keys, token, 0),
        ticker.read() + nodeTimeoutNanos);
  }
}
