package io.github.redislock.internal.backend;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.redislock.RedisLockException;
import io.github.redislock.internal.transport.SendFailure;
import java.net.SocketTimeoutException;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.HostAndPort;
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
  void aRedirectionIsTransient() {
    assertThat(
            Failures.isTransient(
                wrapped(new JedisMovedDataException("MOVED 1 h:2", new HostAndPort("h", 2), 1))))
        .isTrue();
  }
}
