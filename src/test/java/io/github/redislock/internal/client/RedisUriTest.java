package io.github.redislock.internal.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.redislock.RedisLockException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import redis.clients.jedis.HostAndPort;

/** The URI forms {@link RedisClients} accepts, and the messages for those it rejects. */
class RedisUriTest {

  @Test
  void standaloneUriWithCredentialsAndDatabase() {
    RedisUri uri = RedisUri.parse("redis://app:s3cret@cache.local:6380/4");
    assertThat(uri.kind()).isEqualTo(Kind.STANDALONE);
    assertThat(uri.tls()).isFalse();
    assertThat(uri.nodes()).containsExactly(new HostAndPort("cache.local", 6380));
    assertThat(uri.user()).isEqualTo("app");
    assertThat(uri.password()).isEqualTo("s3cret");
    assertThat(uri.database()).isEqualTo(4);
  }

  @Test
  void redissIsStandaloneOverTls() {
    RedisUri uri = RedisUri.parse("rediss://:pw@10.0.0.1:6379");
    assertThat(uri.kind()).isEqualTo(Kind.STANDALONE);
    assertThat(uri.tls()).isTrue();
    assertThat(uri.user()).isNull();
    assertThat(uri.password()).isEqualTo("pw");
    assertThat(uri.database()).isZero();
  }

  @Test
  void sentinelAndClusterHaveTlsFormsToo() {
    RedisUri sentinel = RedisUri.parse("rediss-sentinel://:pw@s1:26379,s2:26380/orders");
    assertThat(sentinel.kind()).isEqualTo(Kind.SENTINEL);
    assertThat(sentinel.tls()).isTrue();
    assertThat(sentinel).hasToString("rediss-sentinel://s1:26379,s2:26380/orders");
    RedisUri cluster = RedisUri.parse("rediss-cluster://n1:7000,n2:7001");
    assertThat(cluster.kind()).isEqualTo(Kind.CLUSTER);
    assertThat(cluster.tls()).isTrue();
    assertThat(cluster).hasToString("rediss-cluster://n1:7000,n2:7001");
    assertThat(RedisClients.isTls("redis-cluster://n1:7000")).isFalse();
  }

  @Test
  void sentinelUriNamesTheSentinelsTheMasterAndTheDatabase() {
    RedisUri uri = RedisUri.parse("redis-sentinel://u:p@s1:26379,s2:26380,[::1]:26381/orders/2");
    assertThat(uri.kind()).isEqualTo(Kind.SENTINEL);
    assertThat(uri.nodes())
        .containsExactly(
            new HostAndPort("s1", 26379),
            new HostAndPort("s2", 26380),
            new HostAndPort("::1", 26381));
    assertThat(uri.masterName()).isEqualTo("orders");
    assertThat(uri.database()).isEqualTo(2);
    assertThat(uri.user()).isEqualTo("u");
    assertThat(uri.password()).isEqualTo("p");
  }

  @Test
  void clusterUriNamesTheSeedNodes() {
    RedisUri uri = RedisUri.parse("redis-cluster://n1:7000,n2:7001");
    assertThat(uri.kind()).isEqualTo(Kind.CLUSTER);
    assertThat(uri.nodes())
        .containsExactly(new HostAndPort("n1", 7000), new HostAndPort("n2", 7001));
    assertThat(RedisUri.parse("redis-cluster://n1:7000/").nodes()).hasSize(1);
  }

  @Test
  void schemesAreCaseInsensitive() {
    assertThat(RedisClients.kind("REDIS-CLUSTER://n1:7000")).isEqualTo(Kind.CLUSTER);
    assertThat(RedisClients.kind("Redis://n1:7000")).isEqualTo(Kind.STANDALONE);
  }

  @Test
  void credentialsArePercentDecodedAndPlusIsKept() {
    RedisUri uri = RedisUri.parse("redis-cluster://us%40er:p%3Aa%2Fs+s%25%C3%BC@h:1");
    assertThat(uri.user()).isEqualTo("us@er");
    assertThat(uri.password()).isEqualTo("p:a/s+s%ü");
  }

  @Test
  void descriptionsLeaveTheCredentialsOut() {
    assertThat(RedisClients.describe("redis-sentinel://u:secret@s1:1,s2:2/m/3"))
        .isEqualTo("redis-sentinel://s1:1,s2:2/m/3");
    assertThat(RedisClients.describe("rediss://:secret@h:1")).isEqualTo("rediss://h:1");
    assertThat(RedisClients.describe("redis-cluster://u:secret@h:1"))
        .isEqualTo("redis-cluster://h:1");
  }

  @ParameterizedTest(name = "[{index}] {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "''                                    | no scheme",
        "localhost:6379                        | no scheme",
        "http://localhost:6379                 | unknown scheme 'http'",
        "redis://                              | host is missing",
        "redis://h                             | 'h' has no port",
        "redis://:6379                         | ':6379' has no host",
        "redis://h:0                           | port of 'h:0'",
        "redis://h:65536                       | port of 'h:65536'",
        "redis://h:x1                          | port of 'h:x1'",
        "redis://h:1/x                         | database 'x'",
        "redis://h:1/1/2                       | database '1/2'",
        "redis://h:1?protocol=3                | query parameters",
        "redis://h:1,g:2                       | names 2 hosts",
        "redis://user@h:1                      | user:password or :password",
        "redis://u:@h:1                        | password is empty",
        "redis://u:%zz@h:1                     | password has a '%'",
        "redis://u:%C3@h:1                     | password is not UTF-8",
        "redis://u%FF:p@h:1                    | user name is not UTF-8",
        "redis://::1:6379                      | IPv6 host goes in brackets",
        "redis://[::1]6379                     | not [ipv6]:port",
        "redis-sentinel://s1:1,s2:2            | master name is missing",
        "redis-sentinel://s1:1,s2:2/           | master name is missing",
        "redis-sentinel://s1:1,,s2:2/m         | address in the host list is empty",
        "redis-sentinel://s1:1,s2:2/m/db       | database 'db'",
        "redis-cluster://n1:1,n2               | 'n2' has no port",
        "redis-cluster://n1:1/0                | only database 0",
        "redis-cluster://n1:1,                 | address in the host list is empty"
      })
  void malformedUrisAreRejectedNamingTheBadPart(String uri, String problem) {
    assertThatThrownBy(() -> RedisClients.validate(uri))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("not a Redis URI: '" + uri.replaceFirst("//[^/]*@", "//***@") + "'")
        .hasMessageContaining(problem);
  }

  @Test
  void messagesNeverRepeatThePassword() {
    for (String uri :
        List.of("redis://u:secret@h", "redis-sentinel://:secret@s:1", "redis://u:secret@h:1/x")) {
      assertThatThrownBy(() -> RedisClients.validate(uri))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageNotContaining("secret")
          .hasMessageContaining("***@");
    }
  }

  @Test
  void unreachableSentinelsAreARedisLockExceptionAtCreation() {
    assertThatThrownBy(
            () ->
                RedisClients.create(
                    "redis-sentinel://127.0.0.1:1/mymaster", Duration.ofMillis(200)))
        .isInstanceOf(RedisLockException.class)
        .hasMessageContaining("redis-sentinel://127.0.0.1:1/mymaster");
  }

  @Test
  void unreachableClusterIsARedisLockExceptionAtCreation() {
    assertThatThrownBy(
            () -> RedisClients.create("redis-cluster://127.0.0.1:1", Duration.ofMillis(200)))
        .isInstanceOf(RedisLockException.class)
        .hasMessageContaining("redis-cluster://127.0.0.1:1");
  }
}
