package io.github.redislock.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.github.redislock.RedisLockException;
import io.github.redislock.internal.FakeBackend.Op;
import io.github.redislock.internal.backend.Acquisition;
import io.github.redislock.internal.backend.LockKeys;
import io.github.redislock.internal.backend.Release;
import io.github.redislock.internal.kind.ExclusiveKind;
import io.github.redislock.internal.transport.SendFailure;
import io.github.redislock.internal.util.Tokens;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.exceptions.JedisConnectionException;

/**
 * Releases: one retry after a transient failure, judged by what the first attempt may have done and
 * by the lease; the clean-ups.
 */
class ReleasesTest {
  private static final Duration LEASE = Duration.ofSeconds(30);
  private static final LockKeys KEYS = LockKeys.of("releases-test");

  private final ManualTicker ticker = new ManualTicker();
  private final FakeBackend backend = new FakeBackend(ticker, LEASE);
  private final Releases releases =
      new Releases(
          NodeExecutor.of(Runnable::run),
          ticker,
          LEASE.toNanos(),
          new Telemetry(false, null, ticker));

  private Hold acquire() {
    String token = Tokens.next();
    Acquisition granted = backend.tryAcquire(KEYS, token, true, false);
    assertThat(granted.acquired()).isTrue();
    long now = ticker.read();
    Hold hold =
        new Hold(
            new ExclusiveKind(backend),
            null,
            "releases-test",
            KEYS,
            token,
            granted.fencingToken(),
            null,
            now,
            now + LEASE.toNanos(),
            ticker);
    assertThat(hold.beginRelease()).isTrue();
    return hold;
  }

  @Test
  void aReleaseIsOneCallWhenItSucceeds() {
    Hold hold = acquire();
    assertThat(releases.releaseWithRetry(hold).released()).isTrue();
    assertThat(backend.calls(Op.RELEASE)).isEqualTo(1);
    assertThat(backend.holder(KEYS.lock())).isNull();
  }

  @Test
  void aReleaseAfterAHandoffPassesTheLastTokenIssued() {
    Hold hold = acquire();
    long issued = hold.lastIssuedToken();
    hold.handedOff(); // the new holder never asked for a token of its own
    releases.releaseWithRetry(hold);
    assertThat(backend.log()).last().extracting(FakeBackend.Call::fencingToken).isEqualTo(issued);
  }

  @Test
  void aRetryThatFindsTheKeyGoneCountsAsReleasedWhileTheLeaseLasts() {
    Hold hold = acquire();
    backend.loseReplyNext(Op.RELEASE, 1); // the first call deletes the key; its reply is lost
    ticker.advance(LEASE.toNanos() - LEASE.toNanos() / 100 - 1);
    Release release = releases.releaseWithRetry(hold);
    assertThat(release.released()).isTrue();
    assertThat(backend.calls(Op.RELEASE)).isEqualTo(2);
  }

  @Test
  void aRetryThatFindsTheKeyGoneRethrowsTheFirstFailureAfterTheLease() {
    Hold hold = acquire();
    RedisLockException first = FakeBackend.transientFailure(Op.RELEASE);
    backend.failNext(Op.RELEASE, 1, () -> first);
    ticker.advance(LEASE.toNanos() - LEASE.toNanos() / 100); // 1% is left for clock drift
    backend.delete(KEYS.lock());
    RedisLockException thrown =
        catchThrowableOfType(RedisLockException.class, () -> releases.releaseWithRetry(hold));
    assertThat(thrown).isSameAs(first);
    assertThat(backend.calls(Op.RELEASE)).isEqualTo(2);
  }

  @Test
  void aRetryThatFindsTheKeyGoneAfterAnAttemptThatDidNotRunReportsTheLoss() {
    Hold hold = acquire();
    backend.failNext(Op.RELEASE, 1, () -> failure(SendFailure.notRun(refused(), null)));
    backend.delete(KEYS.lock()); // lost in a failover, before the release reached any server
    assertThat(releases.releaseWithRetry(hold).released()).isFalse();
    assertThat(backend.calls(Op.RELEASE)).isEqualTo(2);
  }

  @Test
  void aRetryOnTheSameServerAfterALostReplyCountsAsReleasedWhileTheLeaseLasts() {
    Hold hold = acquire();
    backend.server("127.0.0.1:6379");
    backend.failNext(
        Op.RELEASE, 1, () -> failure(SendFailure.mayHaveRun(timedOut(), "127.0.0.1:6379")));
    backend.delete(KEYS.lock()); // the first attempt ran
    assertThat(releases.releaseWithRetry(hold).released()).isTrue();
  }

