package io.github.redislock.internal.backend;

import io.github.redislock.RedisLockException;
import io.github.redislock.internal.events.RedlockRoundEvent;
import io.github.redislock.internal.transport.Node;
import io.github.redislock.internal.transport.Round;
import io.github.redislock.internal.util.Ticker;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What Redlock tells its caller and its log about the nodes of a round: the exception when no
 * majority could be reached, naming each node's failure, and a warning, at most every ten seconds,
 * when a majority succeeded without some nodes.
 */
final class RedlockReports {
  private static final Logger log = LoggerFactory.getLogger(RedlockReports.class);
  private static final long WARN_EVERY_NANOS = TimeUnit.SECONDS.toNanos(10);

  private final Quorum quorum;
  private final Ticker ticker;
  private final long nodeTimeoutMillis;
  private final AtomicLong lastMinorityWarning;

  /**
   * Reports for Redlock over {@code quorum}'s nodes.
   *
   * @param quorum the nodes' arithmetic
   * @param ticker the clock that spaces warnings
   * @param nodeTimeoutNanos how long a node is waited for, as messages say
   */
  RedlockReports(Quorum quorum, Ticker ticker, long nodeTimeoutNanos) {
    this.quorum = quorum;
    this.ticker = ticker;
    this.nodeTimeoutMillis = TimeUnit.NANOSECONDS.toMillis(nodeTimeoutNanos);
    this.lastMinorityWarning = new AtomicLong(ticker.read() - WARN_EVERY_NANOS);
  }

  /**
   * Commits {@code event}, begun before the acquisition {@code round}, with the round's counts;
   * nothing when JFR does not record it ({@code event} is null, or under its threshold).
   */
  void recordRound(RedlockRoundEvent event, Round<Acquisition> round, LockKeys keys) {
    if (event == null || !event.shouldCommit()) {
      return;
    }
    event.lockName = keys.lock();
    event.masters = round.nodes().size();
    event.granted = round.count(Acquisition::acquired);
    event.denied = round.count(reply -> !reply.acquired());
    event.failed = round.failedOrMissing();
    event.acquired = quorum.reached(event.granted);
    event.commit();
  }

  /**
   * The exception for an operation that reached no majority because nodes failed or were slow.
   * Every node failure is attached: the one chosen as cause, the others as suppressed.
   *
   * @param round the operation's replies
   * @param operation what was asked, for the message ("acquire", "renew", ...)
   * @param keys the lock
   * @param timeoutNanos how long the nodes were waited for
   * @return the exception to throw
   */
  RedisLockException noMajority(
      Round<?> round, String operation, LockKeys keys, long timeoutNanos) {
    return withNodeFailures(
        round,
        "Redlock could not "
            + operation
            + " lock key '"
            + keys.lock()
            + "' on a majority ("
            + quorum.majority()
            + " of "
            + quorum.nodes()
            + "): "
            + round.describeFailures(TimeUnit.NANOSECONDS.toMillis(timeoutNanos)));
  }

  /**
   * The exception for an acquisition that a majority granted too slowly: no validity was left of
   * the lease. Transient, since the next attempt may be faster.
   *
   * @param keys the lock
   * @param elapsedNanos how long the acquisition took
   * @param leaseMillis the lease
   * @return the exception to throw
   */
  RedisLockException slowerThanTheLease(LockKeys keys, long elapsedNanos, long leaseMillis) {
    return new RedisLockException(
        "acquiring lock key '"
            + keys.lock()
            + "' on a majority took "
            + TimeUnit.NANOSECONDS.toMillis(elapsedNanos)
            + " ms, leaving no validity of its "
            + leaseMillis
            + " ms lease; released it on every node",
        new Failures.TransientFailure("Redlock acquisition slower than the lease"));
  }

  /**
   * Logs, at most once every ten seconds for all locks, that an operation succeeded on a majority
   * while some nodes failed or did not answer: the lock works, but with less margin.
   *
   * @param round the operation's replies
   * @param keys the lock
   * @param operation what was asked
   */
  void warnAboutMinority(Round<?> round, LockKeys keys, String operation) {
    if (round.failedOrMissing() == 0) {
      return;
    }
    long now = ticker.read();
    long last = lastMinorityWarning.get();
    if (now - last >= WARN_EVERY_NANOS && lastMinorityWarning.compareAndSet(last, now)) {
      log.warn(
          "Redlock {} of lock key '{}' succeeded on a majority; failed nodes: {}",
          operation,
          keys.lock(),
          round.describeFailures(nodeTimeoutMillis));
    }
  }

  /**
   * Judges the replies of an access check ({@link AccessCheck}): throws, permanently, when so many
   * masters refuse (by denying a command, or by failing for a reason no retry cures) that no
   * majority is left without them; warns of a refusing minority ({@link #warnAboutRefusals}).
   *
   * @return how many masters accepted
   */
  int judgeAccess(Round<List<String>> round, LockKeys keys) {
    List<String> refusals = new ArrayList<>();
    int accepted = 0;
    List<Node> asked = round.nodes();
    List<List<String>> replies = round.replies();
    for (int i = 0; i < asked.size(); i++) {
      List<String> denied = replies.get(i);
      if (denied != null && denied.isEmpty()) {
        accepted++;
      } else if (denied != null) {
        refusals.add(asked.get(i).label() + " denies " + String.join(", ", denied));
      }
    }
    for (RuntimeException failure : round.failures()) {
      if (!Failures.isTransient(failure)) {
        refusals.add(failure.getMessage());
      }
    }
    if (refusals.size() > quorum.nodes() - quorum.majority()) {
      RedisLockException refused =
          AccessCheck.refused(keys, List.of(String.join("; ", refusals)), "a majority of masters");
      round.failures().forEach(refused::addSuppressed);
      throw refused;
    }
    if (!refusals.isEmpty()) {
      warnAboutRefusals(keys, refusals);
    }
    return accepted;
  }

