package io.github.redislock.testing;

import io.github.redislock.test.RedisBinary;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;

/**
 * A throwaway certificate authority and certificates made at run time for TLS tests, with the JDK's
 * own {@code keytool} (every Java 17 machine has it; no {@code openssl} needed): a CA, a server
 * certificate it signed for {@code 127.0.0.1} and {@code localhost}, one it signed for another host
 * name only, a client certificate it signed (for servers that authenticate clients), and a second,
 * unrelated CA. Keys are EC P-256; certificates are valid for two days.
 *
 * <p>Made once per JVM ({@link #get()}, about 4 s) in a temp directory deleted on exit. The server
 * side is PEM files for {@code redis-server} ({@link #serverArgs}); the client side is {@link
 * SSLContext}s.
 */
public final class TlsMaterial {
  private static final String PASSWORD = "changeit";
  private static final String CA = "ca";
  private static final String OTHER_CA = "otherca";
  private static final String SERVER = "server";
  private static final String WRONG_NAME = "wrongname";
  private static final String CLIENT = "client";

  private static volatile TlsMaterial instance;
  private static volatile String serverSupport;

  private final Path dir;
  private final KeyStore store;

  private TlsMaterial(Path dir, KeyStore store) {
    this.dir = dir;
    this.store = store;
  }

  /**
   * The material of this JVM, made on first use.
   *
   * @return the material
   * @throws IllegalStateException if {@code keytool} fails
   */
  public static TlsMaterial get() {
    TlsMaterial m = instance;
    if (m == null) {
      synchronized (TlsMaterial.class) {
        m = instance;
        if (m == null) {
          m = make();
          instance = m;
        }
      }
    }
    return m;
  }

  /**
   * Whether the {@code redis-server} the tests run ({@link RedisBinary}) serves TLS: one is started
   * with a TLS port, once per JVM, and must answer {@code PING} over TLS.
   *
   * @return null if it does, else why not (its log)
   */
  public static synchronized String serverSupport() {
    if (serverSupport == null) {
      serverSupport = probeServer();
    }
    return serverSupport.isEmpty() ? null : serverSupport;
  }

  @SuppressWarnings("deprecation") // ssl(true): the plain form of TLS for a probe
  private static String probeServer() {
    TlsMaterial tls = get();
    try (RedisServer server = RedisServer.startTls(tls, false, false)) {
      DefaultJedisClientConfig config =
          RedisServer.resp2(
                  DefaultJedisClientConfig.builder()
                      .ssl(true)
                      .sslSocketFactory(tls.trustingContext().getSocketFactory()))
              .build();
      try (Jedis jedis = new Jedis(new HostAndPort(server.host(), server.tlsPort()), config)) {
        return "PONG".equals(jedis.ping()) ? "" : "no PONG over TLS";
      } catch (RuntimeException e) {
        return RedisBinary.describe() + " does not answer over TLS: " + e + "\n" + server.log();
      }
    } catch (IllegalStateException e) {
      return RedisBinary.describe() + " does not start with a TLS port: " + e.getMessage();
    }
  }

  /**
   * The {@code redis-server} arguments for a TLS port presenting the server certificate, trusting
   * this CA for client certificates.
   *
   * @param tlsPort the TLS port
   * @param authClients whether the server requires client certificates ({@code tls-auth-clients})
   * @param wrongName whether to present the certificate for another host name instead
   * @return the arguments
   */
  public List<String> serverArgs(int tlsPort, boolean authClients, boolean wrongName) {
    String name = wrongName ? WRONG_NAME : SERVER;
    return List.of(
        "--tls-port",
        Integer.toString(tlsPort),
        "--tls-cert-file",
        dir.resolve(name + ".crt").toString(),
        "--tls-key-file",
        dir.resolve(name + ".key").toString(),
        "--tls-ca-cert-file",
        dir.resolve(CA + ".crt").toString(),
        "--tls-auth-clients",
        authClients ? "yes" : "no");
  }

  /**
   * The same as configuration-file lines (for a Sentinel, whose file it rewrites), with {@code
   * tls-replication yes} so that it reaches the data nodes over TLS.
   *
   * @param tlsPort the TLS port
   * @return the lines, each ending in a newline
   */
  public String serverConfig(int tlsPort) {
    List<String> args = serverArgs(tlsPort, false, false);
    StringBuilder config = new StringBuilder();
    for (int i = 0; i < args.size(); i += 2) {
      config.append(args.get(i).substring(2)).append(' ').append(args.get(i + 1)).append('\n');
    }
    return config.append("tls-replication yes\n").toString();
  }

