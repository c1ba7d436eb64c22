package io.github.redislock.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.redislock.testing.JvmProcess;
import io.github.redislock.testing.RedisServer;
import io.github.redislock.testing.Timing;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.params.SetParams;

/**
 * Mutual exclusion across JVM processes under Redlock over five masters, also while one master is
 * killed and restarted (empty, after a delay longer than the lease, as Redlock requires of masters
 * without persistence) during the run. The counter and the workers' overlap and fencing checks live
 * on a sixth server that no fault touches.
 */
class RedlockCrossProcessTest extends ProcessTestBase {
  private static final int JVMS = 3;
  private static final int THREADS = 4;
  private static final int INCREMENTS = 100;

  private final List<RedisServer> masters = new ArrayList<>();

  @BeforeAll
  void startMasters() {
    for (int i = 0; i < 5; i++) {
      masters.add(RedisServer.start());
    }
  }

  @AfterAll
  void stopMasters() {
    masters.forEach(RedisServer::close);
  }

  @AfterEach
  void restartKilledMasters() {
    for (RedisServer master : masters) {
      if (!master.isRunning()) {
        master.restart();
      }
    }
  }

  @Test
  void nonAtomicIncrementsStayExactUnderRedlock() {
    List<JvmProcess> workers = startCounters();
    awaitAndCheck(workers);
    for (JvmProcess worker : workers) {
      assertThat(valueIn(worker, "unconfirmed"))
          .as(
              "tokens or releases Redis could not confirm, with every master up, seen by %s",
              worker)
          .isZero();
    }
  }

  @Test
  void nonAtomicIncrementsStayExactWhileAMasterIsKilledAndRestarted() {
    List<JvmProcess> workers = startCounters();
    String counter = name + ":counter";
    RedisServer victim = masters.get(2);
    try (Jedis data = redis.jedis()) {
      await().atMost(Timing.awaitAtMost()).until(() -> counterValue(data, counter) >= 100);
      victim.kill();
      long killedAt = System.nanoTime();
      long atKill = counterValue(data, counter);
      // Locking goes on with four masters. The victim, which has no persistence, rejoins only
      // after every lease it may have granted has run out: Redlock's delayed restart. A hold that
      // the victim's grant made a majority can no longer get a fencing token, nor a confirmed
      // release: the workers write nothing under it, try again, and count it as unconfirmed.
      await()
          .atMost(Timing.awaitAtMost())
          .until(
              () ->
                  (counterValue(data, counter) >= atKill + 100
                          && System.nanoTime() - killedAt > 2 * LockWorker.REDLOCK_LEASE.toNanos())
                      || workers.stream().noneMatch(JvmProcess::isAlive));
      victim.restart();
    }
    awaitAndCheck(workers);
  }

  private static long counterValue(Jedis data, String counter) {
    String value = data.get(counter);
    return value == null ? 0 : Long.parseLong(value);
  }

  private List<JvmProcess> startCounters() {
    String counter = name + ":counter";
    ownKeys(
        counter,
        LockWorker.insideKey(name),
        LockWorker.fenceKey(name),
        LockWorker.lastHolderKey(name),
        LockWorker.goKey(name));
    String lockUris = String.join(",", masters.stream().map(RedisServer::uri).toList());
    List<JvmProcess> workers = new ArrayList<>();
    for (int i = 0; i < JVMS; i++) {
      workers.add(
          worker(
              "count",
              lockUris,
              name,
              counter,
              Integer.toString(THREADS),
              Integer.toString(INCREMENTS),
              redis.uri()));
    }
    for (JvmProcess worker : workers) {
      worker.awaitOutputLine("ready", Timing.awaitAtMost());
    }
    try (Jedis jedis = redis.jedis()) {
      jedis.set(LockWorker.goKey(name), "go", SetParams.setParams().px(60_000));
    }
    return workers;
  }

  private void awaitAndCheck(List<JvmProcess> workers) {
    Duration bound = Timing.scaled(Duration.ofMinutes(3));
    for (JvmProcess worker : workers) {
      assertThat(worker.waitFor(bound))
          .as("%s finished within %s; output so far:%n%s", worker, bound, worker.output())
          .isTrue();
      assertThat(worker.exitValue())
          .as("exit code of %s; output:%n%s", worker, worker.output())
          .isZero();
      assertThat(valueIn(worker, "violations")).as("overlaps seen by %s", worker).isZero();
      assertThat(valueIn(worker, "fencing-violations"))
          .as("fencing tokens not increasing, seen by %s", worker)
          .isZero();
    }
    try (Jedis jedis = redis.jedis()) {
      assertThat(jedis.get(name + ":counter"))
          .isEqualTo(Long.toString((long) JVMS * THREADS * INCREMENTS));
      assertThat(jedis.get(LockWorker.insideKey(name))).isEqualTo("0");
    }
  }
}
