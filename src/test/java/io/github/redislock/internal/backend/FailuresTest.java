package io.github.redislock.internal.backend;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.redislock.RedisLockException;
import io.github.redislock.internal.transport.SendFailure;
import java.io.EOFException;
import java.net.SocketTimeoutException;
import java.security.cert.CertificateException;
import java.util.List;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.exceptions.JedisAccessControlException;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisMovedDataException;

/** Which failures are worth retrying, and which certainly did not run. */
class FailuresTest {

  private static RedisLockException wrapped(Exception cause) {
    return new RedisLockException("Redis failed to release lock key 'k'", cause);
  }

  @Test
  void aRefusalByTheServerIsTransientAndDidNotRun() {
    RedisLockException failure =
        wrapped(
            SendFailure.notRun(
                new JedisDataException("READONLY You can't write against a read only replica."),
                "127.0.0.1:6379"));
    assertThat(Failures.isTransient(failure)).isTrue();
    assertThat(Failures.certainlyNotRun(failure)).isTrue();
    assertThat(Failures.server(failure)).isEqualTo("127.0.0.1:6379");
  }

  @Test
  void aPermanentErrorStaysPermanentThroughTheSendFailure() {
    RedisLockException failure =
        wrapped(SendFailure.notRun(new JedisDataException("NOPERM no permissions"), "h:1"));
    assertThat(Failures.isTransient(failure)).isFalse();
  }

  @Test
  void aLostReplyMayHaveRun() {
    RedisLockException failure =
        wrapped(
            SendFailure.mayHaveRun(
                new JedisConnectionException(new SocketTimeoutException("Read timed out")),
                "127.0.0.1:6379"));
    assertThat(Failures.isTransient(failure)).isTrue();
    assertThat(Failures.certainlyNotRun(failure)).isFalse();
  }

  @Test
  void aFailureThroughAClientsApiMayHaveRunOnAnUnknownServer() {
    RedisLockException failure = wrapped(new JedisDataException("LOADING Redis is loading"));
    assertThat(Failures.isTransient(failure)).isTrue();
    assertThat(Failures.certainlyNotRun(failure)).isFalse();
    assertThat(Failures.server(failure)).isNull();
  }

  @Test
  void aPermanentErrorWhileConnectingIsPermanentThoughTheConnectionFailed() {
    for (String reply :
        List.of(
            "WRONGPASS invalid username-password pair or user is disabled.",
            "NOAUTH Authentication required.",
            "NOPERM User app has no permissions to run the 'hello' command",
            "ERR DB index is out of range")) {
      RedisLockException failure =
          wrapped(new JedisConnectionException(new JedisAccessControlException(reply)));
      assertThat(Failures.isTransient(failure)).as(reply).isFalse();
      assertThat(Failures.permanentCause(failure)).hasMessage(reply);
    }
  }

  @Test
  void aCurableErrorWhileConnectingStaysTransient() {
    for (String reply :
        List.of("LOADING Redis is loading", "ERR max number of clients reached", "BUSY script")) {
      RedisLockException failure =
          wrapped(new JedisConnectionException(new JedisDataException(reply)));
      assertThat(Failures.isTransient(failure)).as(reply).isTrue();
      assertThat(Failures.permanentCause(failure)).isNull();
    }
  }

  @Test
  void aRefusedCertificateIsPermanent() {
    RedisLockException untrusted =
        wrapped(
            new JedisConnectionException(
                new SSLHandshakeException("PKIX path building failed")
                    .initCause(new CertificateException("unable to find valid path"))));
    assertThat(Failures.isTransient(untrusted)).isFalse();
    RedisLockException refusedByServer =
        wrapped(
            new JedisConnectionException(
                new SSLException("Received fatal alert: certificate_required")));
    assertThat(Failures.isTransient(refusedByServer)).isFalse();
  }

  @Test
  void aHandshakeTheNetworkCutIsTransient() {
    RedisLockException failure =
        wrapped(
            new JedisConnectionException(
                new SSLHandshakeException("Remote host terminated the handshake")
                    .initCause(new EOFException("SSL peer shut down incorrectly"))));
    assertThat(Failures.isTransient(failure)).isTrue();
  }

  @Test
  void aTransientMarkerIsNeverPermanent() {
    RedisLockException failure =
        new RedisLockException("slow", new Failures.TransientFailure("slow majority"));
    assertThat(Failures.isTransient(failure)).isTrue();
  }

  @Test
  void aRedirectionIsTransient() {
    assertThat(
            Failures.isTransient(
                wrapped(new JedisMovedDataException("MOVED 1 h:2", new HostAndPort("h", 2), 1))))
        .isTrue();
  }
}
