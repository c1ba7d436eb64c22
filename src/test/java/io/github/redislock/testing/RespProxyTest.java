package io.github.redislock.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisConnectionException;

/**
 * The hostile-connection kit itself: {@link RespProxy} forwards RESP unchanged, matches replies to
 * commands (pipelined, RESP3 push frames, subscriptions, replication) and does to the command or
 * reply a {@link Fault} aims at exactly what the fault says. Checked on raw sockets against a real
 * {@code redis-server}.
 */
@IntegrationTest
class RespProxyTest {
  private static final Duration SHORT = Duration.ofMillis(300);
  private static RedisServer redis;
  private RespProxy proxy;
  private final List<Socket> sockets = new ArrayList<>();

  @BeforeAll
  static void startServer() {
    redis = RedisServer.start();
  }

  @AfterAll
  static void stopServer() {
    redis.close();
  }

  @BeforeEach
  void startProxy() {
    proxy = RespProxy.start("test", redis.port());
  }

  @AfterEach
  void cleanUp() throws IOException {
    for (Socket s : sockets) {
      s.close();
    }
    proxy.close();
    RedisInvariants.assertNoThreads(RespProxy.THREAD_NAME_PREFIX + proxy.port());
    redis.flushAll();
  }

  /** A raw client of the proxy, reading frames with the kit's own reader. */
  private final class Raw {
    final Socket socket;
    final OutputStream out;
    final RespReader in;

    Raw() throws IOException {
      socket = new Socket("127.0.0.1", proxy.port());
      socket.setSoTimeout((int) Timing.scaled(Duration.ofSeconds(5)).toMillis());
      sockets.add(socket);
      out = socket.getOutputStream();
      in = new RespReader(new BufferedInputStream(socket.getInputStream()));
    }

    /** Sends commands, pipelined, in one write. */
    void send(String... commands) throws IOException {
      StringBuilder b = new StringBuilder();
      for (String command : commands) {
        String[] words = command.split(" ");
        b.append('*').append(words.length).append("\r\n");
        for (String w : words) {
          b.append('$').append(w.getBytes(StandardCharsets.UTF_8).length).append("\r\n");
          b.append(w).append("\r\n");
        }
      }
      out.write(b.toString().getBytes(StandardCharsets.UTF_8));
      out.flush();
    }

    String read() throws IOException {
      RespReader.Frame f = in.readFrame();
      return f == null ? null : new String(f.bytes(), StandardCharsets.UTF_8);
    }

    void timeout(Duration d) throws IOException {
      socket.setSoTimeout((int) d.toMillis());
    }
  }

  private static boolean exists(String key) {
    try (Jedis j = redis.jedis()) {
      return j.exists(key);
    }
  }

  @Test
  void forwardsPipelinedCommandsAndRepliesUnchangedAndNotesNameAndProtocol() throws IOException {
    Raw c = new Raw();
    c.send("HELLO 3 SETNAME kit-test", "SET k v", "GET k", "HGETALL none", "DEL k");
    assertThat(c.read()).startsWith("%"); // HELLO 3's map
    assertThat(c.read()).isEqualTo("+OK\r\n");
    assertThat(c.read()).isEqualTo("$1\r\nv\r\n");
    assertThat(c.read()).isEqualTo("%0\r\n"); // a RESP3 map
    assertThat(c.read()).isEqualTo(":1\r\n");
    assertThat(proxy.connections())
        .singleElement()
        .satisfies(
            info -> {
              assertThat(info.clientName()).isEqualTo("kit-test");
              assertThat(info.resp3()).isTrue();
            });
    try (Jedis j = redis.jedis()) {
      assertThat(j.clientList()).contains("name=kit-test");
      assertThat(j.clientList())
          .contains("addr=127.0.0.1:" + proxy.serverSidePorts().iterator().next());
    }
  }

  @Test
  void delaysTheChosenReplyAndThoseBehindIt() throws IOException {
    Fault fault = Fault.onCommand("GET").after(1).delayReply(Timing.scaled(Duration.ofSeconds(1)));
    proxy.inject(fault);
    Raw c = new Raw();
    c.send("GET a", "GET b", "PING");
    assertThat(c.read()).isEqualTo("$-1\r\n"); // the first GET passes
    c.timeout(SHORT);
    assertThatThrownBy(c::read).isInstanceOf(SocketTimeoutException.class);
    c.timeout(Timing.scaled(Duration.ofSeconds(5)));
    assertThat(c.read()).isEqualTo("$-1\r\n"); // the second, late
    assertThat(c.read()).isEqualTo("+PONG\r\n");
    assertThat(fault.hits()).singleElement().asString().contains("GET b", "delayed");
    await().until(proxy::isQuiet);
  }

