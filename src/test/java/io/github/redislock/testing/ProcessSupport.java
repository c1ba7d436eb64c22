package io.github.redislock.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/** Small process, file and waiting helpers shared by the fixtures (package-private). */
final class ProcessSupport {

  /** How long a single polling step parks. */
  static final Duration POLL = Duration.ofMillis(10);

  private ProcessSupport() {}

  /**
   * Waits for a process to exit, converting interruption into an unchecked exception (the interrupt
   * flag is restored).
   */
  static boolean waitFor(Process process, Duration timeout) {
    try {
      return process.waitFor(timeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for process " + process.pid(), e);
    }
  }

  /** SIGKILLs a process and waits (bounded) until it is gone. */
  static void killAndWait(Process process) {
    process.destroyForcibly();
    if (!waitFor(process, Timing.scaled(Duration.ofSeconds(10)))) {
      throw new IllegalStateException("process " + process.pid() + " did not die after SIGKILL");
    }
  }

  /** Sends a signal such as {@code STOP} or {@code CONT} with {@code kill -SIG pid}. */
  static void signal(long pid, String signal) {
    Process kill;
    try {
      kill =
          new ProcessBuilder("kill", "-" + signal, Long.toString(pid))
              .redirectErrorStream(true)
              .start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run kill -" + signal + " " + pid, e);
    }
    if (!waitFor(kill, Timing.scaled(Duration.ofSeconds(10)))) {
      kill.destroyForcibly();
      throw new IllegalStateException("kill -" + signal + " " + pid + " did not finish");
    }
    if (kill.exitValue() != 0) {
      throw new IllegalStateException(
          "kill -" + signal + " " + pid + " failed: " + readOutput(kill));
    }
  }

  /**
   * The scheduler state letter of a process from {@code /proc/PID/stat} ({@code 'T'} = stopped), or
   * {@code '?'} when it cannot be read (no procfs, or the process is gone).
   */
  static char procState(long pid) {
    try {
      String stat =
          Files.readString(Path.of("/proc", Long.toString(pid), "stat"), StandardCharsets.UTF_8);
      int afterName = stat.lastIndexOf(')');
      return afterName >= 0 && afterName + 2 < stat.length() ? stat.charAt(afterName + 2) : '?';
    } catch (IOException | UncheckedIOException e) {
      return '?';
    }
  }

  /** Parks the current thread for one short polling step. */
  static void pollPause() {
    LockSupport.parkNanos(POLL.toNanos());
    if (Thread.currentThread().isInterrupted()) {
      throw new IllegalStateException("interrupted while polling");
    }
  }

  /** Reads a file as UTF-8, returning a note instead of failing when it cannot be read. */
  static String readQuietly(Path file) {
    try {
      return Files.readString(file, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      return "";
    } catch (IOException | UncheckedIOException e) {
      return "<cannot read " + file + ": " + e + ">";
    }
  }

  /** Deletes a file tree, ignoring what cannot be deleted. */
  static void deleteTreeQuietly(Path root) {
    if (root == null || !Files.exists(root)) {
      return;
    }
    try {
      Files.walkFileTree(
          root,
          new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs)
                throws IOException {
              Files.deleteIfExists(file);
              return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path dir, IOException exc)
                throws IOException {
              Files.deleteIfExists(dir);
              return FileVisitResult.CONTINUE;
            }
          });
    } catch (IOException e) {
      // Best effort: a leftover temp directory is not worth failing a test for.
    }
  }

  private static String readOutput(Process process) {
    try {
      return new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    } catch (IOException e) {
      return "<no output: " + e + ">";
    }
  }
}
