package io.github.redislock.internal.transport;

import io.github.redislock.internal.util.Ticker;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import redis.clients.jedis.exceptions.JedisConnectionException;

/**
 * The calls of the {@link FanOut} transport to one node: at most {@value #MAX_IN_FLIGHT} run at
 * once, each on a thread of the executor, and the others wait in line for a free one, so that a
 * node that stopped answering holds at most that many threads however many callers ask it.
 *
 * <p>A call that waited past its deadline (its caller stopped waiting) fails without running. When
 * every call in flight has run for longer than the node timeout, the node counts as stuck: a new
 * call fails at once, as the pipelined transport skips a node that is down, but a release waits in
 * line (until the late-reply bound), since the node may hold the key. At most {@value #MAX_WAITING}
 * calls wait; a call beyond that fails at once.
 */
final class Lane {
  /** How many calls to one node run at once: Jedis's default pool size. */
  static final int MAX_IN_FLIGHT = 8;

  /** How many calls wait for a thread. */
  static final int MAX_WAITING = 10_000;

  /** One call, what its failure is made of, and when it stops waiting to start. */
  record Call(Runnable run, Consumer<RuntimeException> fail, long expiresNanos) {}

  private final String label;
  private final Executor executor;
  private final Ticker ticker;
  private final long nodeTimeoutNanos;
  private final ArrayDeque<Call> waiting = new ArrayDeque<>(); // guarded by this, and below
  private int running;
  private long lastStartNanos;

  Lane(String label, Executor executor, Ticker ticker, long nodeTimeoutNanos) {
    this.label = label;
    this.executor = executor;
    this.ticker = ticker;
    this.nodeTimeoutNanos = nodeTimeoutNanos;
  }

  /**
   * Runs {@code call} on a thread now, or once one is free.
   *
   * @param call the call
   * @param undo whether it is a release, which waits in line even while the node is stuck
   */
  void submit(Call call, boolean undo) {
    String refused;
    synchronized (this) {
      long now = ticker.read();
      if (running < MAX_IN_FLIGHT) {
        running++;
        lastStartNanos = now;
        refused = null;
      } else if (!undo && now - lastStartNanos > nodeTimeoutNanos) {
        refused =
            "not asked: its "
                + MAX_IN_FLIGHT
                + " calls in flight have run for more than "
                + TimeUnit.NANOSECONDS.toMillis(nodeTimeoutNanos)
                + " ms";
      } else if (waiting.size() >= MAX_WAITING) {
        refused = "not asked: " + MAX_WAITING + " calls wait for it";
      } else {
        waiting.add(call);
        return;
      }
    }
    if (refused != null) {
      call.fail().accept(new JedisConnectionException(label + " " + refused));
      return;
    }
    try {
      executor.execute(() -> work(call));
    } catch (RejectedExecutionException e) {
      synchronized (this) {
        running--;
      }
      call.fail().accept(e);
    }
  }

  /** Runs {@code first}, then the calls waiting, until none waits. */
  private void work(Call first) {
    Call call = first;
    while (call != null) {
      try {
        call.run().run();
      } catch (RuntimeException | Error e) {
        synchronized (this) {
          running--;
        }
        throw e;
      }
      List<Call> expired = new ArrayList<>(0);
      synchronized (this) {
        long now = ticker.read();
        call = waiting.poll();
        while (call != null && now - call.expiresNanos() >= 0) {
          expired.add(call);
          call = waiting.poll();
        }
        if (call == null) {
          running--;
        } else {
          lastStartNanos = now;
        }
      }
      for (Call late : expired) {
        late.fail()
            .accept(
                new JedisConnectionException(
                    label + " not asked: no thread was free before the caller stopped waiting"));
      }
    }
  }
}
