package io.github.redislock.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.redislock.RedisDistributedLock;
import io.github.redislock.RedisLockException;
import io.github.redislock.RedisLockFactory;
import io.github.redislock.test.ThrowawayRedis;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * TLS through an SSL bundle, on a redis-server with a TLS port whose certificate a CA made here
 * (with the JDK's keytool) signed for 127.0.0.1: the bundle trusts that CA, the JVM does not.
 */
class SslBundleTest {
  private static final String PASSWORD = "changeit";
  private static Path dir;
  private static ThrowawayRedis redis;
  private static int tlsPort;

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(SslAutoConfiguration.class, RedisLockAutoConfiguration.class))
          .withPropertyValues(
              "spring.ssl.bundle.pem.redis.truststore.certificate=file:" + dir.resolve("ca.crt"),
              "redis-lock.command-timeout=5s");

  @BeforeAll
  static void startTlsServer() throws Exception {
    dir = Files.createTempDirectory("starter-tls-");
    Path store = dir.resolve("all.p12");
    keytool(store, "ca", "CN=starter test CA", null, "bc:c");
    keytool(store, "server", "CN=localhost", "ca", "san=ip:127.0.0.1,dns:localhost");
    KeyStore keys = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(store)) {
      keys.load(in, PASSWORD.toCharArray());
    }
    writePem(dir.resolve("ca.crt"), "CERTIFICATE", keys.getCertificate("ca").getEncoded());
    writePem(
        dir.resolve("server.crt"),
        "CERTIFICATE",
        keys.getCertificateChain("server")[0].getEncoded());
    writePem(
        dir.resolve("server.key"),
        "PRIVATE KEY",
        ((PrivateKey) keys.getKey("server", PASSWORD.toCharArray())).getEncoded());
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      tlsPort = socket.getLocalPort();
    }
    redis =
        ThrowawayRedis.start(
            "--tls-port",
            Integer.toString(tlsPort),
            "--tls-cert-file",
            dir.resolve("server.crt").toString(),
            "--tls-key-file",
            dir.resolve("server.key").toString(),
            "--tls-ca-cert-file",
            dir.resolve("ca.crt").toString(),
            "--tls-auth-clients",
            "no");
  }

  @AfterAll
  static void stop() throws IOException {
    if (redis != null) {
      redis.close();
    }
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(file);
      }
    }
  }

  @Test
  void springDataRedisSslBundleIsTrusted() {
    runner
        .withPropertyValues(
            "spring.data.redis.host=127.0.0.1",
            "spring.data.redis.port=" + tlsPort,
            "spring.data.redis.ssl.bundle=redis")
        .run(context -> assertLocks(context.getBean(RedisLockFactory.class)));
  }

  @Test
  void redisLockUriWithItsOwnSslBundle() {
    runner
        .withPropertyValues(
            "redis-lock.uri=rediss://127.0.0.1:" + tlsPort, "redis-lock.ssl-bundle=redis")
        .run(context -> assertLocks(context.getBean(RedisLockFactory.class)));
  }

  @Test
  void sslWithoutABundleTrustsOnlyTheJvmsDefaultStore() {
    runner
        .withPropertyValues(
            "spring.data.redis.host=127.0.0.1",
            "spring.data.redis.port=" + tlsPort,
            "spring.data.redis.ssl.enabled=true")
        .run(
            context -> {
              RedisLockFactory factory = context.getBean(RedisLockFactory.class);
              assertThatThrownBy(() -> factory.getLock("tls").tryLock())
                  .isInstanceOf(RedisLockException.class);
            });
  }

  private static void assertLocks(RedisLockFactory factory) {
    RedisDistributedLock lock = factory.getLock("tls");
    assertThat(lock.tryLock()).isTrue();
    lock.unlock();
  }

  private static void keytool(Path store, String alias, String dname, String signer, String ext)
      throws IOException, InterruptedException {
    List<String> command =
        new ArrayList<>(
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair",
                "-alias",
                alias,
                "-keyalg",
                "EC",
                "-groupname",
                "secp256r1",
                "-dname",
                dname,
                "-validity",
                "2",
                "-keystore",
                store.toString(),
                "-storetype",
                "PKCS12",
                "-storepass",
                PASSWORD,
                "-keypass",
                PASSWORD,
                "-ext",
                ext));
    if (signer != null) {
      command.addAll(List.of("-signer", signer, "-signerkeypass", PASSWORD));
    }
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output;
    try (InputStream in = process.getInputStream()) {
      output = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
      process.destroyForcibly();
      throw new IllegalStateException(String.join(" ", command) + " failed:\n" + output);
    }
  }

  private static void writePem(Path file, String type, byte[] der) throws IOException {
    String body =
        Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der);
    Files.writeString(
        file, "-----BEGIN " + type + "-----\n" + body + "\n-----END " + type + "-----\n");
  }
}