  @Test
  void aRetryOnAnotherServerAfterALostReplyIsUnconfirmed() {
    Hold hold = acquire();
    backend.server("127.0.0.1:6380");
    RedisLockException first = failure(SendFailure.mayHaveRun(timedOut(), "127.0.0.1:6379"));
    backend.failNext(Op.RELEASE, 1, () -> first);
    backend.delete(KEYS.lock()); // ran on the old master, or lost with the failover
    RedisLockException thrown =
        catchThrowableOfType(RedisLockException.class, () -> releases.releaseWithRetry(hold));
    assertThat(thrown).hasCause(first).hasMessageContaining("127.0.0.1:6380");
  }

  @Test
  void anInterruptedOwnerReleasesWithTheFlagClearedAndGetsItBack() {
    Hold hold = acquire();
    List<Boolean> interruptedDuringAttempts = new ArrayList<>();
    backend.failNext(
        Op.RELEASE,
        1,
        () -> {
          interruptedDuringAttempts.add(Thread.currentThread().isInterrupted());
          Thread.currentThread().interrupt(); // as a pool's interrupted wait leaves it
          return FakeBackend.transientFailure(Op.RELEASE);
        });
    Thread.currentThread().interrupt();
    boolean released = releases.releaseWithRetry(hold).released();
    boolean interrupted = Thread.interrupted();
    assertThat(released).isTrue();
    assertThat(interruptedDuringAttempts).containsExactly(false);
    assertThat(interrupted).isTrue();
  }

  private static RedisLockException failure(SendFailure cause) {
    return new RedisLockException("Redis failed to release: " + cause.getMessage(), cause);
  }

  private static JedisConnectionException refused() {
    return new JedisConnectionException("Failed to connect", new ConnectException("refused"));
  }

  private static JedisConnectionException timedOut() {
    return new JedisConnectionException(new SocketTimeoutException("Read timed out"));
  }

  @Test
  void aSecondFailureIsThrownWithTheFirstSuppressed() {
    Hold hold = acquire();
    RedisLockException first = FakeBackend.transientFailure(Op.RELEASE);
    RedisLockException second = FakeBackend.transientFailure(Op.RELEASE);
    backend.failNext(Op.RELEASE, 1, () -> first).failNext(Op.RELEASE, 1, () -> second);
    RedisLockException thrown =
        catchThrowableOfType(RedisLockException.class, () -> releases.releaseWithRetry(hold));
    assertThat(thrown).isSameAs(second);
    assertThat(thrown.getSuppressed()).containsExactly(first);
  }

  @Test
  void aNonTransientFailureIsNotRetried() {
    Hold hold = acquire();
    RedisLockException permanent =
        new RedisLockException("ERR script error", new IllegalStateException("permanent"));
    backend.failNext(Op.RELEASE, 1, () -> permanent);
    RedisLockException thrown =
        catchThrowableOfType(RedisLockException.class, () -> releases.releaseWithRetry(hold));
    assertThat(thrown).isSameAs(permanent);
    assertThat(backend.calls(Op.RELEASE)).isEqualTo(1);
    assertThat(backend.holder(KEYS.lock())).isEqualTo(hold.token);
  }

  @Test
  void aKeyTakenByAnotherOwnerIsNotReleased() {
    Hold hold = acquire();
    backend.steal(KEYS.lock(), "someone-else");
    assertThat(releases.releaseWithRetry(hold).released()).isFalse();
    assertThat(backend.holder(KEYS.lock())).isEqualTo("someone-else");
  }

  @Test
  void releaseLaterReleasesTheTokenOnTheExecutor() {
    Hold hold = acquire();
    releases.releaseLater(hold.kind, KEYS, hold.token);
    assertThat(backend.holder(KEYS.lock())).isNull();
  }

  @Test
  void releaseLaterOnAClosedExecutorDoesNotThrow() {
    Hold hold = acquire();
    ExecutorService closed = Executors.newSingleThreadExecutor();
    closed.shutdown();
    Releases late =
        new Releases(
            NodeExecutor.of(closed), ticker, LEASE.toNanos(), new Telemetry(false, null, ticker));
    assertThatNoException().isThrownBy(() -> late.releaseLater(hold.kind, KEYS, hold.token));
    assertThat(backend.calls(Op.RELEASE)).isZero();
  }

  @Test
  void releaseQuietlySwallowsAFailure() {
    Hold hold = acquire();
    backend.failNext(Op.RELEASE, 1);
    assertThatNoException().isThrownBy(() -> releases.releaseQuietly(hold.kind, KEYS, hold.token));
    assertThat(backend.calls(Op.RELEASE)).isEqualTo(1);
  }
}
