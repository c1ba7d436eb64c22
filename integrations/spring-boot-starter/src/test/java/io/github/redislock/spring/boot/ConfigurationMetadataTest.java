package io.github.redislock.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** What IDEs complete: the metadata the configuration processor generated into the jar. */
class ConfigurationMetadataTest {
  @Test
  void listsEveryRedisLockPropertyAndTheHealthSwitch() throws IOException {
    String json;
    try (InputStream in =
        getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
      assertThat(in).as("META-INF/spring-configuration-metadata.json").isNotNull();
      json = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    Matcher names = Pattern.compile("\"name\"\\s*:\\s*\"([^\"]+)\"").matcher(json);
    Stream.Builder<String> found = Stream.builder();
    while (names.find()) {
      found.add(names.group(1));
    }
    assertThat(found.build())
        .contains(
            "redis-lock.enabled",
            "redis-lock.uri",
            "redis-lock.lease-time",
            "redis-lock.key-prefix",
            "redis-lock.command-timeout",
            "redis-lock.max-hold-time",
            "redis-lock.record-stats",
            "redis-lock.describe-holders",
            "redis-lock.ssl-bundle",
            "redis-lock.redlock.masters",
            "redis-lock.redlock.node-timeout",
            "redis-lock.lock-registry.enabled",
            "redis-lock.lock-registry.registry-key",
            "redis-lock.lock-registry.cache-capacity",
            "redis-lock.metrics.enabled",
            "redis-lock.metrics.per-name-tags",
            "redis-lock.metrics.tags",
            "management.health.redis-lock.enabled");
    assertThat(json).contains("\"defaultValue\": \"30s\"").contains("\"defaultValue\": \"50ms\"");
  }

  @Test
  void registersTheAutoConfigurations() throws IOException {
    try (InputStream in =
        getClass()
            .getResourceAsStream(
                "/META-INF/spring/org.springframework.boot.autoconfigure.AutoConfiguration.imports")) {
      assertThat(in).isNotNull();
      assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8).lines())
          .contains(
              RedisLockAutoConfiguration.class.getName(),
              RedisLockHealthContributorAutoConfiguration.class.getName(),
              RedisLockRegistryAutoConfiguration.class.getName(),
              RedisLockMetricsAutoConfiguration.class.getName());
    }
  }
}
