package io.github.redislock.test;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Finds the {@code redis-server} binary that {@link ThrowawayRedis} runs.
 *
 * <p>In order of preference:
 *
 * <ol>
 *   <li>the path in the environment variable {@value #ENV_VARIABLE};
 *   <li>{@code redis-server} on the {@code PATH} (Debian's package gives 7.0.x);
 *   <li>the binary bundled in the {@code com.github.codemonstur:embedded-redis} jar, when it is on
 *       the class path (Redis 6.2.x), extracted once to an executable temp file deleted on JVM
 *       exit.
 * </ol>
 *
 * The choice is made once per JVM and cached.
 */
public final class RedisBinary {

  /** Environment variable naming an explicit {@code redis-server} binary. */
  public static final String ENV_VARIABLE = "REDIS_SERVER";

  private static final Pattern VERSION = Pattern.compile("v=(\\d+)\\.(\\d+)\\.(\\d+)");

  private static final Map<Path, String> VERSION_LINES = new ConcurrentHashMap<>();

  private static volatile Resolved resolved;
  private static volatile Path extracted;

  private RedisBinary() {}

  private record Resolved(Path path, String source) {}

  /**
   * Returns the {@code redis-server} binary to run.
   *
   * @return an executable path (the first call may extract the bundled binary)
   * @throws IllegalStateException if no binary can be found or extracted
   */
  public static Path path() {
    return resolve().path();
  }

  /**
   * Describes the chosen binary for logs, e.g. {@code "/usr/bin/redis-server (PATH): Redis server
   * v=7.0.15 ..."}.
   *
   * @return the path, where it came from and its {@code --version} line
   */
  public static String describe() {
    Resolved r = resolve();
    String version;
    try {
      version = versionLine(r.path());
    } catch (RuntimeException e) {
      version = "<--version failed: " + e.getMessage() + ">";
    }
    return r.path() + " (" + r.source() + "): " + version;
  }

  /**
   * The major version of the chosen binary (e.g. {@code 7} for 7.0.15).
   *
   * @return the major version parsed from {@code redis-server --version}
   */
  public static int majorVersion() {
    return majorVersion(path());
  }

  /**
   * The major version of a binary, from its (cached) {@code --version} output.
   *
   * @param binary a {@code redis-server} executable
   * @return its major version, e.g. {@code 7} for 7.0.15
   */
  public static int majorVersion(Path binary) {
    Matcher m = VERSION.matcher(versionLine(binary));
    if (!m.find()) {
      throw new IllegalStateException(
          "cannot parse the version of " + binary + ": " + versionLine(binary));
    }
    return Integer.parseInt(m.group(1));
  }

  /**
   * The first line of {@code binary --version}, cached per binary.
   *
   * @param binary a {@code redis-server} executable
   * @return that line
   */
  public static String versionLine(Path binary) {
    return VERSION_LINES.computeIfAbsent(binary, RedisBinary::runVersion);
  }

  private static String runVersion(Path binary) {
    Process p;
    try {
      p = new ProcessBuilder(binary.toString(), "--version").redirectErrorStream(true).start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run " + binary + " --version", e);
    }
    try {
      if (!p.waitFor(10, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IllegalStateException(binary + " --version did not finish");
      }
    } catch (InterruptedException e) {
      p.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while running " + binary + " --version", e);
    }
    try (InputStream in = p.getInputStream()) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8)
          .trim()
          .lines()
          .findFirst()
          .orElse("");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the output of " + binary + " --version", e);
    }
  }

  private static Resolved resolve() {
    Resolved r = resolved;
    if (r == null) {
      synchronized (RedisBinary.class) {
        r = resolved;
        if (r == null) {
          r = doResolve();
          resolved = r;
        }
      }
    }
    return r;
  }

  private static Resolved doResolve() {
    String fromEnv = System.getenv(ENV_VARIABLE);
    if (fromEnv != null && !fromEnv.isBlank()) {
      Path p = Path.of(fromEnv.trim());
      if (!Files.isExecutable(p)) {
        throw new IllegalStateException(
            ENV_VARIABLE + "=" + fromEnv + " is not an executable file");
      }
      return new Resolved(p, "$" + ENV_VARIABLE);
    }
    Path onPath = findOnPath("redis-server");
    if (onPath != null) {
      return new Resolved(onPath, "PATH");
    }
    return new Resolved(extractBundled(), "bundled in embedded-redis");
  }

  private static Path findOnPath(String name) {
    String pathVar = System.getenv("PATH");
    if (pathVar == null) {
      return null;
    }
    for (String dir : pathVar.split(File.pathSeparator, -1)) {
      if (dir.isEmpty()) {
        continue;
      }
      Path candidate = Path.of(dir, name);
      if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
        return candidate;
      }
    }
    return null;
  }

  /**
   * Extracts the {@code redis-server} bundled in the embedded-redis jar for this OS and CPU to an
   * executable temp file (once per JVM; deleted on exit) and returns it: Redis 6.2, for tests of
   * what servers before 7 lack.
   *
   * @return the executable
   */
  public static Path extractBundled() {
    Path p = extracted;
    if (p != null) {
      return p;
    }
    synchronized (RedisBinary.class) {
      if (extracted == null) {
        extracted = doExtract(bundledResourceName());
      }
      return extracted;
    }
  }

  /**
   * The name of the embedded-redis class-path resource matching this OS and CPU.
   *
   * @return the resource name
   */
  public static String bundledResourceName() {
    String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
    String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
    boolean x64 = arch.equals("amd64") || arch.equals("x86_64");
    boolean arm64 = arch.equals("aarch64") || arch.equals("arm64");
    boolean x86 = arch.equals("x86") || arch.equals("i386") || arch.equals("i686");
    if (os.contains("linux")) {
      if (x64) {
        return "redis-server-6.2.6-v5-linux-amd64";
      }
      if (arm64) {
        return "redis-server-6.2.7-linux-arm64";
      }
      if (x86) {
        return "redis-server-6.2.7-linux-386";
      }
    } else if (os.contains("mac")) {
      if (x64) {
        return "redis-server-6.2.6-v5-darwin-amd64";
      }
      if (arm64) {
        return "redis-server-6.2.6-v5-darwin-arm64";
      }
    }
    throw new IllegalStateException(
        "embedded-redis bundles no redis-server for "
            + os
            + "/"
            + arch
            + "; install redis-server or set "
            + ENV_VARIABLE);
  }

  private static Path doExtract(String resource) {
    try (InputStream in = RedisBinary.class.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException(
            "class-path resource "
                + resource
                + " not found: add com.github.codemonstur:embedded-redis to the test class path, install redis-server or set "
                + ENV_VARIABLE);
      }
      Path target = Files.createTempFile("redis-server-", "");
      target.toFile().deleteOnExit();
      Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
      if (!target.toFile().setExecutable(true, true)) {
        throw new IllegalStateException("cannot make " + target + " executable");
      }
      return target;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot extract " + resource, e);
    }
  }
}
