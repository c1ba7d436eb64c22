package io.github.redislock.faults;

import io.github.redislock.testing.IntegrationTest;
import io.github.redislock.testing.ProxiedDeployment;
import org.junit.jupiter.api.Test;

/**
 * The hostile-connection tests of one deployment whose every connection goes through a {@link
 * io.github.redislock.testing.RespProxy}: for each kind of lock (plain, fair, read-write, a plain
 * lock's condition), a short workload of two factories, two threads each, on two names, while the
 * proxies inject each kind of fault in turn (a RESP3 push frame beside a reply, a delayed reply, a
 * reply in pieces, a reset before or after a command ran, a black hole before or after), checked as
 * {@link HostileRun} says: no two holders, {@code tryLock()} false only when someone holds, only
 * {@code RedisLockException}s, every name free again soon after the faults, no key, thread or
 * connection left behind.
 *
 * <p>A run of one class takes a few seconds per kind; {@code -Dredislock.test.hostile.rounds=N}
 * repeats every kind of fault N times (a longer, broader run), and {@code
 * -Dredislock.test.hostile.seed=S} replays the faults and workload a failure names (thread timing
 * aside).
 */
@IntegrationTest
abstract class HostileConnectionsTest {

  /** The deployment, started by the subclass once for all its tests. */
  abstract ProxiedDeployment deployment();

  private void run(HostileRun.LockKind kind, String test) {
    HostileRun.run(HostileSetups.of(deployment()), kind, test);
  }

  @Test
  void plainLocks() {
    run(HostileRun.LockKind.PLAIN, getClass().getSimpleName() + ".plain");
  }

  @Test
  void fairLocks() {
    run(HostileRun.LockKind.FAIR, getClass().getSimpleName() + ".fair");
  }

  @Test
  void readWriteLocks() {
    run(HostileRun.LockKind.READ_WRITE, getClass().getSimpleName() + ".readWrite");
  }

  @Test
  void conditions() {
    run(HostileRun.LockKind.CONDITION, getClass().getSimpleName() + ".condition");
  }
}
