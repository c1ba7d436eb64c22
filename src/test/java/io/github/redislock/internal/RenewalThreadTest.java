package io.github.redislock.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.redislock.LockLostEvent;
import io.github.redislock.internal.engine.LockEngine;
import io.github.redislock.internal.util.Ticker;
import io.github.redislock.testing.RedisInvariants;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The renewal thread of a factory whose holds come and go between its ticks: it stays, rather than
 * ending and being started again by the next acquisition, in the calling thread. On the system
 * clock, since the thread parks for real between ticks; nothing is asserted on time.
 */
class RenewalThreadTest {
  /** A tick every 10 ms; a renewer that finds nothing to do 3 ticks in a row may end. */
  private static final Duration LEASE = Duration.ofMillis(60);

  private final FakeBackend backend = new FakeBackend(Ticker.SYSTEM, LEASE);
  private final List<LockLostEvent> lost = new CopyOnWriteArrayList<>();
  private final LockEngine engine =
      new LockEngine(
          backend,
          List.of(),
          new Settings("renewal-test:", LEASE, Duration.ofSeconds(1), lost::add, Ticker.SYSTEM));

  @AfterEach
  void close() {
    engine.close();
    RedisInvariants.assertNoThreads("redis-lock-");
  }

  /** The factory's renewal threads alive now (its per-node renewal lanes left out). */
  private static Set<Thread> renewalThreads() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.getName().startsWith("redis-lock-renewal-"))
        .collect(Collectors.toSet());
  }

  @Test
  void aLoopOfShortHoldsKeepsOneRenewalThread() {
    Mutexes locks = engine.exclusive();
    LockName name = locks.lockName("a");
    Set<Thread> seen = new HashSet<>();
    // Thirty ticks' worth of holds that each last a moment: nearly every tick finds none held.
    long end = Ticker.SYSTEM.read() + TimeUnit.MILLISECONDS.toNanos(300);
    while (Ticker.SYSTEM.read() - end < 0) {
      locks.lock(name);
      locks.unlock(name);
      seen.addAll(renewalThreads());
    }
    assertThat(seen)
        .as("renewal threads that ran during the loop (each new one was started by a lock())")
        .hasSize(1);
    assertThat(lost).isEmpty();
  }
}
