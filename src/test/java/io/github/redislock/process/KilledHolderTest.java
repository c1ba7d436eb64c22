package io.github.redislock.process;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.redislock.testing.JvmProcess;
import io.github.redislock.testing.Timing;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/**
 * A holder JVM that dies without unlocking (SIGKILL: no finally blocks, no shutdown hooks) keeps
 * the lock only until its lease runs out; while it lives, its renewals keep everyone else out.
 */
class KilledHolderTest extends ProcessTestBase {
  private static final Duration LEASE = Timing.scaled(Duration.ofSeconds(2));

  @Test
  void aKilledHoldersLockIsTakenOverAfterItsLeaseWithAGreaterFencingToken() {
    JvmProcess holder = worker("hold", redis.uri(), name, millis(LEASE));
    holder.awaitOutputLine("locked", Timing.awaitAtMost());
    long holderToken = valueIn(holder, "token");
    String holderValue;
    try (Jedis jedis = redis.jedis()) {
      holderValue = jedis.get(name);
      assertThat(holderValue).as("lock key while the holder lives").isNotNull();
      assertThat(jedis.pttl(name)).isBetween(1L, LEASE.toMillis());
    }

    // While the holder lives, a contender waiting longer than one lease still times out: the
    // holder's renewals keep the key alive past its first lease.
    Duration waitLongerThanALease = LEASE.plus(LEASE.dividedBy(2));
    JvmProcess early =
        worker("acquire", redis.uri(), name, millis(LEASE), millis(waitLongerThanALease));
    awaitExit(early);
    assertThat(early.exitValue()).as("exit code; output:%n%s", early.output()).isZero();
    assertThat(early.output())
        .as("output of the contender while the holder lives")
        .contains("timed-out")
        .doesNotContain("acquired");
    assertThat(holder.isAlive()).isTrue();
    try (Jedis jedis = redis.jedis()) {
      assertThat(jedis.get(name)).as("the holder's token, still in the key").isEqualTo(holderValue);
    }

    holder.kill();
    assertThat(holder.exitValue()).isEqualTo(137);
    try (Jedis jedis = redis.jedis()) {
      assertThat(jedis.get(name))
          .as("the dead holder's key, until its lease runs out")
          .isIn(holderValue, null);
    }

    JvmProcess late =
        worker("acquire", redis.uri(), name, millis(LEASE), millis(LEASE.multipliedBy(3)));
    awaitExit(late);
    assertThat(late.exitValue()).as("exit code; output:%n%s", late.output()).isZero();
    late.awaitOutputLine("acquired", Duration.ZERO);
    assertThat(valueIn(late, "token"))
        .as("the new holder's fencing token")
        .isGreaterThan(holderToken);
    try (Jedis jedis = redis.jedis()) {
      assertThat(jedis.exists(name)).as("lock key after the new holder's unlock").isFalse();
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
  }
}
