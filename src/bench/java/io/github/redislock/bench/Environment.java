package io.github.redislock.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/** The machine, JVM, Redis and library versions, for the report's header. */
final class Environment {
  private Environment() {}

  static void describe(Map<String, String> into, LocalRedis redis) {
    into.put(
        "Machine",
        cpu()
            + ", "
            + Runtime.getRuntime().availableProcessors()
            + " cores, "
            + memory()
            + ", "
            + System.getProperty("os.name")
            + " "
            + System.getProperty("os.version"));
    into.put(
        "Java",
        System.getProperty("java.vm.name")
            + " "
            + System.getProperty("java.runtime.version")
            + " ("
            + System.getProperty("java.vm.vendor")
            + ")");
    into.put("Redis", "redis-server " + redis.version() + " on 127.0.0.1 (one process per node)");
    into.put(
        "Libraries",
        String.join(
            ", ",
            "redis-lock " + gitDescription(),
            "Jedis " + version(redis.clients.jedis.UnifiedJedis.class, "jedis"),
            "Redisson " + version(org.redisson.Redisson.class, "redisson"),
            "Spring Integration Redis "
                + version(
                    org.springframework.integration.redis.util.RedisLockRegistry.class,
                    "spring-integration-redis"),
            "Spring Data Redis "
                + version(
                    org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory
                        .class,
                    "spring-data-redis"),
            "Lettuce " + version(io.lettuce.core.RedisClient.class, "lettuce-core"),
            "HdrHistogram " + version(org.HdrHistogram.Histogram.class, "HdrHistogram")));
    into.put("Command", command());
  }

  /** The version in the name of the jar {@code type} was loaded from. */
  static String version(Class<?> type, String artifact) {
    try {
      String jar =
          Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI())
              .getFileName()
              .toString();
      if (jar.startsWith(artifact + "-") && jar.endsWith(".jar")) {
        return jar.substring(artifact.length() + 1, jar.length() - 4);
      }
      return jar;
    } catch (Exception e) {
      return "?";
    }
  }

  private static String command() {
    String properties =
        System.getProperties().stringPropertyNames().stream()
            .filter(name -> name.startsWith("bench."))
            .sorted()
            .map(name -> " -D" + name + "=" + System.getProperty(name))
            .collect(Collectors.joining());
    return "`mvn -q -Pbench test-compile exec:java" + properties + "`";
  }

  private static String cpu() {
    try {
      return Files.readAllLines(Path.of("/proc/cpuinfo")).stream()
          .filter(line -> line.startsWith("model name"))
          .map(line -> line.substring(line.indexOf(':') + 1).trim())
          .findFirst()
          .orElse(System.getProperty("os.arch"));
    } catch (IOException e) {
      return System.getProperty("os.arch");
    }
  }

  private static String memory() {
    try {
      return Files.readAllLines(Path.of("/proc/meminfo")).stream()
          .filter(line -> line.startsWith("MemTotal:"))
          .map(
              line ->
                  String.format(
                      Locale.ROOT,
                      "%.0f GiB RAM",
                      Long.parseLong(line.replaceAll("\\D", "")) / 1024.0 / 1024.0))
          .findFirst()
          .orElse("? RAM");
    } catch (IOException e) {
      return "? RAM";
    }
  }

  /** {@code git describe} of the working tree, or "(unknown commit)". */
  private static String gitDescription() {
    try {
      Process git =
          new ProcessBuilder("git", "describe", "--always", "--dirty")
              .redirectErrorStream(true)
              .start();
      if (!git.waitFor(5, TimeUnit.SECONDS)) {
        git.destroyForcibly();
        return "(unknown commit)";
      }
      String out = new String(git.getInputStream().readAllBytes()).trim();
      return git.exitValue() == 0 ? "commit " + out : "(unknown commit)";
    } catch (IOException e) {
      return "(unknown commit)";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "(unknown commit)";
    }
  }
}
