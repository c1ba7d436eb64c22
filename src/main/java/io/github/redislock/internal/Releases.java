package io.github.redislock.internal;

import io.github.redislock.RedisLockException;
import io.github.redislock.internal.backend.Failures;
import io.github.redislock.internal.backend.LockKeys;
import io.github.redislock.internal.backend.Release;
import io.github.redislock.internal.kind.TokenRelease;
import io.github.redislock.internal.util.Ticker;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Releases in Redis: a hold's release by its owner, retried once after a transient failure and
 * judged by what the first attempt may have done, and the background clean-up of attempts nobody
 * will use (abandoned at a deadline or an interrupt, failed, or handed off to a thread that gave
 * up).
 */
public final class Releases {
  private static final Logger log = LoggerFactory.getLogger(Releases.class);

  private final NodeExecutor io;
  private final Ticker ticker;
  private final long leaseNanos;
  private final Telemetry telemetry;

  /**
   * Releases.
   *
   * @param io runs the clean-ups, on the threads of each key's node
   * @param ticker the clock of leases
   * @param leaseNanos the lease of every hold
   * @param telemetry counts the owners' releases, and their failures
   */
  public Releases(NodeExecutor io, Ticker ticker, long leaseNanos, Telemetry telemetry) {
    this.io = io;
    this.ticker = ticker;
    this.leaseNanos = leaseNanos;
    this.telemetry = telemetry;
  }

  /**
   * Releases; a transient failure is retried once. Nothing in Redis records releases, so when the
   * retry finds the key gone or taken, what the first attempt did decides:
   *
   * <ul>
   *   <li>it certainly did not run (no connection, or refused with an error, as by a master demoted
   *       in a failover): the hold was lost before the release, and the answer says so;
   *   <li>it may have run, its reply lost: it may have deleted the key. The lease tells, provided
   *       the retry asked the same server: the key cannot have expired there before the lease as
   *       last confirmed ends (Redis starts counting it after this process did), so a key found
   *       gone or taken before then was released by the first attempt. Later, or when the retry
   *       reached another server (a failover in between, which may have lost the key), the release
   *       is reported unconfirmed rather than lost.
   * </ul>
   *
   * <p>A release must run for an interrupted thread too (its wait for a pooled connection would
   * fail at once), and is bounded by the client's timeouts: the interrupt flag is cleared for each
   * attempt and set again on return.
   */
  public Release releaseWithRetry(Hold hold) {
    return releaseWithRetry(hold, Releases::byKind);
  }

  /**
   * The owner's release of {@code hold} in Redis: by {@code how} when given (a script that also
   * signals, or enqueues an awaiter), else its kind's release, retried; counted.
   *
   * @throws RedisLockException when Redis could not confirm it: the hold is gone from this JVM, and
   *     its key (or share) expires within the lease
   */
  Release byOwner(Hold hold, Function<Hold, Release> how) {
    Release release;
    try {
      release = how == null ? releaseWithRetry(hold) : how.apply(hold);
    } catch (RedisLockException e) {
      telemetry.redisErrors(hold.name, 1);
      boolean share = hold.kind.shared();
      throw new RedisLockException(
          (share ? "the read lock of '" + hold.name + "'" : "lock '" + hold.name + "'")
              + " was released in this JVM, but Redis could not confirm the release;"
              + (share ? " its share" : " its key")
              + " expires within the lease ("
              + TimeUnit.NANOSECONDS.toMillis(leaseNanos)
              + " ms)",
          e);
    }
    telemetry.released(hold, hold.kind, release.released());
    return release;
  }

  /** The release of {@code hold}'s kind. */
  private static Release byKind(Hold hold) {
    return hold.release();
  }

  /** As {@link #releaseWithRetry(Hold)}, by {@code how} (a script that also releases). */
  public Release releaseWithRetry(Hold hold, Function<Hold, Release> how) {
    boolean interrupted = Thread.interrupted();
    try {
      return how.apply(hold);
    } catch (RedisLockException first) {
      if (!Failures.isTransient(first)) {
        throw first;
      }
      interrupted |= Thread.interrupted();
      return retry(hold, how, first);
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private Release retry(Hold hold, Function<Hold, Release> how, RedisLockException first) {
    Release release;
    try {
      release = how.apply(hold);
    } catch (RedisLockException second) {
      second.addSuppressed(first);
      throw second;
    }
    if (release.released() || Failures.certainlyNotRun(first)) {
      return release;
    }
    String firstServer = Failures.server(first);
    if (firstServer != null && release.server() != null && !firstServer.equals(release.server())) {
      throw new RedisLockException(
          "the release sent to "
              + firstServer
              + " may have run (its reply was lost), and "
              + release.server()
              + ", which serves the key now, does not hold it: released there, or lost with a"
              + " failover",
          first);
    }
    if (ticker.read() - (hold.leaseEndNanos() - leaseNanos / 100) < 0) { // 1% for drift
      return Release.RELEASED; // the first attempt released, and its reply was lost
    }
    throw first;
  }

  /** Releases a hold nobody will use, in the background. */
  void releaseLater(Hold hold) {
    releaseLater(hold.kind, hold.keys, hold.token);
  }

  /**
   * Releases {@code token} in the background, if it holds the key: for abandoned attempts. When the
   * factory is closed, or the node's threads are all stuck with more calls waiting, the key is left
   * to expire with its lease.
   */
  void releaseLater(TokenRelease kind, LockKeys keys, String token) {
    try {
      io.execute(keys, () -> releaseQuietly(kind, keys, token));
    } catch (RejectedExecutionException e) {
      log.debug(
          "not cleaning up an abandoned attempt on '{}', which expires with its lease: {}",
          keys.lock(),
          e.getMessage());
    }
  }

  /** Releases {@code token} now, if it holds the key, logging a failure: for abandoned attempts. */
  public void releaseQuietly(TokenRelease kind, LockKeys keys, String token) {
    try {
      kind.releaseToken(keys, token);
    } catch (RuntimeException e) {
      log.debug("could not clean up an abandoned attempt on '{}'", keys.lock(), e);
    }
  }
}
