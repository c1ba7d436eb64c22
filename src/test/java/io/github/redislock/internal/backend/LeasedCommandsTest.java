package io.github.redislock.internal.backend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.args.Rawable;

/**
 * The words of commands built for a lease given per call ({@link WireArguments#withLease}, {@code
 * withLease} of the operations): the given lease where the backend's own went, the deployment's way
 * of publishing kept.
 */
class LeasedCommandsTest {
  private final WireArguments factory = WireArguments.of(30_000, true);
  private final LockKeys keys = LockKeys.of("orders");

  @Test
  void aLeasedWireKeepsThePublishingAndDerivesTheCompanionTtlFromItsLease() {
    WireArguments leased = factory.withLease(5_000);

    assertThat(leased).isEqualTo(WireArguments.of(5_000, true));
    assertThat(factory.withLease(40_000).companionTtl()).isEqualTo("80000");
    assertThat(WireArguments.of(30_000, false).withLease(5_000).publish()).isEqualTo("publish");
  }

  @Test
  void aLeaseFromOneMillisecondToOneDayIsAccepted() {
    assertThat(factory.withLease(1).lease()).isEqualTo("1");
    assertThat(factory.withLease(TimeUnit.DAYS.toMillis(1)).lease()).isEqualTo("86400000");
    assertThatThrownBy(() -> factory.withLease(0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> factory.withLease(TimeUnit.DAYS.toMillis(1) + 1))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void leasedLockCommandsSetTheLeaseOnAcquisitionAndRenewal() {
    LockCommands commands = new LockCommands(factory.withLease(5_000));

    assertThat(words(commands.plainAcquire(keys, "t").command()))
        .containsExactly("SET", "orders", "t", "NX", "PX", "5000");
    assertThat(words(commands.acquire(keys, "t", false).command())).endsWith("t", "5000");
    assertThat(words(commands.extend(keys, "t").command()))
        .contains("5000")
        .doesNotContain("30000");
    assertThat(commands.leaseMillis()).isEqualTo(5_000);
  }

  @Test
  void leasedFairCommandsLeaseTheHoldAndThePlace() {
    List<String> words =
        words(
            new FairCommands(factory.withLease(5_000))
                .acquire(keys, "t", "w", false, Turn.QUEUE)
                .command());

    assertThat(words.stream().filter("5000"::equals)).as("the hold's and the place's").hasSize(2);
    assertThat(words).doesNotContain("30000");
  }

  @Test
  void leasedReadWriteOpsRenewAShareForTheirLease() {
    List<List<String>> calls = new ArrayList<>();
    ReadWriteOps base =
        FakeScripts.readWriteOps(
            30_000,
            (script, keys, args) -> {
              calls.add(args);
              return 1L;
            });

    assertThat(base.withLease(5_000).extendShare(keys, "t")).isTrue();
    assertThat(base.extendShare(keys, "t")).isTrue();

    assertThat(calls).containsExactly(List.of("t", "5000"), List.of("t", "30000"));
  }

  private static List<String> words(CommandArguments command) {
    List<String> words = new ArrayList<>();
    for (Rawable word : command) {
      words.add(new String(word.getRaw(), StandardCharsets.UTF_8));
    }
    return words;
  }
}
