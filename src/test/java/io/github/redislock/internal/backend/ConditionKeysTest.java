package io.github.redislock.internal.backend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.util.JedisClusterCRC16;

class ConditionKeysTest {
  private static final LockKeys LOCK = LockKeys.of("buf");

  @Test
  void theSecondNumberedConditionOfLockBufHasTheDocumentedKeys() {
    ConditionKeys keys = ConditionKeys.of(LOCK, "2", true);
    assertThat(keys.queue()).isEqualTo("{buf}:lock-condadcq");
    assertThat(keys.leases()).isEqualTo("{buf}:lock-condadct");
    assertThat(keys.signalled()).isEqualTo("{buf}:lock-condadcs");
    assertThat(keys.channel()).isEqualTo("{buf}:lock-condadcw");
    assertThat(keys.sequence()).isEqualTo("condadc");
  }

  @Test
  void everyHexDigitOfTheUtf8BytesIsALetterFromAToP() {
    assertThat(ConditionKeys.letters("")).isEmpty();
    assertThat(ConditionKeys.letters("A")).isEqualTo("eb"); // 0x41
    assertThat(ConditionKeys.letters("é")).isEqualTo("mdkj"); // 0xc3 0xa9
    assertThat(ConditionKeys.letters("\u00ff\u0000")).matches("[a-p]+");
  }

  @Test
  void numberedNamedAndDifferentConditionsNeverShareAKey() {
    Set<String> keys = new HashSet<>();
    for (String name : List.of("", "1", "2", "12", "notFull", "notEmpty", "q", "b")) {
      for (boolean numbered : new boolean[] {true, false}) {
        ConditionKeys c = ConditionKeys.of(LOCK, name, numbered);
        for (String key : List.of(c.queue(), c.leases(), c.signalled(), c.channel())) {
          assertThat(keys.add(key)).as(key).isTrue();
        }
      }
    }
  }

  @Test
  void everyKeyIsInTheLockKeysSlotAndNoLockMayHaveItsName() {
    LockKeys lock = LockKeys.of("orders}x"); // no hash tag: a slot tag is prefixed
    ConditionKeys keys = ConditionKeys.of(lock, "notEmpty", false);
    int slot = JedisClusterCRC16.getSlot(lock.lock());
    for (String key : List.of(keys.queue(), keys.leases(), keys.signalled(), keys.channel())) {
      assertThat(JedisClusterCRC16.getSlot(key)).as(key).isEqualTo(slot);
      assertThatThrownBy(() -> LockKeys.checkLockKey(key))
          .isInstanceOf(IllegalArgumentException.class);
    }
  }
}
