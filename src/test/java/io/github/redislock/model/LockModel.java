package io.github.redislock.model;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The reference model of the lock family's documented semantics, which the model-based test checks
 * every call against. It knows, per name, which threads hold it and how (exclusively: a plain, fair
 * or write lock; or a read share), which threads are in a call on it, and which may still hold it
 * in Redis without the model knowing (a <em>ghost</em>: an abandoned attempt, an unconfirmed
 * release, a hold of a closed factory, for a bounded time). Its records are conservative: a hold is
 * recorded after the call that took it returned and removed before the call that gives it up
 * starts, so a hold in the model is always a hold in Redis, and two conflicting holds in the model
 * are two holders.
 *
 * <p>What it checks:
 *
 * <ul>
 *   <li>at most one exclusive holder of a name (the plain, fair and write locks of a name share its
 *       key); no read share beside another thread's write hold;
 *   <li>{@code tryLock} answers {@code false} only when another thread held, wanted or was
 *       releasing the name, or may still hold it in Redis (a ghost), at some time during the call;
 *   <li>every fencing token is greater than the token of every hold of the name released before the
 *       acquisition started;
 *   <li>an {@code await} that ends with time left was preceded, during the await, by a {@code
 *       signal} or {@code signalAll} of its condition (spurious wake-ups happen only when an
 *       awaiter's entry was lost, which the faults here are too short to cause);
 *   <li>what the workers check themselves (hold counts, exceptions) is reported here too.
 * </ul>
 *
 * <p>Every method is synchronized: the model is the one place where the threads' views meet, and
 * its lock orders its records.
 */
final class LockModel {
  /** How a name is used in a run. */
  enum Family {
    /** {@code getLock(name)}, with conditions. */
    PLAIN,
    /** {@code getFairLock(name)}, with conditions. */
    FAIR,
    /** Both, on one key: they exclude each other. */
    MIXED,
    /** {@code getReadWriteLock(name)}: read and write locks (and the write lock's conditions). */
    READ_WRITE
  }

  /** How a thread holds a name. */
  enum Mode {
    EXCLUSIVE,
    READ
  }

  /** What a thread saw when it started a call on a name. */
  record Ticket(String name, long seq, boolean othersQuiet, long activity, long maxReleasedToken) {}

  private final long seed;
  private final long ghostNanos;
  private final Map<String, Name> names = new HashMap<>();
  private final List<String> violations = new ArrayList<>();
  private final List<Long> faults = new ArrayList<>();
  private final Map<Thread, Long> closing = new HashMap<>(); // threads of a closing factory
  private final Deque<String> recent = new ArrayDeque<>();
  private final List<String> contexts = new ArrayList<>();
  private long clock;

  /**
   * @param seed the run's seed, for messages
   * @param ghostNanos how long an abandoned attempt may still hold a name in Redis after its call
   *     returned (its clean-up runs in the background)
   */
  LockModel(long seed, long ghostNanos) {
    this.seed = seed;
    this.ghostNanos = ghostNanos;
  }

  synchronized void declare(String name, Family family) {
    names.put(name, new Name(family));
  }

  synchronized Family family(String name) {
    return names.get(name).family;
  }

  /** The calling thread starts a call on {@code name} (an acquisition, a release, an await). */
  synchronized Ticket begin(String name, String what) {
    Name state = names.get(name);
    Thread me = Thread.currentThread();
    boolean quiet = !state.othersActive(me, System.nanoTime());
    state.busy.merge(me, 1, Integer::sum);
    state.activity++;
    long seq = ++clock;
    note(seq, me, name, "begin " + what);
    return new Ticket(name, seq, quiet, state.activity, state.maxReleasedToken);
  }

  /** The calling thread's call on {@code name} returned. */
  synchronized void end(String name) {
    Name state = names.get(name);
    state.busy.computeIfPresent(Thread.currentThread(), (t, n) -> n == 1 ? null : n - 1);
  }

  /** The call of {@code ticket} acquired {@code name} in {@code mode}. */
  synchronized void acquired(Ticket ticket, Mode mode, String what) {
    Name state = names.get(ticket.name);
    Thread me = Thread.currentThread();
    long seq = ++clock;
    note(seq, me, ticket.name, "acquired " + mode + " by " + what);
    for (Thread other : state.exclusive.keySet()) {
      if (other != me) {
        violation(
            seq,
            ticket.name,
            what + " acquired " + mode + " while " + other.getName() + " holds it exclusively");
      }
    }
    if (mode == Mode.EXCLUSIVE && state.family == Family.READ_WRITE) {
      for (Thread other : state.readers.keySet()) {
        if (other != me) {
          violation(
              seq, ticket.name, what + " took the write lock while " + other.getName() + " reads");
        }
      }
    }
    Long closingUntil = closing.get(me);
    if (closingUntil != null) {
      // Its factory is closing: close() may end this hold at any moment, a ghost like the others.
      state.ghosts.merge(me, Math.max(closingUntil, System.nanoTime() + ghostNanos), Math::max);
      return;
    }
    (mode == Mode.EXCLUSIVE ? state.exclusive : state.readers).merge(me, 1, Integer::sum);
  }

  /**
   * The call of {@code ticket}, a {@code tryLock}, answered {@code false}: only right if another
   * thread was active on the name at some time during the call.
   */
  synchronized void refused(Ticket ticket, String what) {
    Name state = names.get(ticket.name);
    Thread me = Thread.currentThread();
    long seq = ++clock;
    note(seq, me, ticket.name, "refused " + what);
    if (ticket.othersQuiet
        && state.activity == ticket.activity
        && !state.othersActive(me, System.nanoTime())) {
      violation(
          seq,
          ticket.name,
          what
              + " answered false while no other thread held, wanted or released the name during"
              + " the call, and no abandoned attempt could hold it");
    }
  }

  /** The calling thread gives up one hold of {@code name} in {@code mode}, before its release. */
  synchronized void releasing(String name, Mode mode) {
    Name state = names.get(name);
    Map<Thread, Integer> holders = mode == Mode.EXCLUSIVE ? state.exclusive : state.readers;
    holders.computeIfPresent(Thread.currentThread(), (t, n) -> n == 1 ? null : n - 1);
    note(++clock, Thread.currentThread(), name, "releasing " + mode);
  }

  /** A hold of {@code name} that had fencing token {@code token} (0: none) was released. */
  synchronized void released(String name, long token) {
    Name state = names.get(name);
    state.maxReleasedToken = Math.max(state.maxReleasedToken, token);
  }

  /** The calling thread may hold {@code name} in Redis for {@code nanos} more. */
  synchronized void ghost(String name, long nanos) {
    names.get(name).ghosts.merge(Thread.currentThread(), System.nanoTime() + nanos, Math::max);
  }

  /** An abandoned attempt of the calling thread may hold {@code name} for a while. */
  synchronized void ghost(String name) {
    ghost(name, ghostNanos);
  }

  /**
   * Every hold of {@code threads} (whose factory is closing) becomes a ghost for {@code nanos}: a
   * closed factory releases nothing, and its holds end with their leases.
   */
  synchronized void factoryClosing(Set<Thread> threads, long nanos) {
    long until = System.nanoTime() + nanos;
    for (Thread thread : threads) {
      closing.put(thread, until);
    }
    for (Map.Entry<String, Name> entry : names.entrySet()) {
      Name state = entry.getValue();
      for (Thread thread : threads) {
        state.exclusive.remove(thread);
        state.readers.remove(thread);
        state.ghosts.merge(thread, until, Math::max);
      }
    }
    note(++clock, Thread.currentThread(), "*", "factory closing: " + threads.size() + " threads");
  }

  /** The hold the call of {@code ticket} acquired has fencing token {@code token}. */
  synchronized void fencingToken(Ticket ticket, long token, String what) {
    if (token <= ticket.maxReleasedToken) {
      violation(
          ++clock,
          ticket.name,
          what
              + " got fencing token "
              + token
              + ", not greater than "
              + ticket.maxReleasedToken
              + " of a hold released before it started");
    }
  }

  /** A signal (or signalAll) of {@code condition} of {@code name} starts now. */
  synchronized long signalled(String name, String condition) {
    long seq = ++clock;
    names.get(name).signals.computeIfAbsent(condition, c -> new ArrayList<>()).add(seq);
    note(seq, Thread.currentThread(), name, "signal " + condition);
    return seq;
  }

  /**
   * A fault was injected now. The documented spurious wake-ups need one: an awaiter's entry lost
   * while Redis could not be reached, or a signal retried after its reply was lost.
   */
  synchronized void faulted() {
    faults.add(++clock);
  }

  /** The sequence number of now, for an await's start. */
  synchronized long now() {
    return ++clock;
  }

  /** An await of {@code condition} that started at {@code since} ended with time left. */
  synchronized void wokenWithTimeLeft(String name, String condition, long since, String what) {
    List<Long> signals = names.get(name).signals.getOrDefault(condition, List.of());
    boolean signalledSince = false;
    long lastSignalBefore = since;
    for (int i = signals.size() - 1; i >= 0 && !signalledSince; i--) {
      signalledSince = signals.get(i) > since;
      if (!signalledSince) {
        lastSignalBefore = signals.get(i); // a retry of it may come after the await began
      }
    }
    long after = lastSignalBefore;
    boolean faultedSince = faults.stream().anyMatch(fault -> fault > after);
    long seq = ++clock;
    note(seq, Thread.currentThread(), name, "woken " + what);
    if (!signalledSince && !faultedSince) {
      violation(
          seq,
          name,
          what + " ended with time left, but nobody signalled since it began, and no fault came");
    }
  }

  /** Something a worker checked went wrong. */
  synchronized void violation(String name, String problem) {
    violation(++clock, name, problem);
  }

  synchronized List<String> violations() {
    return List.copyOf(violations);
  }

  /** The report of a failed run: the seed, the violations, and the records before the first. */
  synchronized String report() {
    StringBuilder text = new StringBuilder();
    text.append("seed ")
        .append(seed)
        .append(" (rerun with -Dredislock.test.seed=")
        .append(seed)
        .append("): ")
        .append(violations.size())
        .append(" violation(s)\n");
    violations.stream().limit(20).forEach(v -> text.append("  ").append(v).append('\n'));
    for (String context : contexts) {
      text.append(context);
    }
    return text.toString();
  }

  private void violation(long seq, String name, String problem) {
    String text =
        "#" + seq + " '" + name + "' " + Thread.currentThread().getName() + ": " + problem;
    violations.add(text);
    note(seq, Thread.currentThread(), name, "VIOLATION " + problem);
    if (contexts.size() < 3) {
      StringBuilder context = new StringBuilder("the records up to " + text + ":\n");
      recent.stream()
          .skip(Math.max(0, recent.size() - 60))
          .forEach(r -> context.append("  ").append(r).append('\n'));
      contexts.add(context.toString());
    }
  }

  private void note(long seq, Thread thread, String name, String what) {
    if (recent.size() == 200) {
      recent.removeFirst();
    }
    recent.addLast("#" + seq + " " + thread.getName() + " '" + name + "' " + what);
  }

  /** One name's state in the model. */
  private static final class Name {
    final Family family;
    final Map<Thread, Integer> exclusive = new HashMap<>();
    final Map<Thread, Integer> readers = new HashMap<>();
    final Map<Thread, Integer> busy = new HashMap<>();
    final Map<Thread, Long> ghosts = new HashMap<>();
    final Map<String, List<Long>> signals = new HashMap<>();
    long activity;
    long maxReleasedToken;

    Name(Family family) {
      this.family = family;
    }

    /** Whether a thread other than {@code me} holds, calls on, or may hold the name now. */
    boolean othersActive(Thread me, long nowNanos) {
      ghosts.values().removeIf(until -> until - nowNanos <= 0);
      Set<Thread> others = new HashSet<>();
      others.addAll(exclusive.keySet());
      others.addAll(readers.keySet());
      others.addAll(busy.keySet());
      others.addAll(ghosts.keySet());
      others.remove(me);
      return !others.isEmpty();
    }
  }
}
