package io.github.redislock.torture;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The settings of a torture run, from system properties ({@code -Dtorture.NAME=value}).
 *
 * @param seconds how long each deployment is tortured ({@code torture.seconds}, default 60)
 * @param deployments which deployments, in order ({@code torture.deployments}, default all)
 * @param seed the seed of the fault schedule and the workers' choices ({@code torture.seed},
 *     default: drawn and printed)
 * @param workers worker JVMs ({@code torture.workers}, default 3, at least 3)
 * @param threads platform threads per worker ({@code torture.threads}, default 4, at least 4); a
 *     worker on Java 21 or later runs as many virtual threads besides
 * @param names lock names per kind ({@code torture.names}, default 8)
 * @param lease the lease of every hold ({@code torture.leaseMillis}, default 2000)
 * @param commandTimeout the factories' command timeout ({@code torture.commandTimeoutMillis},
 *     default 500)
 * @param out where results.md and timeline.png go ({@code torture.out}, default {@code
 *     target/torture})
 * @param virtualJava a {@code java} of version 21 or later for the workers that run virtual threads
 *     ({@code torture.java21}: a path, or {@code none}; default: the newest JDK 21+ found in {@code
 *     /usr/lib/jvm} or {@code /opt/java})
 * @param sabotagePerMille the checker's self-test ({@code torture.sabotage}, default 0): so many
 *     sections in a thousand hold a broken lock ({@link Sabotage}), and the run must fail
 * @param faults the fault kinds the nemesis may draw ({@code torture.faults}, e.g. {@code
 *     shard-freeze,worker-kill}; default empty: every kind the deployment offers), to aim a short
 *     run at a few of them
 */
