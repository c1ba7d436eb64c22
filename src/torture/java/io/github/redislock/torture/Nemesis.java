package io.github.redislock.torture;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * The seeded fault schedule of one deployment, run and printed as it goes. Faults come one at a
 * time: each is recorded in the history when it starts and when it is healed; then the nemesis
 * waits until every name has been acquired again (at most the liveness bound) and for a quiet gap,
 * and draws the next. The same seed draws the same faults, targets and lengths, in the same order;
 * a run does as many of them as fit in its time.
 *
 * <p>A change of masters that no fault of the schedule made (the deployment failed over by itself,
 * say on an overloaded machine) is recorded as an unscheduled failover, outside the model.
 */
final class Nemesis {
  private static final long WARM_UP_MILLIS = 3000;

  private final TortureSettings settings;
  private final Deployment deployment;
  private final Workers workers;
  private final HistoryAdmin admin;
  private final List<String> names;
  private final SplittableRandom random;
  private final List<Fault.Type> menu = new ArrayList<>();
  private final long startNanos;
  private volatile boolean failingOver;

  /**
   * Counts the starts and ends of the schedule's failovers: the watcher's view is stale if it
   * moved.
   */
  private final java.util.concurrent.atomic.AtomicLong failovers =
      new java.util.concurrent.atomic.AtomicLong();

  /** The masters as the watcher last saw them, or as a failover of the schedule left them. */
  private volatile String knownMasters = "?";

  private volatile boolean done;
  private int faults;
  private String slowest = "";

  Nemesis(
      TortureSettings settings,
      Deployment deployment,
      Workers workers,
      HistoryAdmin admin,
      List<String> names,
      long startNanos) {
    this.settings = settings;
    this.deployment = deployment;
    this.workers = workers;
    this.admin = admin;
    this.names = names;
    this.startNanos = startNanos;
    this.random = new SplittableRandom(settings.seed() * 31 + deployment.id().hashCode());
    menu.addAll(deployment.faultTypes());
    menu.add(
        new Fault.Type(
            "worker-pause",
            2,
            false,
            "a client paused (SIGSTOP) for longer than its lease resumes believing it holds its"
                + " locks (guarantees.md: process pauses)",
            (rnd, s) ->
                new Object[] {
                  "slot" + rnd.nextInt(s.workers()),
                  s.lease().toMillis() + Fault.between(rnd, 300, 1500)
                }));
    menu.add(
        new Fault.Type(
            "worker-kill",
            2,
            true,
            "a client killed (SIGKILL) holds its locks until their leases end; a new worker"
                + " takes its place",
            (rnd, s) -> new Object[] {"slot" + rnd.nextInt(s.workers()), 0L}));
    menu.add(
        new Fault.Type(
            "factory-close",
            2,
            true,
            "a worker closes its factory while its threads use it, some waiting in lock(),"
                + " tryLock(t) or an await: each waiting one must end with IllegalStateException,"
                + " holds are reported lost and released by their leases; a new factory takes its"
                + " place",
            (rnd, s) -> new Object[] {"slot" + rnd.nextInt(s.workers()), 0L}));
    if (!settings.faults().isEmpty()) {
      menu.removeIf(t -> !settings.faults().contains(t.kind()));
    }
  }

  List<Fault.Type> menu() {
    return menu;
  }

  /** Runs faults until {@code endNanos}; returns how many ran. */
  int run(long endNanos) throws InterruptedException {
    Thread watcher = new Thread(this::watchMasters, "torture-master-watch");
    watcher.setDaemon(true);
    watcher.start();
    try {
      Thread.sleep(WARM_UP_MILLIS);
      if (menu.isEmpty()) {
        log("no fault of torture.faults=" + settings.faults() + " here: the workers run alone");
        Thread.sleep(Math.max(0, TimeUnit.NANOSECONDS.toMillis(endNanos - System.nanoTime())));
        return 0;
      }
      while (System.nanoTime() - endNanos < 0) {
        Fault fault = draw(++faults);
        runOne(fault);
        Thread.sleep(Fault.between(random, 500, 2000));
      }
    } finally {
      done = true;
      watcher.interrupt();
    }
    return faults;
  }

  private Fault draw(int number) {
    int total = menu.stream().mapToInt(Fault.Type::weight).sum();
    int pick = random.nextInt(total);
    for (Fault.Type type : menu) {
      pick -= type.weight();
      if (pick < 0) {
        return type.draw(number, random, settings);
      }
    }
    throw new AssertionError();
  }

