package io.github.redislock.torture;

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
 * A worker JVM ({@link Worker}) seen from the orchestrator, as the benchmark's child JVMs: the same
 * class path, commands on stdin, lines on stdout; its stderr (the library's log) goes to a file. It
 * can be frozen (SIGSTOP), thawed and killed (SIGKILL).
 */
final class WorkerJvm implements AutoCloseable {
  private static final String EOF = "\u0000eof";

  final String id;
  final boolean virtual;
  private final Process process;
  private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
  private volatile String lastStopped = "";
  private volatile boolean paused;

  private WorkerJvm(String id, boolean virtual, Process process) {
    this.id = id;
    this.virtual = virtual;
    this.process = process;
    Thread reader = new Thread(this::pump, "torture-worker-" + id);
    reader.setDaemon(true);
    reader.start();
  }

  /** Starts a worker with {@code java} (the orchestrator's own unless given). */
  static WorkerJvm start(String id, Path java, boolean virtual, List<String> args, Path logFile) {
    List<String> command = new ArrayList<>();
    command.add(java.toString());
    command.add("-Xmx512m");
    command.add("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");
    command.add("-Dorg.slf4j.simpleLogger.showDateTime=true");
    command.add("-cp");
    command.add(JvmProcess.classPath());
    command.add(Worker.class.getName());
    command.addAll(args);
    try {
      Process p =
          new ProcessBuilder(command)
              .redirectError(ProcessBuilder.Redirect.appendTo(logFile.toFile()))
              .start();
      return new WorkerJvm(id, virtual, p);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start worker " + id, e);
    }
  }

  long pid() {
    return process.pid();
  }

  boolean isAlive() {
    return process.isAlive();
  }

  /** Waits for the next stdout line starting with {@code prefix}. */
  String await(String prefix, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      String line = lines.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
      if (line == null) {
        throw new IllegalStateException("worker " + id + " printed no '" + prefix + "' in time");
      }
      if (line.equals(EOF)) {
        throw new IllegalStateException("worker " + id + " ended before printing '" + prefix + "'");
      }
      if (line.startsWith(prefix)) {
        return line;
      }
      System.out.println("  [" + id + "] " + line);
    }
  }

  void pause() {
    signal("STOP");
    paused = true;
  }

  void resume() {
    if (paused) {
      signal("CONT");
      paused = false;
    }
  }

  /**
   * Tells the worker to close its factory under its threads and build a new one, and waits until it
   * did.
   *
   * @return its {@code reopened ...} line
   */
  String closeFactory(Duration timeout) throws InterruptedException {
    try {
      process.getOutputStream().write("close-factory\n".getBytes(StandardCharsets.UTF_8));
      process.getOutputStream().flush();
    } catch (IOException e) {
      throw new UncheckedIOException("worker " + id + " is gone", e);
    }
    return await("reopened", timeout);
  }

  /** SIGKILL, and waits until it is gone. */
  void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(10, TimeUnit.SECONDS);
  }

  /**
   * Asks the worker to stop and waits for its {@code stopped} line and exit.
   *
   * @return its {@code stopped ...} line, or a line saying what went wrong
   */
  String stop(Duration timeout) throws InterruptedException {
    resume();
    try {
      process.getOutputStream().write("stop\n".getBytes(StandardCharsets.UTF_8));
      process.getOutputStream().flush();
      lastStopped = await("stopped", timeout);
    } catch (IOException | IllegalStateException e) {
      lastStopped = "not stopped: " + e.getMessage();
    }
    if (!process.waitFor(10, TimeUnit.SECONDS)) {
      process.destroyForcibly();
    }
    return lastStopped;
  }

  @Override
  public void close() {
    if (paused) {
      signal("CONT");
    }
    process.destroyForcibly();
  }

  private void signal(String signal) {
    try {
      Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid())).start();
      if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
        throw new IllegalStateException("kill -" + signal + " " + pid() + " failed");
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  private void pump() {
    try (BufferedReader out =
        new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line = out.readLine(); line != null; line = out.readLine()) {
        lines.add(line);
      }
    } catch (IOException e) {
      // the worker died
    }
    lines.add(EOF);
  }
}
