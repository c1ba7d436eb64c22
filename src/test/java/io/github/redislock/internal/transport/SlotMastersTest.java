package io.github.redislock.internal.transport;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Reading a {@code CLUSTER SLOTS} reply, as Jedis hands it over, into each slot's master. */
class SlotMastersTest {
  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static List<Object> node(String host, long port, String id) {
    return List.of(bytes(host), port, bytes(id));
  }

  @Test
  void eachSlotIsNamedByItsMastersAddressAndReplicasDoNotCount() {
    Object reply =
        List.of(
            List.of(0L, 5460L, node("10.0.0.1", 7001, "a".repeat(40)), node("10.0.0.4", 7004, "d")),
            List.of(5461L, 10922L, node("10.0.0.2", 7002, "b".repeat(40))),
            List.of(10923L, 16383L, node("10.0.0.3", 7003, "c".repeat(40))));
    String[] masters = SlotMasters.parse(reply);
    assertThat(masters).hasSize(16_384);
    assertThat(masters[0]).isEqualTo("10.0.0.1:7001");
    assertThat(masters[5460]).isEqualTo("10.0.0.1:7001");
    assertThat(masters[5461]).isEqualTo("10.0.0.2:7002");
    assertThat(masters[16383]).isEqualTo("10.0.0.3:7003");
  }

  @Test
  void aMasterOfUnknownAddressIsNamedByItsIdAndAnUnservedSlotByNothing() {
    Object reply =
        List.of(
            List.of(0L, 99L, node("", 7001, "a".repeat(40))),
            List.of(100L, 199L, node("?", 7002, "b".repeat(40))));
    String[] masters = SlotMasters.parse(reply);
    assertThat(masters[0]).isEqualTo("a".repeat(40));
    assertThat(masters[150]).isEqualTo("b".repeat(40));
    assertThat(masters[200]).isNull();
  }
}
