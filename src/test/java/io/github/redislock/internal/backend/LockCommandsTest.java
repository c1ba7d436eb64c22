package io.github.redislock.internal.backend;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.redislock.RedisLockException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.args.Rawable;

/**
 * The words the lock sends to a node and how it reads the replies, without a server: each script's
 * KEYS and ARGV as its header comment names them.
 */
class LockCommandsTest {
  private final LockCommands commands = new LockCommands(WireArguments.of(10_000, false));
  private final LockKeys keys = LockKeys.of("orders");

  @Test
  void aPlainAcquisitionIsSetNxPxTheLease() {
    assertThat(words(commands.plainAcquire(keys, "t").command()))
        .containsExactly("SET", "orders", "t", "NX", "PX", "10000");
  }

  @Test
  void anUnfencedAcquisitionNamesOnlyTheLockKey() {
    assertThat(words(commands.acquire(keys, "t", false).command()))
        .containsExactly("EVALSHA", sha("acquire"), "1", "orders", "t", "10000");
  }

  @Test
  void aFencedAcquisitionAlsoNamesTheCompanionHashAndItsTtl() {
    assertThat(words(commands.acquire(keys, "t", true).command()))
        .containsExactly(
            "EVALSHA", sha("acquire"), "2", "orders", keys.companion(), "t", "10000", "60000");
  }

  @Test
  void theCompanionHashOutlivesTwoLeasesAndAtLeastAMinute() {
    assertThat(WireArguments.companionTtlMillis(10_000)).isEqualTo(60_000);
    assertThat(WireArguments.companionTtlMillis(45_000)).isEqualTo(90_000);
  }

  @Test
  void aReleaseWithoutATokenToRaiseNamesOnlyTheLockKeyAndTheChannel() {
    assertThat(words(commands.release(keys, "t", 0).command()))
        .containsExactly("EVALSHA", sha("release"), "1", "orders", "t", keys.channel(), "publish");
  }

  @Test
  void aReleaseOnAClusterPublishesSharded() {
    assertThat(
            words(new LockCommands(WireArguments.of(10_000, true)).release(keys, "t", 0).command()))
        .containsExactly("EVALSHA", sha("release"), "1", "orders", "t", keys.channel(), "spublish");
  }

  @Test
  void aReleaseRaisingTheCounterNamesTheCompanionHashAndTheToken() {
    assertThat(words(commands.release(keys, "t", 42).command()))
        .containsExactly(
            "EVALSHA",
            sha("release"),
            "2",
            "orders",
            keys.companion(),
            "t",
            keys.channel(),
            "publish",
            "42",
            "60000");
  }

  @Test
  void renewalReissueRaiseAndInspectionSpeakTheirScriptsWords() {
    assertThat(words(commands.extend(keys, "t").command()))
        .containsExactly(
            "EVALSHA", sha("extend"), "2", "orders", keys.companion(), "t", "10000", "60000");
    assertThat(words(commands.reissueFence(keys, "t").command()))
        .containsExactly("EVALSHA", sha("refence"), "2", "orders", keys.companion(), "t", "60000");
    assertThat(words(commands.raiseFence(keys, "t", 42).command()))
        .containsExactly(
            "EVALSHA", sha("fence"), "2", "orders", keys.companion(), "t", "42", "60000");
    assertThat(words(commands.isLocked(keys).command())).containsExactly("EXISTS", "orders");
  }

  @Test
  void acquisitionRepliesAreReadAsTheScriptsHeaderSays() {
    assertThat(commands.acquire(keys, "t", false).parse(1L))
        .isSameAs(Acquisition.ACQUIRED_UNFENCED);
    Acquisition fenced = commands.acquire(keys, "t", true).parse(List.of(1L, 42L));
    assertThat(fenced.acquired()).isTrue();
    assertThat(fenced.fencingToken()).isEqualTo(42);
    Acquisition busy = commands.acquire(keys, "t", false).parse(List.of(0L, 1234L, 1L));
    assertThat(busy.acquired()).isFalse();
    assertThat(busy.holderTtlMillis()).isEqualTo(1234);
    assertThat(busy.holderPublishes()).isTrue();
    assertThat(commands.acquire(keys, "t", false).parse(List.of(0L, -1L, 0L)).holderPublishes())
        .isFalse();
  }

