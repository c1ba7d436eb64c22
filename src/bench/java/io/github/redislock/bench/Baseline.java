package io.github.redislock.bench;

import io.github.redislock.RedisLockFactory;
import io.github.redislock.testing.JvmProcess;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.MalformedURLException;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.Enumeration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The library as built from another commit, measured beside the current build in the same run (the
 * rows {@code ours-base} and {@code ours-base-redlock}): {@code -Dbench.baseline=<git rev>} or
 * {@code -Dbench.baselineJar=<path>}.
 *
 * <p>For a rev, the jar is built once from a {@code git archive} of that commit with {@code mvn -q
 * -B -DskipTests -Dspotless.skip package} (the {@code mvn} on the {@code PATH}) and cached as
 * {@code target/bench-baseline/<full sha>.jar}; a later run finds it there.
 *
 * <p>In this JVM the jar is loaded by a child-first class loader: the classes and resources of
 * {@code io.github.redislock} that the jar holds come from it, everything else (Jedis,
 * commons-pool2, slf4j, the benchmark itself) from the benchmark's class loader. Both versions thus
 * run on the current build's dependency versions, each with its own classes, statics and JIT
 * profiles. A child JVM of scenario d gets the jar on its class path in place of the current
 * classes ({@link #childClassPath()}) and finds the baseline with its own class loader.
 */
final class Baseline {
  /** The system property that tells a child JVM its class path holds this jar. */
  static final String IN_CLASS_PATH = "bench.baselineInClassPath";

  private static final String FACTORY = "io.github.redislock.RedisLockFactory";
  private static final String PACKAGE = "io.github.redislock.";
  private static final String RESOURCES = "io/github/redislock/";
  private static final long BUILD_TIMEOUT_MINUTES = 20;
  private static final Pattern FULL_SHA = Pattern.compile("[0-9a-f]{40}");

  private static volatile Baseline installed;

  private final String name;
  private final String sha;
  private final Path jar;
  private final ClassLoader loader;
  private final String builtHow;

  private Baseline(String name, String sha, Path jar, ClassLoader loader, String builtHow) {
    this.name = name;
    this.sha = sha;
    this.jar = jar;
    this.loader = loader;
    this.builtHow = builtHow;
  }

  /**
   * Resolves the baseline of the settings (building its jar unless cached or given), loads it and
   * installs it for {@link Implementation#create}.
   *
   * @throws IllegalArgumentException if the rev is not a commit of this repository or the jar does
   *     not exist
   * @throws IllegalStateException if the build fails or the jar holds no {@code RedisLockFactory}
   */
  static Baseline prepare(BenchSettings settings) throws InterruptedException {
    Path project = projectDir();
    String sha = settings.baseline().isEmpty() ? null : resolve(project, settings.baseline());
    Path jar;
    String builtHow;
    if (!settings.baselineJar().isEmpty()) {
      jar = Path.of(settings.baselineJar()).toAbsolutePath().normalize();
      if (!Files.isRegularFile(jar)) {
        throw new IllegalArgumentException("bench.baselineJar: no file " + jar);
      }
      builtHow = "given with `-Dbench.baselineJar`";
    } else {
      Path cache = project.resolve("target").resolve("bench-baseline");
      jar = cache.resolve(sha + ".jar");
      if (Files.isRegularFile(jar)) {
        builtHow = "built earlier, cached";
        LockBenchmark.log("Baseline " + shortSha(sha) + ": cached jar " + jar);
      } else {
        build(project, sha, cache, jar);
        builtHow = "built for this run";
      }
      builtHow +=
          " with `mvn -q -B -DskipTests -Dspotless.skip package` from `git archive "
              + shortSha(sha)
              + "`";
    }
    String name = sha != null ? shortSha(sha) : nameOf(jar);
    ClassLoader loader = new ChildFirstLoader(url(jar), Baseline.class.getClassLoader());
    Baseline baseline = new Baseline(name, sha, jar, loader, builtHow);
    baseline.check();
    installed = baseline;
    return baseline;
  }

  /**
   * In a child JVM started with {@link #childClassPath()}: installs the baseline that its class
   * path holds, if {@link #IN_CLASS_PATH} says so.
   */
  static void installInChild() {
    String jar = System.getProperty(IN_CLASS_PATH, "");
    if (jar.isEmpty()) {
      return;
    }
    Path path = Path.of(jar);
    Baseline baseline =
        new Baseline(
            nameOf(path), null, path, Baseline.class.getClassLoader(), "on the class path");
    baseline.check();
    installed = baseline;
  }

  /**
   * The installed baseline.
   *
   * @throws UnsupportedOperationException if there is none (the harness reports the row as not
   *     available)
   */
  static Baseline require() {
    Baseline b = installed;
    if (b == null) {
      throw new UnsupportedOperationException(
          "no baseline: give -Dbench.baseline=<git rev> or -Dbench.baselineJar=<path>");
    }
    return b;
  }

  /** The short sha (or the jar's name) of the installed baseline, or null. */
  static String installedName() {
    Baseline b = installed;
    return b == null ? null : b.name;
  }

  /** The short sha, or the jar's file name when the baseline was given as a jar alone. */
  String name() {
    return name;
  }

  Path jar() {
    return jar;
  }

  /** The class loader that defines the baseline's classes. */
  ClassLoader loader() {
    return loader;
  }

  /** One line for the report's header. */
  String describe() {
    String jedis = dependencyWarning();
    return "`ours-base` rows run redis-lock "
        + (sha != null ? "at commit " + sha : "from " + jar.getFileName())
        + " ("
        + builtHow
        + "; `"
        + displayPath(jar)
        + "`), loaded child-first beside the current build: its own classes, Jedis,"
        + " commons-pool2 and slf4j shared with it"
        + jedis;
  }

  /**
   * The class path of a child JVM that runs the baseline: this JVM's, with the jar in place of the
   * current build's classes.
   *
   * @throws IllegalStateException if the current classes are not an entry of the class path
   */
  String childClassPath() {
    Path current = codeSource(RedisLockFactory.class);
    List<String> entries = new ArrayList<>();
    boolean replaced = false;
    for (String entry : JvmProcess.classPath().split(File.pathSeparator)) {
      if (Path.of(entry).toAbsolutePath().normalize().equals(current)) {
        entries.add(jar.toString());
        replaced = true;
      } else {
        entries.add(entry);
      }
    }
    if (!replaced) {
      throw new IllegalStateException(
          "the class path has no entry " + current + " to replace with " + jar);
    }
    return String.join(File.pathSeparator, entries);
  }

  /** Checks that the factory class really comes from the jar. */
  private void check() {
    Class<?> factory;
    try {
      factory = Class.forName(FACTORY, false, loader);
    } catch (ClassNotFoundException e) {
      throw new IllegalStateException(jar + " holds no " + FACTORY, e);
    }
    Path from = codeSource(factory);
    if (!from.equals(jar.toAbsolutePath().normalize())) {
      throw new IllegalStateException(
          "the baseline's " + FACTORY + " was loaded from " + from + ", not from " + jar);
    }
  }

  /**
   * A note when the baseline's pom asks for other Jedis or slf4j versions than it runs with here.
   */
  private String dependencyWarning() {
    try (JarFile file = new JarFile(jar.toFile())) {
      var entry = file.getJarEntry("META-INF/maven/io.github.redislock/redis-lock/pom.xml");
      if (entry == null) {
        return "";
      }
      String pom;
      try (InputStream in = file.getInputStream(entry)) {
        pom = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      }
      List<String> differ = new ArrayList<>();
      for (Map.Entry<String, String> dep :
          Map.of(
                  "jedis.version",
                  Environment.version(redis.clients.jedis.UnifiedJedis.class, "jedis"),
                  "slf4j.version",
                  Environment.version(org.slf4j.Logger.class, "slf4j-api"))
              .entrySet()) {
        Matcher m = Pattern.compile("<" + Pattern.quote(dep.getKey()) + ">([^<]+)</").matcher(pom);
        if (m.find() && !m.group(1).trim().equals(dep.getValue())) {
          differ.add(dep.getKey() + " " + m.group(1).trim() + " (runs on " + dep.getValue() + ")");
        }
      }
      return differ.isEmpty() ? "" : "; **its pom asks for " + String.join(", ", differ) + "**";
    } catch (IOException e) {
      return "";
    }
  }

  /** The full sha of {@code rev} in the repository at {@code project}. */
  private static String resolve(Path project, String rev) throws InterruptedException {
    Result r = run(project, List.of("git", "rev-parse", "--verify", "--quiet", rev + "^{commit}"));
    String sha = r.output.trim();
    if (r.exit != 0 || !FULL_SHA.matcher(sha).matches()) {
      throw new IllegalArgumentException(
          "bench.baseline: '" + rev + "' is not a commit of the repository at " + project);
    }
    return sha;
  }

  /** Builds the jar of {@code sha} into {@code jar}, in a temporary folder under the cache. */
  private static void build(Path project, String sha, Path cache, Path jar)
      throws InterruptedException {
    long started = System.nanoTime();
    Path src;
    Path log = cache.resolve(sha + ".log");
    try {
      Files.createDirectories(cache);
      src = Files.createTempDirectory(cache, "build-" + shortSha(sha) + "-");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a build folder under " + cache, e);
    }
    LockBenchmark.log(
        "Baseline "
            + shortSha(sha)
            + ": building its jar in "
            + src
            + " (mvn -q -B -DskipTests -Dspotless.skip package; log "
            + log.getFileName()
            + ")");
    try {
      Path tar = src.resolve("source.tar");
      expect(run(project, List.of("git", "archive", "--format=tar", "-o", tar.toString(), sha)));
      expect(run(src, List.of("tar", "-xf", tar.toString())));
      Files.delete(tar);
      ProcessBuilder mvn =
          new ProcessBuilder("mvn", "-q", "-B", "-DskipTests", "-Dspotless.skip", "package")
              .directory(src.toFile())
              .redirectErrorStream(true)
              .redirectOutput(log.toFile());
      // The mvn script of this run exports its project folder; the build must find its own.
      mvn.environment().remove("MAVEN_PROJECTBASEDIR");
      mvn.environment().remove("MAVEN_BASEDIR");
      mvn.environment().remove("MAVEN_CMD_LINE_ARGS");
      Process process = mvn.start();
      if (!process.waitFor(BUILD_TIMEOUT_MINUTES, TimeUnit.MINUTES)) {
        process.destroyForcibly();
        throw new IllegalStateException(
            "the baseline build ran over " + BUILD_TIMEOUT_MINUTES + " minutes; see " + log);
      }
      if (process.exitValue() != 0) {
        throw new IllegalStateException(
            "the baseline build failed (exit "
                + process.exitValue()
                + "); "
                + log
                + " ends:\n"
                + tail(log));
      }
      Path built = builtJar(src.resolve("target"));
      Path partial = cache.resolve(sha + ".jar.partial-" + ProcessHandle.current().pid());
      Files.copy(built, partial, StandardCopyOption.REPLACE_EXISTING);
      Files.move(partial, jar, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot build the baseline " + sha, e);
    } finally {
      deleteTree(src);
    }
    LockBenchmark.log(
        String.format(
            Locale.ROOT,
            "Baseline %s: built %s in %.0f s",
            shortSha(sha),
            jar,
            (System.nanoTime() - started) / 1e9));
  }

  /** The library's jar in a build's {@code target}: not the sources, javadoc or tests jar. */
  private static Path builtJar(Path target) throws IOException {
    List<Path> jars;
    try (Stream<Path> files = Files.list(target)) {
      jars =
          files
              .filter(p -> p.getFileName().toString().endsWith(".jar"))
              .filter(p -> !p.getFileName().toString().matches(".*-(sources|javadoc|tests)\\.jar"))
              .toList();
    }
    if (jars.size() != 1) {
      throw new IllegalStateException("expected one library jar in " + target + ", found " + jars);
    }
    return jars.get(0);
  }

  /**
   * The project folder: two levels above the benchmark's classes ({@code target/test-classes}), or
   * the working directory.
   */
  private static Path projectDir() {
    Path classes = codeSource(Baseline.class);
    Path project = classes.getParent() == null ? null : classes.getParent().getParent();
    if (project != null && Files.isRegularFile(project.resolve("pom.xml"))) {
      return project;
    }
    return Path.of("").toAbsolutePath();
  }

  private static Path codeSource(Class<?> type) {
    try {
      return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI())
          .toAbsolutePath()
          .normalize();
    } catch (URISyntaxException | RuntimeException e) {
      throw new IllegalStateException("cannot tell where " + type.getName() + " comes from", e);
    }
  }

  private static String shortSha(String sha) {
    return sha.substring(0, 7);
  }

  /** A jar named {@code <full sha>.jar} is named by its short sha, any other by its file name. */
  private static String nameOf(Path jar) {
    String file = jar.getFileName().toString();
    String stem = file.endsWith(".jar") ? file.substring(0, file.length() - 4) : file;
    return FULL_SHA.matcher(stem).matches() ? shortSha(stem) : file;
  }

  private static String displayPath(Path path) {
    Path project = projectDir();
    return path.startsWith(project) ? project.relativize(path).toString() : path.toString();
  }

  private static URL url(Path jar) {
    try {
      return jar.toUri().toURL();
    } catch (MalformedURLException e) {
      throw new IllegalArgumentException("not a usable path: " + jar, e);
    }
  }

  private record Result(int exit, String output) {}

  private static Result run(Path dir, List<String> command) throws InterruptedException {
    try {
      Process p =
          new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
      p.getOutputStream().close();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(1, TimeUnit.MINUTES)) {
        p.destroyForcibly();
        throw new IllegalStateException(String.join(" ", command) + " did not finish");
      }
      return new Result(p.exitValue(), out);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run " + String.join(" ", command), e);
    }
  }

  private static void expect(Result r) {
    if (r.exit != 0) {
      throw new IllegalStateException("exit " + r.exit + ": " + r.output.trim());
    }
  }

  private static String tail(Path log) {
    try {
      List<String> lines = Files.readAllLines(log);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
    } catch (IOException | UncheckedIOException e) {
      return "(unreadable)";
    }
  }

  private static void deleteTree(Path root) {
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException | UncheckedIOException e) {
      LockBenchmark.log("  could not delete " + root + ": " + e);
    }
  }

  /**
   * Loads the classes and resources of {@code io.github.redislock} that the jar holds from the jar,
   * before asking the parent; everything else from the parent.
   */
  private static final class ChildFirstLoader extends URLClassLoader {
    static {
      registerAsParallelCapable();
    }

    ChildFirstLoader(URL jar, ClassLoader parent) {
      super("bench-baseline", new URL[] {jar}, parent);
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
      if (!name.startsWith(PACKAGE)) {
        return super.loadClass(name, resolve);
      }
      synchronized (getClassLoadingLock(name)) {
        Class<?> type = findLoadedClass(name);
        if (type == null) {
          try {
            type = findClass(name);
          } catch (ClassNotFoundException e) {
            // not in the jar: the benchmark's own classes and test fixtures
            type = getParent().loadClass(name);
          }
        }
        if (resolve) {
          resolveClass(type);
        }
        return type;
      }
    }

    @Override
    public URL getResource(String name) {
      URL own = name.startsWith(RESOURCES) ? findResource(name) : null;
      return own != null ? own : super.getResource(name);
    }

    @Override
    public Enumeration<URL> getResources(String name) throws IOException {
      if (!name.startsWith(RESOURCES)) {
        return super.getResources(name);
      }
      List<URL> all = Collections.list(findResources(name));
      ClassLoader parent = getParent();
      if (parent != null) {
        all.addAll(Collections.list(parent.getResources(name)));
      }
      return Collections.enumeration(all);
    }
  }
}
