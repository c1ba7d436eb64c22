package io.github.redislock.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Listens to a server's {@code MONITOR} stream on a raw socket and counts the commands it shows,
 * split by origin: sent by a client over the network ({@code [0 127.0.0.1:port]}, one per request)
 * or run inside a Lua script ({@code [0 lua]}). Only for counting: MONITOR slows the server.
 */
final class MonitorTap implements AutoCloseable {
  private final Socket socket;
  private final Thread reader;
  private final Map<String, Long> network = new TreeMap<>();
  private final Map<String, Long> scripted = new TreeMap<>();

  private MonitorTap(Socket socket, BufferedReader in) {
    this.socket = socket;
    this.reader = new Thread(() -> pump(in), "bench-monitor-" + socket.getPort());
    reader.setDaemon(true);
    reader.start();
  }

  /** Connects, sends {@code MONITOR} and returns once the server confirmed it. */
  static MonitorTap start(String host, int port) {
    try {
      Socket socket = new Socket(host, port);
      socket.getOutputStream().write("MONITOR\r\n".getBytes(StandardCharsets.US_ASCII));
      socket.getOutputStream().flush();
      BufferedReader in =
          new BufferedReader(
              new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
      String ok = in.readLine();
      if (!"+OK".equals(ok)) {
        socket.close();
        throw new IllegalStateException("MONITOR answered " + ok);
      }
      return new MonitorTap(socket, in);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot MONITOR port " + port, e);
    }
  }

  /** Commands sent over the network so far, by name. */
  synchronized Map<String, Long> network() {
    return new TreeMap<>(network);
  }

  /** Commands run inside scripts so far, by name. */
  synchronized Map<String, Long> scripted() {
    return new TreeMap<>(scripted);
  }

  @Override
  public void close() {
    try {
      socket.close();
      reader.join(1000);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void pump(BufferedReader in) {
    try {
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        count(line);
      }
    } catch (IOException e) {
      // closed
    }
  }

  /** {@code +1700000000.123456 [0 127.0.0.1:5000] "evalsha" "..."}. */
  private synchronized void count(String line) {

    int open = line.indexOf('[');
    int close = line.indexOf(']', open);
    int quote = line.indexOf('"', close);
    if (open < 0 || close < 0 || quote < 0) {
      return;
    }
    int end = line.indexOf('"', quote + 1);
    String command =
        line.substring(quote + 1, end < 0 ? line.length() : end).toLowerCase(Locale.ROOT);
    boolean lua = line.substring(open, close).endsWith(" lua");
    (lua ? scripted : network).merge(command, 1L, Long::sum);
  }
}
