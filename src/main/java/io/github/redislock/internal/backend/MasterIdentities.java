package io.github.redislock.internal.backend;

import io.github.redislock.RedisLockException;
import io.github.redislock.internal.transport.Node;
import io.github.redislock.internal.util.Ticker;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which Redis server each Redlock master is, so that one server does not count twice towards a
 * majority: reached under two host names ({@code localhost} and {@code 127.0.0.1}), or as two
 * databases of itself, it would look like two masters. A server is known by its {@code run_id}
 * ({@code INFO server}), drawn at random by each server process.
 *
 * <p>The factory asks every master when it is built, and refuses duplicates among those that answer
 * ({@link #learn}). A master that does not answer then is asked again, in the background and at
 * most once a second, when operations {@linkplain #check check} before they run; once it turns out
 * to be a duplicate, every such operation fails. A master whose server refuses {@code INFO} (an
 * ACL, a renamed command) cannot be told apart, and is trusted, with a warning. Thread-safe.
 */
final class MasterIdentities {
  private static final Logger log = LoggerFactory.getLogger(MasterIdentities.class);
  private static final long ASK_AGAIN_NANOS = TimeUnit.SECONDS.toNanos(1);

  /** The identity of a master whose server will not tell it. */
  private static final String UNKNOWABLE = "";

  private final List<Node> nodes;
  private final Executor executor;
  private final Ticker ticker;

  /** Per master, its {@code run_id} once known, {@link #UNKNOWABLE}, or {@code null}. */
  private final String[] identities;

  /** Per master, whether a question to it is in flight. */
  private final AtomicBoolean[] asking;

  private final AtomicLong lastAsked;

  /** Whether every master is known, and no two are one server: nothing left to check. */
  private volatile boolean complete;

  /** Why the masters are refused, once two turned out to be one server. */
  private volatile IllegalArgumentException duplicate;

  /**
   * Whether {@link #learn} returned: a duplicate found later is logged, not thrown to a builder.
   */
  private volatile boolean built;

  /**
   * Identities of {@code nodes}, asked on {@code executor}'s threads.
   *
   * @param nodes the masters
   * @param executor runs one question per master; it must not queue them behind each other
   * @param ticker the clock that spaces questions
   */
  MasterIdentities(List<Node> nodes, Executor executor, Ticker ticker) {
    this.nodes = nodes;
    this.executor = executor;
    this.ticker = ticker;
    this.identities = new String[nodes.size()];
    this.asking = new AtomicBoolean[nodes.size()];
    for (int i = 0; i < asking.length; i++) {
      asking[i] = new AtomicBoolean();
    }
    this.lastAsked = new AtomicLong(ticker.read() - ASK_AGAIN_NANOS);
  }

  /**
   * Asks every master which server it is, all at once, and waits until each answered or the timeout
   * passed. Masters that answer later are checked when they do.
   *
   * @param timeoutNanos how long to wait for the masters
   * @throws IllegalArgumentException if two masters that answered are one server
   */
  void learn(long timeoutNanos) {
    lastAsked.set(ticker.read());
    CountDownLatch answered = askUnknown();
    try {
      if (!answered.await(timeoutNanos, TimeUnit.NANOSECONDS)) {
        log.debug("Redlock: not every master said which server it is; asking again later");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    built = true;
    IllegalArgumentException refused = duplicate;
    if (refused != null) {
      throw new IllegalArgumentException(refused.getMessage());
    }
  }

  /**
   * Before an operation that counts masters: fails once two masters turned out to be one server;
   * while some master's identity is unknown, asks it in the background, at most once a second.
   *
   * @throws RedisLockException if two masters are one server (permanent: waiting cannot cure it)
   */
  void check() {
    if (complete) {
      return;
    }
    IllegalArgumentException refused = duplicate;
    if (refused != null) {
      throw new RedisLockException(refused.getMessage(), refused);
    }
    long last = lastAsked.get();
    long now = ticker.read();
    if (now - last >= ASK_AGAIN_NANOS && lastAsked.compareAndSet(last, now)) {
      askUnknown();
    }
  }

  /** Asks each master not known yet, and not being asked; the latch counts their answers down. */
  private CountDownLatch askUnknown() {
    List<Integer> unknown = new ArrayList<>();
    for (int i = 0; i < nodes.size(); i++) {
      if (identity(i) == null && asking[i].compareAndSet(false, true)) {
        unknown.add(i);
      }
    }
    CountDownLatch answered = new CountDownLatch(unknown.size());
    for (int index : unknown) {
      Runnable question =
          () -> {
            try {
              record(index, ask(nodes.get(index)));
            } finally {
              asking[index].set(false);
              answered.countDown();
            }
          };
      try {
        executor.execute(question);
      } catch (RejectedExecutionException e) {
        asking[index].set(false);
        answered.countDown();
      }
    }
    return answered;
  }

  /** The master's {@code run_id}, {@link #UNKNOWABLE}, or {@code null} when it did not answer. */
  private static String ask(Node node) {
    String info;
    try {
      info = node.client().info("server");
    } catch (RuntimeException e) {
      if (Failures.isTransient(e)) {
        log.debug("Redlock master {} did not say which server it is", node.label(), e);
        return null;
      }
      log.warn(
          "Redlock master {} refuses INFO ({}): if another master is the same server, it counts"
              + " twice towards a majority",
          node.label(),
          e.getMessage());
      return UNKNOWABLE;
    }
    String runId =
        info.lines()
            .filter(line -> line.startsWith("run_id:"))
            .map(line -> line.substring("run_id:".length()).trim())
            .findFirst()
            .orElse(null);
    if (runId != null) {
      return runId;
    }
    log.warn("Redlock master {} does not tell its run_id in INFO server", node.label());
    return UNKNOWABLE;
  }

  private synchronized String identity(int index) {
    return identities[index];
  }

  /** Records what master {@code index} said, and whether that makes two masters one server. */
  private synchronized void record(int index, String identity) {
    if (identity == null || identities[index] != null) {
      return;
    }
    identities[index] = identity;
    boolean known = true;
    for (int other = 0; other < identities.length; other++) {
      known &= identities[other] != null;
      if (other != index && !identity.equals(UNKNOWABLE) && identity.equals(identities[other])) {
        refuse(Math.min(index, other), Math.max(index, other), identity);
      }
    }
    complete = known && duplicate == null;
  }

  private void refuse(int first, int second, String runId) {
    if (duplicate != null) {
      return;
    }
    duplicate =
        new IllegalArgumentException(
            "Redlock masters '"
                + nodes.get(first).label()
                + "' and '"
                + nodes.get(second).label()
                + "' are the same Redis server (run_id "
                + runId
                + "): it would count twice towards a majority; give each server once");
    if (built) {
      log.error("{}; every lock operation fails from now on", duplicate.getMessage());
    }
  }
}