  /**
   * Logs, at most once every ten seconds (with the minority warnings), that some masters refuse the
   * Redis user commands the lock needs: the lock works on the others, with less margin.
   *
   * @param keys the lock at hand
   * @param refusals each refusing master's refusal
   */
  void warnAboutRefusals(LockKeys keys, List<String> refusals) {
    long now = ticker.read();
    long last = lastMinorityWarning.get();
    if (now - last >= WARN_EVERY_NANOS && lastMinorityWarning.compareAndSet(last, now)) {
      log.warn(
          "Redlock masters refuse the Redis user commands lock key '{}' needs (NOPERM); the lock"
              + " works on the others: {}",
          keys.lock(),
          String.join("; ", refusals));
    }
  }

  /**
   * Logs at debug level that a majority answered "not ours", with each node's answer.
   *
   * @param round the yes-or-no replies
   * @param keys the lock
   * @param operation what was asked
   */
  void notHeld(Round<Boolean> round, LockKeys keys, String operation) {
    if (!log.isDebugEnabled()) {
      return;
    }
    List<Boolean> replies = round.replies();
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < replies.size(); i++) {
      text.append(i == 0 ? "" : ", ")
          .append(round.nodes().get(i).label())
          .append('=')
          .append(
              replies.get(i) == null ? "failed or no reply" : replies.get(i) ? "ours" : "not ours");
    }
    log.debug(
        "Redlock {} of lock key '{}': a majority does not hold it; answers: {}",
        operation,
        keys.lock(),
        text);
  }

  /**
   * Logs that a release was denied by so many granting nodes that the hold was lost before it.
   *
   * @param keys the lock
   * @param denied the granting nodes that no longer held it
   * @param granted the nodes that granted it
   */
  void releaseOfALostHold(LockKeys keys, int denied, int granted) {
    log.debug(
        "Redlock release of lock key '{}': {} of its {} granting nodes no longer held it",
        keys.lock(),
        denied,
        granted);
  }

  /**
   * The exception for a release that fewer than a majority confirmed: the other nodes could not be
   * reached (or did not answer in time), and expire the key with its lease. Every node failure is
   * attached, suppressed. It is not {@linkplain Failures#isTransient transient}, so the owner's
   * release is not tried again: the release already waited for every node's reply, and a second one
   * would find the nodes that the first released "not ours", like a lost hold.
   *
   * @param round the release's replies
   * @param keys the lock
   * @param confirmed how many granting nodes confirmed
   * @param timeoutNanos how long the nodes were waited for
   * @return the exception to throw
   */
  RedisLockException releaseUnconfirmed(
      Round<?> round, LockKeys keys, int confirmed, long timeoutNanos) {
    RedisLockException failure =
        new RedisLockException(
            "Redlock could not release lock key '"
                + keys.lock()
                + "' on a majority ("
                + quorum.majority()
                + " of "
                + quorum.nodes()
                + "): "
                + confirmed
                + " confirmed; the others expire it with its lease: "
                + round.describeFailures(TimeUnit.NANOSECONDS.toMillis(timeoutNanos)),
            new UnconfirmedRelease());
    round.failures().forEach(failure::addSuppressed);
    return failure;
  }

  /** The cause of {@link #releaseUnconfirmed}: judged, not worth another try. */
  private static final class UnconfirmedRelease extends RuntimeException {
    private static final long serialVersionUID = 1L;

    UnconfirmedRelease() {
      super("fewer than a majority of the masters that granted the hold confirmed its release");
    }
  }

  /**
   * An exception with {@code message} whose cause is the round's most telling node failure ({@link
   * #transientUnlessPermanent}), with the other node failures suppressed.
   */
  private RedisLockException withNodeFailures(Round<?> round, String message) {
    RedisLockException failure = new RedisLockException(message, transientUnlessPermanent(round));
    round.failures().stream().filter(f -> f != failure.getCause()).forEach(failure::addSuppressed);
    return failure;
  }

  /**
   * The cause to report: a permanent node failure when there are so many that no majority is left
   * without them (waiting will not cure it), else a transient one (the nodes that failed
   * transiently may come back, and make a majority with those that are fine), else (every node was
   * merely slow) a transient marker.
   */
  private Throwable transientUnlessPermanent(Round<?> round) {
    List<RuntimeException> failures = round.failures();
    List<RuntimeException> permanent =
        failures.stream().filter(f -> !Failures.isTransient(f)).toList();
    if (!permanent.isEmpty() && permanent.size() > quorum.nodes() - quorum.majority()) {
      return permanent.get(0);
    }
    return failures.stream()
        .filter(Failures::isTransient)
        .findFirst()
        .<Throwable>map(f -> f)
        .orElseGet(
            () ->
                new Failures.TransientFailure(
                    permanent.isEmpty()
                        ? "a majority of Redlock nodes did not answer in time"
                        : "too few Redlock nodes answered in time, besides those refusing"));
  }
}
