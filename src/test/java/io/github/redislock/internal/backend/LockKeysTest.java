package io.github.redislock.internal.backend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.util.JedisClusterCRC16;

/** Every key of a lock hashes to the lock key's cluster slot, whatever the name looks like. */
class LockKeysTest {

  @ParameterizedTest
  @ValueSource(
      strings = {
        "orders",
        "{user:1}:cart",
        "a{b",
        "a}b",
        "{}x",
        "}{",
        "{",
        "}",
        "x{}y{z}",
        "{a}{b}",
        "prefix:{tag}",
        "ünïcødé",
        "a b c",
        "{{x}}"
      })
  void companionKeysShareTheLockKeysSlot(String key) {
    LockKeys keys = LockKeys.of(key);
    int slot = JedisClusterCRC16.getSlot(key);
    assertThat(keys.lock()).isEqualTo(key);
    for (String other : List.of(keys.companion(), keys.channel())) {
      assertThat(JedisClusterCRC16.getSlot(other)).as(other).isEqualTo(slot);
    }
    assertThat(keys.companion()).isNotEqualTo(key).isNotEqualTo(keys.channel());
  }

  @Test
  void readableNamesKeepReadableCompanions() {
    assertThat(LockKeys.of("orders").companion()).isEqualTo("{orders}:lock-meta");
    assertThat(LockKeys.of("orders").channel()).isEqualTo("{orders}:lock-wake");
    assertThat(LockKeys.of("{user:1}:cart").companion()).isEqualTo("{user:1}:cart:lock-meta");
  }

  @Test
  void aNameThatLooksLikeAnotherNamesBaseGetsItsTagOnceMore() {
    String t = KeyLayoutPropertyTest.Names.slotTag("a}b");
    assertThat(LockKeys.of("orders").companion()).isEqualTo("{orders}:lock-meta");
    assertThat(LockKeys.of("{orders}").companion()).isEqualTo("{orders}{orders}:lock-meta");
    assertThat(LockKeys.of("{orders}{orders}").companion())
        .isEqualTo("{orders}{orders}{orders}:lock-meta");
    assertThat(LockKeys.of("a{b").companion()).isEqualTo("{a{b}:lock-meta");
    assertThat(LockKeys.of("{a{b}").companion()).isEqualTo("{a{b}{a{b}:lock-meta");
    assertThat(LockKeys.of("a}b").companion()).isEqualTo("{" + t + "}a}b:lock-meta");
    assertThat(LockKeys.of("{" + t + "}a}b").companion())
        .isEqualTo("{" + t + "}{" + t + "}a}b:lock-meta");
    // Other names with a tag keep their keys beside themselves.
    assertThat(LockKeys.of("{orders}:1").companion()).isEqualTo("{orders}:1:lock-meta");
    assertThat(LockKeys.of("x{orders}").companion()).isEqualTo("x{orders}:lock-meta");
    assertThat(LockKeys.of("{x}a}b").companion()).isEqualTo("{x}a}b:lock-meta");
  }

  @Test
  void anEmptyLockKeyIsRefused() {
    assertThatThrownBy(() -> LockKeys.of(""))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("empty");
  }

  @ParameterizedTest
  @ValueSource(strings = {"orders", "{user:1}:cart", "a}b", "{}x", "{a}{b}", "ünïcødé"})
  void noLockKeyIsAnotherLocksCompanionKey(String key) {
    LockKeys keys = LockKeys.of(key);
    assertThatThrownBy(() -> LockKeys.of(keys.companion()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(keys.companion());
    assertThatThrownBy(() -> LockKeys.of(keys.channel()))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @ParameterizedTest
  @ValueSource(strings = {"x:lock-queue", "x:lock-a", "{x}:lock-meta:lock-meta"})
  void keysEndingInAReservedSuffixAreRefused(String key) {
    assertThatThrownBy(() -> LockKeys.of(key)).isInstanceOf(IllegalArgumentException.class);
  }

  @ParameterizedTest
  @ValueSource(strings = {"lock-meta", "x:lock-", "x:lock-1", "x:lock-Meta", "x:lock-meta:1"})
  void keysThatOnlyLookLikeCompanionKeysAreAccepted(String key) {
    assertThat(LockKeys.of(key).lock()).isEqualTo(key);
  }

  @ParameterizedTest
  @ValueSource(strings = {"a\uD800", "\uDC00b", "\uDC00\uD800"})
  void keysWithALoneSurrogateAreRefused(String key) {
    assertThatThrownBy(() -> LockKeys.of(key))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("lone surrogate");
  }

  @Test
  void keysWithSurrogatePairsAreAccepted() {
    assertThat(LockKeys.of("emoji:\uD83D\uDD12").lock()).isEqualTo("emoji:\uD83D\uDD12");
  }
}
