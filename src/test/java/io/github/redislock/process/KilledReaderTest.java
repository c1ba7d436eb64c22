package io.github.redislock.process;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.redislock.testing.JvmProcess;
import io.github.redislock.testing.Timing;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/**
 * A reader JVM that dies holding the read lock (SIGKILL: no finally blocks, no shutdown hooks)
 * keeps its share only until the share's lease runs out; while it lives, its renewals keep writers
 * out.
 */
class KilledReaderTest extends ProcessTestBase {
  private static final Duration LEASE = Timing.scaled(Duration.ofSeconds(2));

  @Test
  void aKilledReadersShareExpiresWithItsLeaseAndAWriterGetsIn() {
    String shares = "{" + name + "}:lock-rs";
    JvmProcess reader = adopt(ReadWriteWorker.start("read-hold", redis.uri(), name, millis(LEASE)));
    reader.awaitOutputLine("reading", Timing.awaitAtMost());
    try (Jedis jedis = redis.jedis()) {
      assertThat(jedis.zcard(shares)).as("the reader's share").isEqualTo(1);
    }

    // While the reader lives, a writer waiting longer than one lease still times out: the reader's
    // renewals keep its share alive past its first lease.
    Duration longerThanALease = LEASE.plus(LEASE.dividedBy(2));
    JvmProcess early =
        adopt(
            ReadWriteWorker.start(
                "write", redis.uri(), name, millis(LEASE), millis(longerThanALease)));
    awaitExit(early);
    assertThat(early.output()).contains("timed-out").doesNotContain("acquired");
    assertThat(reader.isAlive()).isTrue();

    reader.kill();
    assertThat(reader.exitValue()).isEqualTo(137);
    JvmProcess late =
        adopt(
            ReadWriteWorker.start(
                "write", redis.uri(), name, millis(LEASE), millis(LEASE.multipliedBy(3))));
    awaitExit(late);
    late.awaitOutputLine("acquired", Duration.ZERO);
    try (Jedis jedis = redis.jedis()) {
      assertThat(jedis.exists(name)).as("write lock key after the writer's unlock").isFalse();
      assertThat(jedis.exists(shares)).as("the dead reader's share").isFalse();
    }
  }

  private static String millis(Duration d) {
    return Long.toString(d.toMillis());
  }

  private static void awaitExit(JvmProcess child) {
    Duration bound = Timing.awaitAtMost();
    assertThat(child.waitFor(bound))
        .as("%s exited within %s; output so far:%n%s", child, bound, child.output())
        .isTrue();
    assertThat(child.exitValue()).as("exit code; output:%n%s", child.output()).isZero();
  }
}
