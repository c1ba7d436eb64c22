package io.github.redislock.torture;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The worker JVMs of one phase, by slot: a killed worker is replaced in its slot by a new one (a
 * new id). The worker of slot 1 runs on the Java 21+ JDK with virtual threads besides its platform
 * threads, when there is one.
 */
final class Workers implements AutoCloseable {
  private static final Duration READY = Duration.ofSeconds(90);

  private final TortureSettings settings;
  private final Deployment deployment;
  private final int historyPort;
  private final Path logDir;
  private final WorkerJvm[] slots;
  private final List<String> stopped = new ArrayList<>();
  private int nextId;
  private List<String> kinds = List.of();

  Workers(TortureSettings settings, Deployment deployment, int historyPort, Path logDir) {
    this.settings = settings;
    this.deployment = deployment;
    this.historyPort = historyPort;
    this.logDir = logDir;
    this.slots = new WorkerJvm[settings.workers()];
  }

  void startAll() throws InterruptedException {
    for (int i = 0; i < slots.length; i++) {
      slots[i] = launch(i);
    }
    for (WorkerJvm w : slots) {
      String ready = w.await("ready", READY);
      System.out.println("  worker " + w.id + " (pid " + w.pid() + "): " + ready);
      kinds = Arrays.asList(ready.split(" ")[1].substring("kinds=".length()).split(","));
    }
  }

  /** The kinds the workers run (those the factory offers). */
  List<String> kinds() {
    return kinds;
  }

  int size() {
    return slots.length;
  }

  WorkerJvm in(int slot) {
    return slots[slot];
  }

  /** Kills the worker of a slot (SIGKILL) and starts another in its place; returns the new one. */
  WorkerJvm killAndReplace(int slot) throws InterruptedException {
    slots[slot].kill();
    slots[slot] = launch(slot);
    slots[slot].await("ready", READY);
    return slots[slot];
  }

  /**
   * Writes a thread dump of every running worker ({@code jcmd <pid> Thread.print}) beside the
   * workers' logs, named after {@code why}; returns the files written. For a liveness miss: what
   * each worker's threads were doing while a name stayed out of reach.
   */
  List<Path> dumpThreads(String why) {
    List<Path> files = new ArrayList<>();
    Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
    for (WorkerJvm w : slots) {
      Path file = logDir.resolve(deployment.id() + "-" + why + "-" + w.id + "-threads.txt");
      try {
        Process p =
            new ProcessBuilder(jcmd.toString(), Long.toString(w.pid()), "Thread.print", "-l")
                .redirectErrorStream(true)
                .redirectOutput(file.toFile())
                .start();
        if (p.waitFor(30, TimeUnit.SECONDS)) {
          files.add(file);
        } else {
          p.destroyForcibly();
        }
      } catch (IOException e) {
        System.out.println("  thread dump of " + w.id + " failed: " + e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return files;
      }
    }
    return files;
  }

  /** Stops every worker; returns their {@code stopped} lines. */
  List<String> stopAll() throws InterruptedException {
    for (WorkerJvm w : slots) {
      w.resume();
    }
    for (WorkerJvm w : slots) {
      stopped.add(w.id + " " + w.stop(Duration.ofSeconds(Worker.DRAIN_SECONDS + 30)));
    }
    return stopped;
  }

  private WorkerJvm launch(int slot) {
    String id = "w" + nextId++;
    boolean virtual = slot == 1 && settings.virtualJava().isPresent();
    Path java =
        virtual
            ? settings.virtualJava().get()
            : Path.of(System.getProperty("java.home"), "bin", "java");
    List<String> args =
        List.of(
            "id=" + id,
            "spec=" + deployment.spec(),
            "history=" + historyPort,
            "names=" + settings.names(),
            "threads=" + settings.threads(),
            "virtual=" + virtual,
            "seed=" + (settings.seed() * 1000 + nextId),
            "leaseMillis=" + settings.lease().toMillis(),
            "commandTimeoutMillis=" + settings.commandTimeout().toMillis(),
            "sabotage=" + settings.sabotagePerMille(),
            "handleMinWaitMillis=" + Long.getLong("torture.handleMinWaitMillis", 0),
            "keeper=" + deployment.keepers());
    return WorkerJvm.start(
        id, java, virtual, args, logDir.resolve(deployment.id() + "-" + id + ".log"));
  }

  @Override
  public void close() {
    for (WorkerJvm w : slots) {
      if (w != null) {
        w.close();
      }
    }
  }
}
