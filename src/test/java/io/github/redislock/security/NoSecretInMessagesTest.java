package io.github.redislock.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.github.redislock.RedisLockFactory;
import io.github.redislock.testing.IntegrationTest;
import io.github.redislock.testing.RedisServer;
import io.github.redislock.testing.StdErr;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import redis.clients.jedis.Jedis;

/**
 * No message, log line or {@code toString()} shows a password: every builder and URI error path,
 * driven with URIs that carry one, and the paths that reach a server (a wrong password, an
 * unreachable master, one master given twice under two host names). Each case collects every text
 * the failure carries (messages of the exception, its causes and suppressed exceptions, their
 * {@code toString()}) and what was logged meanwhile, and looks for the password in its plain and
 * its percent-encoded form.
 */
@IntegrationTest
class NoSecretInMessagesTest {
  /** Decoded: what the server gets. Encoded in URIs: {@code %40} for {@code @}, {@code %3A}... */
  private static final String SECRET = "Pw@Zq8:x7/s3cret";

  private static final String ENCODED = "Pw%40Zq8%3Ax7%2Fs3cret";
  private static final String USER_INFO = "locker:" + ENCODED + "@";

  private static RedisServer server;

  @BeforeAll
  static void startServer() {
    server = RedisServer.start();
    try (Jedis raw = server.jedis()) {
      raw.aclSetUser("locker", "reset", "on", ">" + SECRET, "~*", "&*", "+@all");
    }
  }

  @AfterAll
  static void stopServer() {
    if (server != null) {
      server.close();
    }
  }

  /** A URI of {@code scheme} with the secret as the password of user {@code locker}. */
  private static String secret(String scheme, String rest) {
    return scheme + "://" + USER_INFO + rest;
  }