record TortureSettings(
    int seconds,
    List<String> deployments,
    long seed,
    int workers,
    int threads,
    int names,
    Duration lease,
    Duration commandTimeout,
    Path out,
    Optional<Path> virtualJava,
    int sabotagePerMille,
    List<String> faults) {

  static final List<String> ALL_DEPLOYMENTS =
      List.of("single", "sentinel", "cluster", "redlock", "redlock-caching");

  /** The longest section a worker holds on purpose: renewal must carry it. */
  Duration maxHold() {
    return lease.multipliedBy(3).dividedBy(2);
  }

  /**
   * The longest lease a hold of {@code name} may have: the factory's, or for the handle kind's
   * names the lease it gives per call ({@link HandleRunner#GIVEN_LEASES} factory leases, not
   * renewed), which a dead or paused holder's key keeps until it ends.
   */
  Duration longestLease(String name) {
    return TortureKind.kindOf(name).equals("handle") ? longestLease() : lease;
  }

  /** The longest lease any hold may have: the one the handle kind gives per call. */
  Duration longestLease() {
    return lease.multipliedBy(HandleRunner.GIVEN_LEASES);
  }

  /**
   * How long after a fault healed {@code name} must have been acquired again: the longest lease of
   * its holds (a dead holder's key expires), the longest hold, and 5 s for retries, re-checks and
   * client reconfiguration.
   */
  Duration livenessBound(String name) {
    return livenessBound(longestLease(name));
  }

  /** The liveness bound of the names whose holds have the factory's lease. */
  Duration livenessBound() {
    return livenessBound(lease);
  }

  /** The liveness bound of the handle kind's names, whose holds may have a lease given per call. */
  Duration longestLivenessBound() {
    return livenessBound(longestLease());
  }

  private Duration livenessBound(Duration longestLease) {
    return longestLease.plus(maxHold()).plusSeconds(5);
  }

  static TortureSettings fromSystemProperties() {
    int seconds = intProperty("torture.seconds", 60, 5);
    String deploymentList = System.getProperty("torture.deployments", "").trim();
    List<String> deployments =
        deploymentList.isEmpty()
            ? ALL_DEPLOYMENTS
            : Arrays.stream(deploymentList.split(","))
                .map(s -> s.trim().toLowerCase(Locale.ROOT))
                .filter(s -> !s.isEmpty())
                .toList();
    for (String d : deployments) {
      if (!ALL_DEPLOYMENTS.contains(d)) {
        throw new IllegalArgumentException(
            "torture.deployments: unknown deployment " + d + "; known: " + ALL_DEPLOYMENTS);
      }
    }
    String seedText = System.getProperty("torture.seed", "").trim();
    long seed =
        seedText.isEmpty() ? Math.abs(System.nanoTime() % 1_000_000L) : Long.parseLong(seedText);
    int workers = intProperty("torture.workers", 3, 3);
    int threads = intProperty("torture.threads", 4, 4);
    int names = intProperty("torture.names", 8, 2);
    Duration lease = Duration.ofMillis(intProperty("torture.leaseMillis", 2000, 500));
    Duration commandTimeout =
        Duration.ofMillis(intProperty("torture.commandTimeoutMillis", 500, 50));
    Path out = Path.of(System.getProperty("torture.out", "target/torture"));
    List<String> faults =
        Arrays.stream(System.getProperty("torture.faults", "").split(","))
            .map(String::trim)
            .filter(f -> !f.isEmpty())
            .toList();
    return new TortureSettings(
        seconds,
        deployments,
        seed,
        workers,
        threads,
        names,
        lease,
        commandTimeout,
        out,
        findVirtualJava(),
        intProperty("torture.sabotage", 0, 0),
        faults);
  }

  String describe() {
    return String.format(
        Locale.ROOT,
        "seconds=%d per deployment, deployments=%s, seed=%d, %d workers x %d threads%s,"
            + " %d names per kind, lease %d ms, command timeout %d ms%s%s",
        seconds,
        String.join(",", deployments),
        seed,
        workers,
        threads,
        virtualJava.map(p -> " (+ virtual threads on " + p + ")").orElse(""),
        names,
        lease.toMillis(),
        commandTimeout.toMillis(),
        sabotagePerMille > 0
            ? ", SABOTAGED: " + sabotagePerMille + " sections in 1000 hold a broken lock"
            : "",
        faults.isEmpty() ? "" : ", only the faults " + String.join(",", faults));
  }

  private static int intProperty(String name, int fallback, int min) {
    String raw = System.getProperty(name, "").trim();
    int value = raw.isEmpty() ? fallback : Integer.parseInt(raw);
    if (value < min) {
      throw new IllegalArgumentException(name + " must be at least " + min + ", got " + value);
    }
    return value;
  }

  /** The {@code java} of the newest JDK 21+ on this machine, unless told otherwise. */
  private static Optional<Path> findVirtualJava() {
    String given = System.getProperty("torture.java21", "").trim();
    if (given.equalsIgnoreCase("none")) {
      return Optional.empty();
    }
    if (!given.isEmpty()) {
      Path java = Path.of(given);
      if (Files.isDirectory(java)) {
        java = java.resolve("bin").resolve("java");
      }
      if (!Files.isExecutable(java)) {
        throw new IllegalArgumentException("torture.java21: no java at " + java);
      }
      return Optional.of(java);
    }
    if (Runtime.version().feature() >= 21) {
      return Optional.of(Path.of(System.getProperty("java.home"), "bin", "java"));
    }
    List<Path> homes = new ArrayList<>();
    for (String root : List.of("/usr/lib/jvm", "/opt/java")) {
      Path dir = Path.of(root);
      if (Files.isDirectory(dir)) {
        try (Stream<Path> list = Files.list(dir)) {
          list.filter(h -> Files.isExecutable(h.resolve("bin").resolve("java")))
              .filter(h -> featureVersion(h) >= 21)
              .forEach(homes::add);
        } catch (java.io.IOException e) {
          // not readable: look elsewhere
        }
      }
    }
    return homes.stream()
        .max(Comparator.comparingInt(TortureSettings::featureVersion))
        .map(h -> h.resolve("bin").resolve("java"));
  }

  /** The feature version a JDK's {@code release} file names, or 0. */
  private static int featureVersion(Path home) {
    try {
      for (String line : Files.readAllLines(home.resolve("release"))) {
        if (line.startsWith("JAVA_VERSION=")) {
          String v = line.substring("JAVA_VERSION=".length()).replace("\"", "");
          String first = v.split("[.+-]")[0];
          return Integer.parseInt(first.equals("1") ? v.split("\\.")[1] : first);
        }
      }
    } catch (java.io.IOException | RuntimeException e) {
      return 0;
    }
    return 0;
  }
}