  /**
   * A client context that trusts this CA and presents no certificate.
   *
   * @return the context
   */
  public SSLContext trustingContext() {
    return context(CA, null);
  }

  /**
   * A client context that trusts this CA and presents the client certificate.
   *
   * @return the context
   */
  public SSLContext clientContext() {
    return context(CA, CLIENT);
  }

  /**
   * A client context that trusts only an unrelated CA: every server certificate here fails it.
   *
   * @return the context
   */
  public SSLContext otherCaContext() {
    return context(OTHER_CA, null);
  }

  /**
   * The CA certificate as a PEM file.
   *
   * @return the file
   */
  public Path caCertificate() {
    return dir.resolve(CA + ".crt");
  }

  private SSLContext context(String trusted, String key) {
    try {
      KeyStore trust = KeyStore.getInstance("PKCS12");
      trust.load(null, null);
      trust.setCertificateEntry(trusted, store.getCertificate(trusted));
      TrustManagerFactory tmf =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(trust);
      KeyManagerFactory kmf = null;
      if (key != null) {
        KeyStore keys = KeyStore.getInstance("PKCS12");
        keys.load(null, null);
        keys.setKeyEntry(
            key,
            store.getKey(key, PASSWORD.toCharArray()),
            PASSWORD.toCharArray(),
            store.getCertificateChain(key));
        kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(keys, PASSWORD.toCharArray());
      }
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(kmf == null ? null : kmf.getKeyManagers(), tmf.getTrustManagers(), null);
      return context;
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalStateException("cannot build an SSLContext", e);
    }
  }

  private static TlsMaterial make() {
    Path dir;
    try {
      dir = Files.createTempDirectory("redis-lock-tls-");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Runtime.getRuntime()
        .addShutdownHook(new Thread(() -> ProcessSupport.deleteTreeQuietly(dir), "tls-cleanup"));
    Path store = dir.resolve("all.p12");
    keytool(store, CA, "CN=redis-lock test CA", null, "bc:c");
    keytool(store, OTHER_CA, "CN=redis-lock other CA", null, "bc:c");
    keytool(store, SERVER, "CN=localhost", CA, "san=ip:127.0.0.1,dns:localhost");
    keytool(store, WRONG_NAME, "CN=redis.example.com", CA, "san=dns:redis.example.com");
    keytool(store, CLIENT, "CN=redis-lock test client", CA, null);
    try (InputStream in = Files.newInputStream(store)) {
      KeyStore keys = KeyStore.getInstance("PKCS12");
      keys.load(in, PASSWORD.toCharArray());
      writePem(dir.resolve(CA + ".crt"), "CERTIFICATE", keys.getCertificate(CA).getEncoded());
      for (String name : List.of(SERVER, WRONG_NAME)) {
        PrivateKey key = (PrivateKey) keys.getKey(name, PASSWORD.toCharArray());
        writePem(dir.resolve(name + ".key"), "PRIVATE KEY", key.getEncoded());
        Certificate[] chain = keys.getCertificateChain(name);
        writePem(dir.resolve(name + ".crt"), "CERTIFICATE", chain[0].getEncoded());
      }
      return new TlsMaterial(dir, keys);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("cannot read the key store keytool made", e);
    }
  }

  /** One {@code keytool -genkeypair}, signed by {@code signer} (self-signed when null). */
  private static void keytool(Path store, String alias, String dname, String signer, String ext) {
    Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
    List<String> command =
        new ArrayList<>(
            List.of(
                keytool.toString(),
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
                PASSWORD));
    if (signer != null) {
      command.addAll(List.of("-signer", signer, "-signerkeypass", PASSWORD));
    }
    if (ext != null) {
      command.addAll(List.of("-ext", ext));
    }
    Process p;
    try {
      p = new ProcessBuilder(command).redirectErrorStream(true).start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run " + keytool, e);
    }
    String output;
    try (InputStream in = p.getInputStream()) {
      output = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    if (!ProcessSupport.waitFor(p, Timing.scaled(Duration.ofSeconds(30))) || p.exitValue() != 0) {
      p.destroyForcibly();
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
