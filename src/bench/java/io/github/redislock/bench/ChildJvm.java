package io.github.redislock.bench;

import io.github.redislock.testing.JvmProcess;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A child JVM running a {@code main} class of this benchmark with the same {@code java} and class
 * path, talking over stdin/stdout lines; its stderr goes to ours. Closing it kills it.
 */
final class ChildJvm implements AutoCloseable {
  private static final String EOF = "\u0000eof";

  private final Process process;
  private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();

  private ChildJvm(Process process) {
    this.process = process;
    Thread reader = new Thread(this::pump, "bench-child-" + process.pid());
    reader.setDaemon(true);
    reader.start();
  }

  /**
   * Starts {@code mainClass} with the given JVM options and arguments, on this JVM's class path.
   */
  static ChildJvm start(Class<?> mainClass, List<String> jvmOptions, List<String> args) {
    return start(mainClass, jvmOptions, args, JvmProcess.classPath());
  }

  /**
   * Starts {@code mainClass} with the given JVM options and arguments on the given class path (for
   * a baseline: see {@link Baseline#childClassPath()}).
   */
  static ChildJvm start(
      Class<?> mainClass, List<String> jvmOptions, List<String> args, String classPath) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvmOptions);
    command.add("-cp");
    command.add(classPath);
    command.add(mainClass.getName());
    command.addAll(args);
    try {
      return new ChildJvm(
          new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + mainClass.getName(), e);
    }
  }

  /** Sends one line to the child's stdin. */
  void send(String line) {
    try {
      process.getOutputStream().write((line + "\n").getBytes(StandardCharsets.UTF_8));
      process.getOutputStream().flush();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write to child " + process.pid(), e);
    }
  }

  /**
   * Waits for the next output line starting with {@code prefix}, skipping others.
   *
   * @throws IllegalStateException if the child ends or the time runs out first
   */
  String await(String prefix, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      String line = lines.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
      if (line == null) {
        throw new IllegalStateException(
            "child " + process.pid() + " printed no '" + prefix + "' within " + timeout);
      }
      if (line.equals(EOF)) {
        throw new IllegalStateException(
            "child " + process.pid() + " ended without printing '" + prefix + "'");
      }
      if (line.startsWith(prefix)) {
        return line;
      }
    }
  }

  /** Waits (bounded) for the child to exit; kills it if it does not. */
  boolean awaitExit(Duration timeout) throws InterruptedException {
    if (process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      return process.exitValue() == 0;
    }
    process.destroyForcibly();
    return false;
  }

  boolean isAlive() {
    return process.isAlive();
  }

  @Override
  public void close() {
    process.destroyForcibly();
  }

  private void pump() {
    try (BufferedReader out =
        new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line = out.readLine(); line != null; line = out.readLine()) {
        lines.add(line);
      }
    } catch (IOException e) {
      // the child died; EOF below tells the waiter
    }
    lines.add(EOF);
  }
}