  @Test
  void delaysTheChosenCommandSoThatItRunsLate() throws IOException {
    proxy.inject(Fault.onCommand("SET").delayCommand(Timing.scaled(Duration.ofSeconds(1))));
    Raw c = new Raw();
    c.send("SET late yes");
    await().until(() -> !proxy.isQuiet()); // the proxy holds the command back
    assertThat(exists("late")).isFalse();
    assertThat(c.read()).isEqualTo("+OK\r\n");
    assertThat(exists("late")).isTrue();
    assertThat(proxy.isQuiet()).isTrue();
  }

  @Test
  void splitsTheChosenReplyIntoPiecesThatAJedisClientStillReads() {
    Fault fault = Fault.onCommand("GET").splitReply(1);
    proxy.inject(fault);
    String value = "x".repeat(200);
    try (Jedis j = RedisServer.connect(proxy.port(), Duration.ofSeconds(5))) {
      j.set("k", value);
      assertThat(j.get("k")).isEqualTo(value);
    }
    assertThat(fault.hitCount()).isEqualTo(1);
  }

  @Test
  void pushesAFrameBeforeOrAfterTheReplyOnRespThreeOnly() throws IOException {
    byte[] push = Fault.invalidation("orders");
    Fault before = Fault.onCommand("PING").pushBeforeReply(push);
    proxy.inject(before);
    Raw resp2 = new Raw();
    resp2.send("PING");
    assertThat(resp2.read()).isEqualTo("+PONG\r\n");
    assertThat(before.hitCount()).isZero();

    Raw resp3 = new Raw();
    resp3.send("HELLO 3");
    resp3.read();
    resp3.send("PING");
    assertThat(resp3.read()).isEqualTo(new String(push, StandardCharsets.UTF_8));
    assertThat(resp3.read()).isEqualTo("+PONG\r\n");

    proxy.remove(before);
    proxy.inject(Fault.onCommand("PING").pushAfterReply(push));
    resp3.send("PING", "ECHO x");
    assertThat(resp3.read()).isEqualTo("+PONG\r\n");
    assertThat(resp3.read())
        .isEqualTo(">2\r\n$10\r\ninvalidate\r\n*1\r\n$6\r\norders\r\n")
        .isEqualTo(new String(push, StandardCharsets.UTF_8));
    assertThat(resp3.read()).isEqualTo("$1\r\nx\r\n");
  }

  @Test
  void losesAReplyAfterTheCommandRan() throws IOException {
    proxy.inject(Fault.onCommand("SET").loseReply());
    Raw c = new Raw();
    c.send("SET ran yes");
    assertThatThrownBy(c::read).isInstanceOf(IOException.class);
    assertThat(exists("ran")).isTrue();
  }

  @Test
  void resetsBeforeTheCommandSoThatItNeverRuns() throws IOException {
    proxy.inject(Fault.onCommand("SET").resetBeforeCommand());
    Raw c = new Raw();
    c.send("SET ran yes");
    assertThatThrownBy(c::read).isInstanceOf(IOException.class);
    assertThat(exists("ran")).isFalse();
  }

  @Test
  void blackHolesAfterTheCommandRan() throws IOException {
    proxy.inject(Fault.onCommand("SET").blackHoleAfterCommand());
    Raw c = new Raw();
    c.send("SET ran yes");
    c.timeout(SHORT);
    assertThatThrownBy(c::read).isInstanceOf(SocketTimeoutException.class);
    assertThat(exists("ran")).isTrue();
    c.send("DEL ran");
    assertThatThrownBy(c::read).isInstanceOf(SocketTimeoutException.class);
    assertThat(exists("ran")).isTrue(); // dropped
    assertThat(proxy.connections()).singleElement().matches(RespProxy.ConnectionInfo::blackHoled);
    await("the server forgets the black-holed client")
        .atMost(Timing.awaitAtMost())
        .until(() -> !clientList().contains("cmd=set"));
    c.socket.close();
    await().atMost(Timing.awaitAtMost()).until(() -> proxy.connections().isEmpty());
  }

