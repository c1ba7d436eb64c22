package io.github.redislock.internal.backend;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
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

  @org.junit.jupiter.api.Test
  void readableNamesKeepReadableCompanions() {
    assertThat(LockKeys.of("orders").companion()).isEqualTo("{orders}:lock-meta");
    assertThat(LockKeys.of("orders").channel()).isEqualTo("{orders}:lock-wake");
    assertThat(LockKeys.of("{user:1}:cart").companion()).isEqualTo("{user:1}:cart:lock-meta");
  }
}
