package io.github.redislock.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.redislock.spring.boot.RedisEndpoint.Kind;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.mock.env.MockEnvironment;

/** What the spring.data.redis.* and redis-lock.* keys make of the endpoint. */
class RedisEndpointTest {
  private static RedisEndpoint endpoint(Map<String, String> keys) {
    MockEnvironment environment = new MockEnvironment();
    keys.forEach(environment::setProperty);
    RedisLockProperties properties = new RedisLockProperties();
    org.springframework.boot.context.properties.bind.Binder.get(environment)
        .bind(
            "redis-lock",
            org.springframework.boot.context.properties.bind.Bindable.ofInstance(properties));
    return RedisEndpoint.of(properties, environment);
  }

  @Test
  void defaultsToLocalhost() {
    RedisEndpoint endpoint = endpoint(Map.of());
    assertThat(endpoint.kind()).isEqualTo(Kind.STANDALONE);
    assertThat(endpoint.uris()).containsExactly("redis://localhost:6379");
    assertThat(endpoint.sslBundle()).isNull();
  }

  @Test
  void hostPortCredentialsAndDatabase() {
    assertThat(
            endpoint(
                    Map.of(
                        "spring.data.redis.host", "redis.example.com",
                        "spring.data.redis.port", "6380",
                        "spring.data.redis.username", "app",
                        "spring.data.redis.password", "p@ss:w/rd%",
                        "spring.data.redis.database", "2"))
                .uris())
        .containsExactly("redis://app:p%40ss%3Aw%2Frd%25@redis.example.com:6380/2");
  }

  @Test
  void passwordAloneIsTheDefaultUsers() {
    assertThat(endpoint(Map.of("spring.data.redis.password", "secret")).uris())
        .containsExactly("redis://:secret@localhost:6379");
  }

  @Test
  void aUsernameWithoutPasswordIsRefused() {
    assertThatThrownBy(() -> endpoint(Map.of("spring.data.redis.username", "app")))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("without a password");
  }

  @Test
  void ipv6HostsGetBrackets() {
    assertThat(endpoint(Map.of("spring.data.redis.host", "::1")).uris())
        .containsExactly("redis://[::1]:6379");
  }

  @Test
  void theUrlWinsOverHostPortCredentialsAndDatabase() {
    assertThat(
            endpoint(
                    Map.of(
                        "spring.data.redis.url", "rediss://u:p%40w@cache:7000/4",
                        "spring.data.redis.host", "ignored",
                        "spring.data.redis.password", "ignored",
                        "spring.data.redis.database", "9"))
                .uris())
        .containsExactly("rediss://u:p%40w@cache:7000/4");
  }

  @Test
  void aUrlWithoutPortOrUserGetsTheDefaultPortAndItsUserInfoAloneIsThePassword() {
    assertThat(endpoint(Map.of("spring.data.redis.url", "redis://cache")).uris())
        .containsExactly("redis://cache:6379");
    assertThat(endpoint(Map.of("spring.data.redis.url", "redis://secret@cache:6379")).uris())
        .containsExactly("redis://:secret@cache:6379");
  }

  @Test
  void aBadUrlIsRefusedWithoutRepeatingIt() {
    assertThatThrownBy(() -> endpoint(Map.of("spring.data.redis.url", "http://u:pw@h:1")))
        .isInstanceOf(IllegalStateException.class)
        .message()
        .doesNotContain("pw");
  }

  @Test
  void sslEnabledOrABundleMeansTls() {
    RedisEndpoint enabled = endpoint(Map.of("spring.data.redis.ssl.enabled", "true"));
    assertThat(enabled.uris()).containsExactly("rediss://localhost:6379");
    assertThat(enabled.sslBundle()).isNull();
    RedisEndpoint bundled = endpoint(Map.of("spring.data.redis.ssl.bundle", "redis"));
    assertThat(bundled.uris()).containsExactly("rediss://localhost:6379");
    assertThat(bundled.sslBundle()).isEqualTo("redis");
    RedisEndpoint off =
        endpoint(
            Map.of(
                "spring.data.redis.ssl.bundle", "redis", "spring.data.redis.ssl.enabled", "false"));
    assertThat(off.uris()).containsExactly("redis://localhost:6379");
    assertThat(off.sslBundle()).isNull();
  }

  @Test
  void sentinelWinsOverClusterAndTakesTheDataNodesCredentials() {
    RedisEndpoint endpoint =
        endpoint(
            Map.of(
                "spring.data.redis.sentinel.master", "mymaster",
                "spring.data.redis.sentinel.nodes", "s1:26379,s2:26379",
                "spring.data.redis.cluster.nodes", "n1:6379",
                "spring.data.redis.password", "pw",
                "spring.data.redis.database", "1",
                "spring.data.redis.ssl.enabled", "true"));
    assertThat(endpoint.kind()).isEqualTo(Kind.SENTINEL);
    assertThat(endpoint.uris())
        .containsExactly("rediss-sentinel://:pw@s1:26379,s2:26379/mymaster/1");
  }

  @Test
  void sentinelAuthenticationIsRefused() {
    assertThatThrownBy(
            () ->
                endpoint(
                    Map.of(
                        "spring.data.redis.sentinel.master", "mymaster",
                        "spring.data.redis.sentinel.nodes", "s1:26379",
                        "spring.data.redis.sentinel.password", "pw")))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("without authentication");
  }

  @Test
  void clusterNodesHaveNoDatabase() {
    RedisEndpoint endpoint =
        endpoint(
            Map.of(
                "spring.data.redis.cluster.nodes", "n1:6379,n2:6379",
                "spring.data.redis.username", "u",
                "spring.data.redis.password", "p",
                "spring.data.redis.database", "3"));
    assertThat(endpoint.kind()).isEqualTo(Kind.CLUSTER);
    assertThat(endpoint.uris()).containsExactly("redis-cluster://u:p@n1:6379,n2:6379");
  }

  @Test
  void redisLockUriAndItsBundleWinOverSpringDataRedis() {
    RedisEndpoint endpoint =
        endpoint(
            Map.of(
                "redis-lock.uri", "rediss-cluster://n1:6379",
                "redis-lock.ssl-bundle", "locks",
                "spring.data.redis.host", "cache",
                "spring.data.redis.ssl.bundle", "cache"));
    assertThat(endpoint.kind()).isEqualTo(Kind.CLUSTER);
    assertThat(endpoint.uris()).containsExactly("rediss-cluster://n1:6379");
    assertThat(endpoint.sslBundle()).isEqualTo("locks");
  }

  @Test
  void redlockMastersWinOverEverything() {
    RedisEndpoint endpoint =
        endpoint(
            Map.of(
                "redis-lock.redlock.masters", "redis://a:1,redis://b:2,redis://c:3",
                "redis-lock.uri", "redis://ignored:1"));
    assertThat(endpoint.kind()).isEqualTo(Kind.REDLOCK);
    assertThat(endpoint.uris()).containsExactly("redis://a:1", "redis://b:2", "redis://c:3");
  }
}