  @Test
  void blackHolesBeforeTheCommandSoThatItNeverRuns() throws IOException {
    proxy.inject(Fault.onCommand("SET").blackHoleBeforeCommand());
    Raw c = new Raw();
    c.send("SET ran yes");
    c.timeout(SHORT);
    assertThatThrownBy(c::read).isInstanceOf(SocketTimeoutException.class);
    assertThat(exists("ran")).isFalse();
  }

  @Test
  void countsMatchesOverAllConnectionsOrPerConnection() throws IOException {
    Fault overall =
        Fault.onCommand("ECHO").after(2).times(2).pushBeforeReply(Fault.push("kit", "x"));
    proxy.inject(overall);
    Raw a = new Raw();
    Raw b = new Raw();
    for (Raw r : List.of(a, b)) {
      r.send("HELLO 3");
      r.read();
    }
    List<Raw> turns = List.of(a, b, a, b, a);
    for (int i = 0; i < turns.size(); i++) {
      Raw r = turns.get(i);
      r.send("ECHO " + i);
      if (i == 2 || i == 3) {
        assertThat(r.read()).startsWith(">2"); // the third and fourth ECHO, whatever connection
      }
      assertThat(r.read()).isEqualTo("$1\r\n" + i + "\r\n");
    }
    assertThat(overall.hitCount()).isEqualTo(2);

    proxy.remove(overall);
    Fault each = Fault.onCommand("ECHO").after(1).perConnection().pushBeforeReply(Fault.push("y"));
    proxy.inject(each);
    for (Raw r : List.of(a, b)) {
      r.send("ECHO 1", "ECHO 2", "ECHO 3");
      assertThat(r.read()).isEqualTo("$1\r\n1\r\n");
      assertThat(r.read()).startsWith(">1");
      assertThat(r.read()).isEqualTo("$1\r\n2\r\n");
      assertThat(r.read()).isEqualTo("$1\r\n3\r\n");
    }
    assertThat(each.hitCount()).isEqualTo(2);
  }

  @Test
  void aimsAtTheLibrarysScriptsByName() throws IOException {
    String source;
    try (InputStream in =
        getClass().getResourceAsStream("/io/github/redislock/internal/backend/release.lua")) {
      source = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    Fault fault = Fault.onScript("release.lua").loseReply();
    proxy.inject(fault);
    try (Jedis j = RedisServer.connect(proxy.port(), Duration.ofSeconds(5))) {
      assertThat(j.scriptLoad(source)).isEqualTo(LibraryScripts.sha("release.lua"));
      j.set("lock", "me");
      assertThatThrownBy(
              () ->
                  j.evalsha(
                      LibraryScripts.sha("release.lua"),
                      List.of("lock"),
                      List.of("me", "{lock}:lock-wake", "publish")))
          .isInstanceOf(JedisConnectionException.class);
    }
    assertThat(exists("lock")).isFalse(); // it ran
    assertThat(fault.hits()).singleElement().asString().contains("EVALSHA release.lua lock");
  }

  @Test
  void matchesRepliesPastSubscriptionPushesOnRespThree() throws IOException {
    Fault fault = Fault.onCommand("PING").pushBeforeReply(Fault.push("marker"));
    proxy.inject(fault);
    Raw c = new Raw();
    c.send("HELLO 3");
    c.read();
    c.send("SUBSCRIBE ch1 ch2", "PING");
    assertThat(c.read()).contains("subscribe", "ch1");
    assertThat(c.read()).contains("subscribe", "ch2");
    assertThat(c.read()).contains("marker");
    assertThat(c.read()).isEqualTo("+PONG\r\n");
  }

  @Test
  void passesReplicationThroughAsBytes() {
    try (Jedis master = redis.jedis()) {
      master.configSet("repl-diskless-sync-delay", "0");
    }
    try (RedisServer replica =
        RedisServer.start("--replicaof", "127.0.0.1", Integer.toString(proxy.port()))) {
      try (Jedis master = redis.jedis()) {
        master.set("replicated", "yes");
      }
      await("the key reaches the replica through the proxy")
          .atMost(Timing.awaitAtMost())
          .until(
              () -> {
                try (Jedis j = replica.jedis()) {
                  return "yes".equals(j.get("replicated"));
                }
              });
      assertThat(proxy.connections()).anyMatch(RespProxy.ConnectionInfo::replication);
    }
  }

  private static String clientList() {
    try (Jedis j = redis.jedis()) {
      return j.clientList();
    }
  }
}
