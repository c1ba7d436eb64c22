package io.github.redislock.internal.jedis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The check {@code RedisLockFactory.Builder.build()} makes of the Jedis on the class path. */
class JedisApiTest {
  @Test
  void versionsFromTheLowestOnAreSupported() {
    assertThat(JedisApi.problem("7.0.0", List.of())).isNull();
    assertThat(JedisApi.problem("7.4.1", List.of())).isNull();
    assertThat(JedisApi.problem("8.0.2", List.of())).isNull();
    assertThat(JedisApi.problem("10.0.0-SNAPSHOT", List.of())).isNull();
    assertThat(JedisApi.problem("unknown", List.of())).isNull();
  }

  @Test
  void anOlderVersionIsRefusedNamingTheVersionFoundAndTheOneNeeded() {
    assertThat(JedisApi.problem("6.2.0", List.of()))
        .contains("Jedis 6.2.0 is on the class path")
        .contains("needs Jedis 7.0.0 or later");
    assertThat(JedisApi.problem("5.2.0-beta1", List.of())).contains("Jedis 5.2.0-beta1");
    assertThat(JedisApi.problem("7.0.0-rc1", List.of())).isNull(); // 7.0.0's API already
    assertThat(JedisApi.problem("6.99", List.of())).isNotNull();
  }

  @Test
  void aVersionThatLacksWhatTheLibraryCallsIsRefusedWhateverItsNumber() {
    assertThat(JedisApi.problem("unknown", List.of("ClusterConnectionProvider.getNode(int)")))
        .contains("Jedis unknown is on the class path")
        .contains("needs Jedis 7.0.0 or later")
        .endsWith("it lacks ClusterConnectionProvider.getNode(int)");
    assertThat(JedisApi.problem("7.1.0", List.of("JedisShardedPubSub", "ConnectionPoolConfig")))
        .endsWith("it lacks JedisShardedPubSub, ConnectionPoolConfig");
  }

  /** The unit tests run on the Jedis 8 the library is compiled against: its API is all there. */
  @Test
  void theJedisOfTheBuildIsSupportedAndModern() {
    assertThat(JedisApi.VERSION).startsWith("8.");
    assertThatCode(JedisApi::requireSupported).doesNotThrowAnyException();
    assertThat(JedisApi.MODERN).isTrue();
  }
}