  private void runOne(Fault fault) throws InterruptedException {
    String target = fault.target();
    int slot = target.startsWith("slot") ? Integer.parseInt(target.substring(4)) : -1;
    if (slot >= 0) {
      target = target + "=" + workers.in(slot).id;
    }
    log("fault " + fault.describe() + (slot >= 0 ? " [" + target + "]" : ""));
    failingOver = fault.kind().contains("failover");
    failovers.incrementAndGet();
    record(fault, "start", target, fault.millis());
    long t0 = System.nanoTime();
    try {
      switch (fault.kind()) {
        case "worker-pause" -> {
          WorkerJvm w = workers.in(slot);
          w.pause();
          Thread.sleep(fault.millis());
          w.resume();
        }
        case "worker-kill" -> {
          WorkerJvm old = workers.in(slot);
          old.kill();
          record(fault, "killed", target, 0);
          WorkerJvm fresh = workers.killAndReplace(slot);
          log(
              "  worker "
                  + old.id
                  + " killed; "
                  + fresh.id
                  + " (pid "
                  + fresh.pid()
                  + ") replaces it");
        }
        case "factory-close" -> {
          String reopened = workers.in(slot).closeFactory(Duration.ofSeconds(60));
          log("  worker " + workers.in(slot).id + " " + reopened);
        }
        default -> {
          String note = deployment.inject(fault);
          if (!note.isEmpty()) {
            log("  " + note);
            record(fault, "note", Worker.clean(note), 0);
          }
        }
      }
    } catch (RuntimeException e) {
      log("  fault " + fault.number() + " failed: " + e + "; healing everything");
      deployment.healAll();
    }
    long healUs = History.nowMicros();
    record(fault, "heal", target, 0);
    long healedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
    if (failingOver) {
      knownMasters = deployment.masters();
    }
    failingOver = false;
    failovers.incrementAndGet();
    long live = awaitLiveness(healUs);
    record(fault, "live", target, live);
    if (live < 0) {
      log("  thread dumps: " + workers.dumpThreads("fault" + fault.number()));
    }
    log(
        "  healed after "
            + healedMillis
            + " ms; "
            + (live >= 0
                ? "every name acquired again " + live + " ms later (" + slowest + ")"
                : "NOT every name acquired again within "
                    + settings.livenessBound().toMillis()
                    + " ms ("
                    + settings.longestLivenessBound().toMillis()
                    + " ms for the handles' names; "
                    + slowest
                    + ")"));
  }

  /**
   * Waits until every name was acquired after {@code healUs}; returns the ms it took, or -1. Sets
   * {@link #slowest}: the name acquired last, or the names never acquired.
   */
  private long awaitLiveness(long healUs) throws InterruptedException {
    long t0 = System.nanoTime();
    // The first start seen after the heal, by name (polled: within 20 ms of the first).
    long[] first = new long[names.size()];
    while (true) {
      long[] last = admin.lastStarts(names);
      long elapsedUs = TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - t0);
      long latest = 0;
      String latestName = "";
      List<String> late = new ArrayList<>();
      List<String> notYet = new ArrayList<>();
      for (int i = 0; i < last.length; i++) {
        long boundUs = settings.livenessBound(names.get(i)).toNanos() / 1000;
        if (first[i] == 0 && last[i] >= healUs) {
          first[i] = last[i];
        }
        if (first[i] == 0) {
          (elapsedUs > boundUs ? late : notYet).add(names.get(i));
        } else if (first[i] - healUs > boundUs) {
          late.add(names.get(i));
        } else if (first[i] > latest) {
          latest = first[i];
          latestName = names.get(i);
        }
      }
      if (!late.isEmpty()) {
        slowest = "not acquired within its bound: " + String.join(", ", late);
        return -1;
      }
      if (notYet.isEmpty()) {
        slowest = "the last: " + latestName;
        return (latest - healUs) / 1000;
      }
      Thread.sleep(20);
    }
  }

  private void record(Fault f, String phase, String target, long value) {
    admin.record(
        "F|"
            + f.number()
            + "|"
            + phase
            + "|"
            + f.kind()
            + "|"
            + target
            + "|"
            + (f.inModel() ? "in" : "out")
            + "|"
            + value
            + "|"
            + History.nowMicros());
  }

  private void watchMasters() {
    knownMasters = deployment.masters();
    int unscheduled = 0;
    while (!done) {
      try {
        Thread.sleep(300);
      } catch (InterruptedException e) {
        return;
      }
      long epoch = failovers.get();
      if (failingOver) {
        continue;
      }
      String known = knownMasters;
      String now = deployment.masters();
      if (failovers.get() != epoch) {
        continue;
      }
      if (now.contains("?") || known.contains("?")) {
        if (!now.contains("?") && !failingOver) {
          knownMasters = now;
        }
        continue;
      }
      if (!now.equals(known)) {
        if (!failingOver) {
          unscheduled++;
          long atUs = History.nowMicros();
          String text =
              "|u" + unscheduled + "|%s|unscheduled-failover|" + known + "->" + now + "|out|0|";
          admin.record("F" + String.format(Locale.ROOT, text, "start") + (atUs - 10_000_000));
          admin.record("F" + String.format(Locale.ROOT, text, "heal") + atUs);
          log(
              "  masters changed by themselves: "
                  + known
                  + " -> "
                  + now
                  + " (unscheduled failover)");
        }
        knownMasters = now;
      }
    }
  }

  private void log(String text) {
    System.out.printf(
        Locale.ROOT,
        "%7.1f s  %s %s%n",
        (System.nanoTime() - startNanos) / 1e9,
        deployment.id(),
        text);
    System.out.flush();
  }
}