  @Test
  void aPlainSetIsAcquiredOnOkAndBusyForAllWeKnowOnNil() {
    assertThat(commands.plainAcquire(keys, "t").parse("OK".getBytes(StandardCharsets.UTF_8)))
        .isSameAs(Acquisition.ACQUIRED_UNFENCED);
    assertThat(commands.plainAcquire(keys, "t").parse(null))
        .isSameAs(LockCommands.BUSY_FOR_ALL_WE_KNOW);
  }

  @Test
  void releaseRepliesCountTheListenersAfterTheFirst() {
    assertThat(commands.release(keys, "t", 0).parse(0L)).isEqualTo(Release.NOT_OURS);
    assertThat(commands.release(keys, "t", 0).parse(1L)).isEqualTo(new Release(true, 0));
    assertThat(commands.release(keys, "t", 0).parse(8L)).isEqualTo(new Release(true, 7));
  }

  @Test
  void yesOrNoAndTokenRepliesAreReadAsNumbers() {
    assertThat(commands.extend(keys, "t").parse(1L)).isTrue();
    assertThat(commands.extend(keys, "t").parse(0L)).isFalse();
    assertThat(commands.raiseFence(keys, "t", 42).parse(1L)).isTrue();
    assertThat(commands.raiseFence(keys, "t", 42).parse(0L)).isFalse();
    assertThat(commands.reissueFence(keys, "t").parse(-1L)).isEqualTo(-1L);
    assertThat(commands.reissueFence(keys, "t").parse(77L)).isEqualTo(77L);
    assertThat(commands.isLocked(keys).parse(1L)).isTrue();
    assertThat(commands.isLocked(keys).parse(0L)).isFalse();
  }

  private static String sha(String script) {
    for (Script candidate :
        List.of(Script.ACQUIRE, Script.RELEASE, Script.EXTEND, Script.FENCE, Script.REFENCE)) {
      if (candidate.name().equals(script + ".lua")) {
        return words(candidate.evalsha(List.of(), List.of())).get(1);
      }
    }
    throw new IllegalArgumentException(script);
  }

  private static List<String> words(CommandArguments command) {
    List<String> words = new ArrayList<>();
    for (Rawable word : command) {
      words.add(new String(word.getRaw(), StandardCharsets.UTF_8));
    }
    return words;
  }

  @Test
  void aReplyOfAnotherShapeIsARedisLockExceptionNamingTheLockAndTheReply() {
    // A release answers with an integer; a connection out of step might hand it a status or an
    // array meant for another command.
    assertThatThrownBy(() -> commands.release(keys, "t", 0).parse("OK".getBytes(UTF_8)))
        .isInstanceOf(RedisLockException.class)
        .hasMessageContaining("release")
        .hasMessageContaining("'orders'")
        .hasMessageContaining("unexpected reply: bulk string \"OK\"")
        .hasCauseInstanceOf(ClassCastException.class);
    assertThatThrownBy(() -> commands.acquire(keys, "t", true).parse(List.of()))
        .isInstanceOf(RedisLockException.class)
        .hasMessageContaining("unexpected reply: array of 0 []")
        .hasCauseInstanceOf(IndexOutOfBoundsException.class);
  }

  @Test
  void aLongReplyIsShortenedInTheMessage() {
    assertThat(LockCommands.describe(List.of(1L, "x".repeat(50).getBytes(UTF_8), List.of())))
        .isEqualTo(
            "array of 3 [integer 1, bulk string \"" + "x".repeat(40) + "...\", array of 0 []]");
    assertThat(LockCommands.describe(null)).isEqualTo("nil");
  }
}
