package io.github.redislock.torture;

import io.github.redislock.testing.RedisServer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import redis.clients.jedis.Jedis;

/**
 * A worker's side of the history (see {@link HistoryScripts}): one connection per worker thread
 * ({@link Conn}) for the section records, which the section waits for, and one background recorder
 * for everything else, sent in batches.
 */
final class History implements AutoCloseable {
  private static final Duration TIMEOUT = Duration.ofSeconds(30);
  private static final String END_OF_QUEUE = "\u0000";

  private final int port;
  private final BlockingQueue<String> pending = new LinkedBlockingQueue<>();
  private final Thread recorder;
  private final String startSha;
  private final String writeSha;
  private final String endSha;
  private final String recordSha;

  History(int port) {
    this.port = port;
    try (Jedis j = RedisServer.connect(port, TIMEOUT)) {
      startSha = j.scriptLoad(HistoryScripts.START);
      writeSha = j.scriptLoad(HistoryScripts.WRITE);
      endSha = j.scriptLoad(HistoryScripts.END);
      recordSha = j.scriptLoad(HistoryScripts.RECORD);
    }
    recorder = new Thread(this::drain, "torture-recorder");
    recorder.setDaemon(true);
    recorder.start();
  }

  /** The wall clock in µs: the clock of the history server's {@code TIME} too. */
  static long nowMicros() {
    Instant now = Instant.now();
    return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
  }

  /** Queues a record ({@code TYPE|fields...}), sent in the background. */
  void record(String text) {
    pending.add(text);
  }

  /** A connection for one thread's section records. */
  Conn connect() {
    return new Conn(RedisServer.connect(port, TIMEOUT));
  }

  /** Sends everything queued so far and stops the recorder (bounded). */
  @Override
  public void close() {
    pending.add(END_OF_QUEUE);
    try {
      recorder.join(TimeUnit.SECONDS.toMillis(10));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void drain() {
    Jedis jedis = null;
    List<String> batch = new ArrayList<>();
    boolean done = false;
    while (!done) {
      try {
        String first = pending.take();
        batch.add(first);
        pending.drainTo(batch, 500);
        done = batch.remove(END_OF_QUEUE);
        if (batch.isEmpty()) {
          continue;
        }
        if (jedis == null) {
          jedis = RedisServer.connect(port, TIMEOUT);
        }
        jedis.evalsha(recordSha, List.of(HistoryScripts.SEQ, HistoryScripts.HISTORY), batch);
        batch.clear();
      } catch (InterruptedException e) {
        return;
      } catch (RuntimeException e) {
        System.err.println("torture recorder: " + e + "; retrying");
        if (jedis != null) {
          jedis.close();
          jedis = null;
        }
        batch.clear(); // a batch that may have been written is not written twice
      }
    }
    if (jedis != null) {
      jedis.close();
    }
  }

  /** The result of a section's start. */
  record Start(long seq, String ctr, String raw, boolean accepted) {}

  /** One thread's connection. Not thread-safe. */
  final class Conn implements AutoCloseable {
    private final Jedis jedis;

    private Conn(Jedis jedis) {
      this.jedis = jedis;
    }

    Start start(String holder, String name, char mode, long token, long acqUs, String form) {
      List<?> reply =
          (List<?>)
              jedis.evalsha(
                  startSha,
                  HistoryScripts.startKeys(name),
                  List.of(
                      holder,
                      name,
                      String.valueOf(mode),
                      Long.toString(token),
                      Long.toString(acqUs),
                      form));
      return new Start(
          (Long) reply.get(0),
          (String) reply.get(1),
          (String) reply.get(2),
          ((Long) reply.get(3)) == 1L);
    }

    boolean write(String holder, String name, char mode, long token, boolean validBefore) {
      List<?> reply =
          (List<?>)
              jedis.evalsha(
                  writeSha,
                  HistoryScripts.writeKeys(name),
                  List.of(
                      holder,
                      name,
                      String.valueOf(mode),
                      Long.toString(token),
                      validBefore ? "1" : "0"));
      return ((Long) reply.get(1)) == 1L;
    }

    boolean end(
        String holder, String name, char mode, long token, Start start, boolean validBefore) {
      List<?> reply =
          (List<?>)
              jedis.evalsha(
                  endSha,
                  HistoryScripts.endKeys(name),
                  List.of(
                      holder,
                      name,
                      String.valueOf(mode),
                      Long.toString(token),
                      start.ctr(),
                      start.raw(),
                      validBefore ? "1" : "0"));
      return ((Long) reply.get(1)) == 1L;
    }

    @Override
    public void close() {
      jedis.close();
    }
  }
}
