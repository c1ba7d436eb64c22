package io.github.redislock.torture;

import io.github.redislock.LockLostEvent;
import io.github.redislock.RedisLockFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import redis.clients.jedis.UnifiedJedis;

/**
 * A worker's factories, one generation after another: the nemesis's {@code factory-close} fault
 * closes the current one while the worker's threads use it (some of them waiting in {@code lock()},
 * {@code tryLock(t)} or an {@code await}), and a new one takes its place. A thread uses one
 * generation for a whole section; what it does after its generation closed is judged against {@code
 * close()}'s contract ({@link #closedUnder}, {@link #window}).
 */
final class Factories {

  /** One factory and its number, from 1. */
  record Generation(RedisLockFactory locks, int number) {}

  /**
   * When a generation's {@code close()} ran ({@code System.nanoTime()}): {@code endNanos} is {@link
   * Long#MAX_VALUE} while it runs.
   */
  record Window(long startNanos, long endNanos) {}

  private final String spec;
  private final long leaseMillis;
  private final long commandTimeoutMillis;
  private final Consumer<LockLostEvent> onLockLost;

  /** Clients the worker made for a {@code redlock-caching} spec: every generation shares them. */
  private final List<UnifiedJedis> owned = new ArrayList<>();

  private final Map<Integer, Window> windows = new ConcurrentHashMap<>();
  private volatile Generation current;

  /** The highest generation whose {@code close()} began (0: none). */
  private volatile int closedUpTo;

  Factories(
      String spec, long leaseMillis, long commandTimeoutMillis, Consumer<LockLostEvent> onLost) {
    this.spec = spec;
    this.leaseMillis = leaseMillis;
    this.commandTimeoutMillis = commandTimeoutMillis;
    this.onLockLost = onLost;
    this.current = new Generation(build(), 1);
  }

  private RedisLockFactory build() {
    return Worker.factory(spec, leaseMillis, commandTimeoutMillis, owned)
        .onLockLost(onLockLost)
        .build();
  }

  /** The generation in use now. */
  Generation current() {
    return current;
  }

  /**
   * Closes the current factory under the threads that use it, and puts a new one in its place.
   * Called by one thread at a time (the worker's command reader).
   *
   * @return the closed generation's close window
   */
  Window closeAndReopen() {
    Generation old = current;
    long start = System.nanoTime();
    windows.put(old.number(), new Window(start, Long.MAX_VALUE));
    closedUpTo = old.number();
    old.locks().close();
    Window w = new Window(start, System.nanoTime());
    windows.put(old.number(), w);
    current = new Generation(rebuild(), old.number() + 1);
    return w;
  }

  /** A new factory; building one may fail while the servers are unreachable: tries a few times. */
  private RedisLockFactory rebuild() {
    RuntimeException failure = null;
    for (int attempt = 0; attempt < 10; attempt++) {
      try {
        return build();
      } catch (RuntimeException e) {
        failure = e;
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(500));
      }
    }
    throw failure;
  }

  /**
   * Whether {@code e} is the {@link IllegalStateException} a closed factory throws, and {@code g}
   * is closed (or closing): then any call of the generation may throw it.
   */
  boolean closedUnder(Generation g, Throwable e) {
    return e instanceof IllegalStateException && g.number() <= closedUpTo;
  }

  /** When {@code g}'s {@code close()} ran, or null while it is open. */
  Window window(Generation g) {
    return windows.get(g.number());
  }

  /** Closes the current factory (at the end; the worker exits) and the clients it made. */
  void closeAll() {
    current.locks().close();
    owned.forEach(UnifiedJedis::close);
  }
}