  /** Builder calls that must fail before anything is built, each with a URI holding the secret. */
  static Stream<Arguments> refusedAtOnce() {
    String good = secret("redis", "127.0.0.1:6390");
    return Stream.of(
        Arguments.of(
            "standalone: a bad port",
            call(() -> builder().standalone(secret("redis", "127.0.0.1:notaport")))),
        Arguments.of(
            "standalone: no host", call(() -> builder().standalone(secret("redis", ":6379")))),
        Arguments.of(
            "standalone: a bad database",
            call(() -> builder().standalone(secret("redis", "h:1/x")))),
        Arguments.of(
            "standalone: a bad scheme", call(() -> builder().standalone(secret("http", "h:1")))),
        Arguments.of(
            "standalone: a sentinel URI",
            call(() -> builder().standalone(secret("redis-sentinel", "h:1/m")))),
        Arguments.of(
            "standalone: a cluster URI",
            call(() -> builder().standalone(secret("redis-cluster", "h:1,h:2")))),
        Arguments.of(
            "standalone: a bad escape",
            call(() -> builder().standalone("redis://locker:" + ENCODED + "%zz@h:1"))),
        Arguments.of("standalone: twice", call(() -> builder().standalone(good).standalone(good))),
        Arguments.of(
            "sentinel: no master name",
            call(() -> builder().sentinel(secret("redis-sentinel", "h:1")))),
        Arguments.of("sentinel: a plain URI", call(() -> builder().sentinel(good))),
        Arguments.of("cluster: a plain URI", call(() -> builder().cluster(good))),
        Arguments.of(
            "cluster: a bad node",
            call(() -> builder().cluster(secret("redis-cluster", "h:1,h:x")))),
        Arguments.of(
            "redlock: two masters",
            call(() -> builder().redlock(good, secret("redis", "127.0.0.1:6391")))),
        Arguments.of(
            "redlock: one master twice",
            call(() -> builder().redlock(good, good, secret("redis", "127.0.0.1:6391")))),
        Arguments.of(
            "redlock: a malformed master",
            call(() -> builder().redlock(good, secret("redis", "h:x"), secret("redis", "h:2")))),
        Arguments.of(
            "redlock: a sentinel master",
            call(
                () ->
                    builder()
                        .redlock(good, secret("redis-sentinel", "h:1/m"), secret("redis", "h:2")))),
        Arguments.of(
            "redlock after standalone",
            call(
                () ->
                    builder()
                        .standalone(good)
                        .redlock(good, secret("redis", "h:2"), secret("redis", "h:3")))),
        Arguments.of(
            "tls without a TLS URI",
            call(
                () ->
                    builder().standalone(good).tls(javax.net.ssl.SSLContext.getDefault()).build())),
        Arguments.of(
            "a node timeout past the lease",
            call(
                () ->
                    builder()
                        .redlock(good, secret("redis", "h:2"), secret("redis", "h:3"))
                        .leaseTime(Duration.ofMillis(500))
                        .redlockNodeTimeout(Duration.ofSeconds(1))
                        .build())));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("refusedAtOnce")
  void builderErrorsDoNotShowThePassword(String what, Call call) {
    assertNoSecret(what, call);
  }

  @Test
  void aWrongPasswordIsReportedWithoutIt() {
    String uri = "redis://locker:" + ENCODED + "x@" + server.host() + ":" + server.port();
    assertNoSecret(
        "a wrong password",
        () -> {
          try (RedisLockFactory factory = builder().standalone(uri).build()) {
            factory.getLock("secret-test").tryLock();
          }
        });
  }

  @Test
  void anUnreachableServerIsReportedWithoutThePassword() {
    String uri = secret("redis", "127.0.0.1:" + RedisServer.freePort());
    assertNoSecret(
        "an unreachable server",
        () -> {
          try (RedisLockFactory factory =
              builder().standalone(uri).commandTimeout(Duration.ofMillis(300)).build()) {
            factory.getLock("secret-test").tryLock();
          }
        });
  }

  @Test
  void anUnreachableRedlockMasterIsReportedWithoutThePassword() {
    String here = secret("redis", server.host() + ":" + server.port());
    assertNoSecret(
        "an unreachable Redlock master",
        () -> {
          try (RedisLockFactory factory =
              builder()
                  .redlock(
                      here,
                      secret("redis", "127.0.0.1:" + RedisServer.freePort()),
                      secret("redis", "127.0.0.1:" + RedisServer.freePort()))
                  .build()) {
            factory.getLock("secret-test").tryLock();
          }
        });
  }

  @Test
  void oneServerGivenTwiceAsRedlockMastersIsReportedWithoutThePassword() {
    assertNoSecret(
        "one Redlock master under two names",
        () -> {
          try (RedisLockFactory factory =
              builder()
                  .redlock(
                      secret("redis", "127.0.0.1:" + server.port()),
                      secret("redis", "localhost:" + server.port()),
                      secret("redis", "127.0.0.1:" + RedisServer.freePort()))
                  .build()) {
            factory.getLock("secret-test").tryLock();
          }
        });
  }

  @Test
  void toStringsDoNotShowThePassword() {
    String uri = secret("redis", server.host() + ":" + server.port());
    try (StdErr err = StdErr.capture();
        RedisLockFactory factory = builder().standalone(uri).describeHolders().build()) {
      var lock = factory.getLock("secret-test");
      lock.lock();
      List<String> texts = new ArrayList<>();
      try {
        texts.add(factory.toString());
        texts.add(lock.toString());
        texts.add(factory.getReadWriteLock("secret-rw").toString());
        texts.add(factory.getFairLock("secret-fair").toString());
        texts.add(factory.inspect("secret-test").toString());
        texts.add(factory.stats().toString());
      } finally {
        lock.unlock();
      }
      texts.add(err.text());
      assertThat(String.join("\n", texts)).doesNotContain(SECRET).doesNotContain(ENCODED);
    }
  }

  private static RedisLockFactory.Builder builder() {
    return RedisLockFactory.builder();
  }

  /** A call that is expected to throw, as a parameter. */
  @FunctionalInterface
  interface Call {
    void run() throws Exception;
  }

  private static Call call(Call call) {
    return call;
  }

  /** Runs {@code call}, which must throw, and looks for the secret in all it produced. */
  private static void assertNoSecret(String what, Call call) {
    Throwable thrown = null;
    String logged;
    try (StdErr err = StdErr.capture()) {
      try {
        call.run();
      } catch (Throwable e) {
        thrown = e;
      }
      logged = err.text();
    }
    if (thrown == null) {
      fail(what + ": expected a failure, got none");
    }
    String texts = texts(thrown) + "\n" + logged;
    assertThat(texts)
        .as(what + ": messages, toString()s and log lines")
        .doesNotContain(SECRET)
        .doesNotContain(ENCODED)
        .doesNotContain(SECRET.substring(0, SECRET.indexOf('@')) + "%40")
        .doesNotContain("s3cret");
  }

  /** Every message and {@code toString()} of {@code root}, its causes and suppressed ones. */
  private static String texts(Throwable root) {
    StringBuilder all = new StringBuilder();
    List<Throwable> seen = new ArrayList<>();
    List<Throwable> todo = new ArrayList<>(List.of(root));
    while (!todo.isEmpty()) {
      Throwable t = todo.remove(todo.size() - 1);
      if (seen.stream().anyMatch(s -> s == t)) {
        continue;
      }
      seen.add(t);
      all.append(t).append('\n').append(t.getMessage()).append('\n');
      for (StackTraceElement frame : t.getStackTrace()) {
        all.append(frame).append('\n');
      }
      if (t.getCause() != null) {
        todo.add(t.getCause());
      }
      todo.addAll(List.of(t.getSuppressed()));
    }
    return all.toString();
  }
}
