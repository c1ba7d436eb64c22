package io.github.redislock.testing;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A {@code main} class run in a separate JVM (same {@code java} and class path as the tests), for
 * tests where a lock holder must really crash ({@link #kill()} is SIGKILL: no finally blocks, no
 * shutdown hooks).
 *
 * <p>The child's stdout and stderr go to a temp file, read with {@link #output()}. A child can
 * report progress by printing lines, which the test waits for with {@link #awaitOutputLine}.
 *
 * <pre>{@code
 * try (JvmProcess child = JvmProcess.start(HolderMain.class, List.of(), redis.uri())) {
 *     child.awaitOutputLine("locked", Timing.awaitAtMost());
 *     child.kill();
 * }
 * }</pre>
 */
public final class JvmProcess implements AutoCloseable {

  private final String name;
  private final Process process;
  private final Path outputFile;

  private JvmProcess(String name, Process process, Path outputFile) {
    this.name = name;
    this.process = process;
    this.outputFile = outputFile;
  }

  /**
   * This JVM's class path, for a child JVM: under {@code mvn exec:java} not {@code java.class.path}
   * (that is Maven's) but the URLs of the class loader the plugin built.
   *
   * @return the class path, entries separated by {@link File#pathSeparator}
   */
  public static String classPath() {
    if (JvmProcess.class.getClassLoader() instanceof URLClassLoader loader) {
      List<String> entries = new ArrayList<>();
      for (URL url : loader.getURLs()) {
        try {
          entries.add(Path.of(url.toURI()).toString());
        } catch (URISyntaxException | IllegalArgumentException e) {
          throw new IllegalStateException("not a file class-path entry: " + url, e);
        }
      }
      return String.join(File.pathSeparator, entries);
    }
    return System.getProperty("java.class.path");
  }

  /**
   * Starts {@code mainClass} in a new JVM.
   *
   * @param mainClass a class with a {@code public static void main(String[])} on the test class
   *     path (nested classes work)
   * @param jvmArgs JVM options placed before the class path, e.g. {@code -Xmx64m} or {@code -Dx=y}
   * @param args the program arguments
   * @return the running process; close it
   */
  public static JvmProcess start(Class<?> mainClass, List<String> jvmArgs, String... args) {
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    List<String> command = new ArrayList<>();
    command.add(java.toString());
    command.addAll(jvmArgs);
    command.add("-cp");
    command.add(classPath());
    command.add(mainClass.getName());
    command.addAll(List.of(args));
    Path output;
    try {
      output = Files.createTempFile("jvm-" + mainClass.getSimpleName() + "-", ".log");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create the output file", e);
    }
    output.toFile().deleteOnExit();
    try {
      Process process =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.appendTo(output.toFile()))
              .start();
      return new JvmProcess(mainClass.getSimpleName(), process, output);
    } catch (IOException e) {
      ProcessSupport.deleteTreeQuietly(output);
      throw new UncheckedIOException("cannot start " + java + " " + mainClass.getName(), e);
    }
  }

  /**
   * The child's process id.
   *
   * @return the PID
   */
  public long pid() {
    return process.pid();
  }

  /**
   * Whether the child is still running.
   *
   * @return true while the process exists
   */
  public boolean isAlive() {
    return process.isAlive();
  }

  /**
   * Waits for the child to exit.
   *
   * @param timeout how long to wait at most
   * @return true if it exited, false if it is still running after {@code timeout}
   */
  public boolean waitFor(Duration timeout) {
    return ProcessSupport.waitFor(process, timeout);
  }

  /**
   * The child's exit code.
   *
   * @return the exit value (137 after {@link #kill()})
   * @throws IllegalThreadStateException if it has not exited
   */
  public int exitValue() {
    return process.exitValue();
  }

  /** Kills the child with SIGKILL and waits (bounded) until it is gone. */
  public void kill() {
    if (process.isAlive()) {
      ProcessSupport.killAndWait(process);
    }
  }

  /** Freezes the child with SIGSTOP: its threads stop where they are, its sockets stay open. */
  public void pause() {
    ProcessSupport.signal(process.pid(), "STOP");
  }

  /** Continues a child frozen by {@link #pause()} with SIGCONT. */
  public void resume() {
    ProcessSupport.signal(process.pid(), "CONT");
  }

  /**
   * Everything the child printed so far (stdout and stderr interleaved).
   *
   * @return the output, empty if none
   */
  public String output() {
    return ProcessSupport.readQuietly(outputFile);
  }

  /**
   * Waits until the child has printed a line containing {@code text}.
   *
   * @param text the text to look for, within one line
   * @param timeout how long to wait at most
   * @throws AssertionError with the child's output if it exits first or the time runs out
   */
  public void awaitOutputLine(String text, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      // Read liveness before the output, so output printed just before exiting is not missed.
      boolean alive = process.isAlive();
      String out = output();
      if (out.lines().anyMatch(line -> line.contains(text))) {
        return;
      }
      if (!alive) {
        throw new AssertionError(
            this
                + " exited with "
                + process.exitValue()
                + " before printing a line containing \""
                + text
                + "\"; output:\n"
                + out);
      }
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError(
            this
                + " printed no line containing \""
                + text
                + "\" within "
                + timeout
                + "; output:\n"
                + out);
      }
      ProcessSupport.pollPause();
    }
  }

  /** Kills the child if it is still running and deletes its output file. */
  @Override
  public void close() {
    try {
      kill();
    } finally {
      ProcessSupport.deleteTreeQuietly(outputFile);
    }
  }

  @Override
  public String toString() {
    return "JvmProcess[" + name + " pid=" + process.pid() + "]";
  }
}
