package io.github.redislock.internal.transport;

import io.github.redislock.internal.util.Ticker;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BiConsumer;
import java.util.function.Predicate;

/**
 * The replies of every node to one request, as they come. The caller waits until it has seen enough
 * to decide (a majority of one answer, or a majority made impossible) or until a deadline; replies
 * still missing then count as missing, and may arrive in the background later, where {@link
 * #whenEachDone} still sees them.
 *
 * <p>Thread-safe: a transport records replies from any thread while the caller reads.
 *
 * @param <T> what one node's reply means to the caller
 */
public final class Round<T> {
  private final List<Node> nodes;
  private final Ticker ticker;
  private final long deadlineNanos;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();

  /** Per node: its parsed reply, its failure (one of the two), and whether either came. */
  private final Object[] replies;

  private final RuntimeException[] failures;
  private final boolean[] done;
  private int answered;

  /** Actions to run as each missing reply comes; {@code null} until one is registered. */
  private List<BiConsumer<Node, T>> listeners;

  /**
   * Per node whose reply is late, what carries it (a {@link Link} of the pipelined transport), so
   * that a later request can be sent behind it; {@code null} until a reply is late.
   */
  private Object[] carriers;

  /** A round that the transport fills by {@link #record}. */
  Round(List<Node> nodes, Ticker ticker, long deadlineNanos) {
    this.nodes = nodes;
    this.ticker = ticker;
    this.deadlineNanos = deadlineNanos;
    this.replies = new Object[nodes.size()];
    this.failures = new RuntimeException[nodes.size()];
    this.done = new boolean[nodes.size()];
  }

  /**
   * A round whose every node has answered or failed already. It takes the arrays over: the caller
   * must not touch them afterwards.
   */
  Round(
      List<Node> nodes,
      Ticker ticker,
      long deadlineNanos,
      Object[] replies,
      RuntimeException[] failures) {
    this.nodes = nodes;
    this.ticker = ticker;
    this.deadlineNanos = deadlineNanos;
    this.replies = replies;
    this.failures = failures;
    this.done = new boolean[nodes.size()];
    Arrays.fill(done, true);
    this.answered = nodes.size();
  }

  /**
   * The nodes, in the order of {@link #replies()}.
   *
   * @return the nodes
   */
  public List<Node> nodes() {
    return nodes;
  }

  /**
   * Waits until {@code decided} holds, every node answered, or the deadline given when the request
   * was sent passes.
   *
   * @param decided whether the replies so far are enough
   * @return this round
   */
  public Round<T> await(Predicate<? super Round<T>> decided) {
    return awaitUntil(deadlineNanos, decided);
  }

  /**
   * Waits until {@code decided} holds, every node answered, or {@code deadline} passes. The wait is
   * bounded, so it does not stop for an interrupt (an unlock by an interrupted thread must still
   * release); the flag is kept for the caller.
   *
   * @param deadline when to stop waiting, on this round's ticker
   * @param decided whether the replies so far are enough
   * @return this round
   */
  public Round<T> awaitUntil(long deadline, Predicate<? super Round<T>> decided) {
    boolean interrupted = false;
    lock.lock();
    try {
      while (answered < nodes.size() && !decided.test(this)) {
        long left = deadline - ticker.read();
        if (left <= 0) {
          break;
        }
        try {
          changed.awaitNanos(left);
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
      return this;
    } finally {
      lock.unlock();
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /**
   * Counts the nodes whose reply, so far, satisfies {@code test}.
   *
   * @param test the property
   * @return how many replies have it
   */
  public int count(Predicate<? super T> test) {
    lock.lock();
    try {
      int count = 0;
      for (int i = 0; i < replies.length; i++) {
        if (done[i] && failures[i] == null && test.test(reply(i))) {
          count++;
        }
      }
      return count;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Counts the nodes that have not answered yet.
   *
   * @return how many
   */
  public int unanswered() {
    lock.lock();
    try {
      return nodes.size() - answered;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Counts the nodes that failed (an exception, not a missing reply).
   *
   * @return how many
   */
  public int failed() {
    lock.lock();
    try {
      int count = 0;
      for (RuntimeException failure : failures) {
        if (failure != null) {
          count++;
        }
      }
      return count;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Counts the nodes that failed, or have not answered yet.
   *
   * @return how many
   */
  public int failedOrMissing() {
    lock.lock();
    try {
      int count = 0;
      for (int i = 0; i < replies.length; i++) {
        if (failures[i] != null || !done[i]) {
          count++;
        }
      }
      return count;
    } finally {
      lock.unlock();
    }
  }

  /**
   * The replies so far, in node order.
   *
   * @return one entry per node; {@code null} for a node that failed or did not answer
   */
  public List<T> replies() {
    lock.lock();
    try {
      List<T> list = new ArrayList<>(replies.length);
      for (int i = 0; i < replies.length; i++) {
        list.add(failures[i] == null ? reply(i) : null);
      }
      return list;
    } finally {
      lock.unlock();
    }
  }

  /**
   * The failures so far, to attach as suppressed exceptions.
   *
   * @return the failures, in node order
   */
  public List<RuntimeException> failures() {
    lock.lock();
    try {
      List<RuntimeException> list = new ArrayList<>();
      for (RuntimeException failure : failures) {
        if (failure != null) {
          list.add(failure);
        }
      }
      return list;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Each failed or missing node with what went wrong, for an exception message.
   *
   * @param timeoutMillis the wait that a missing node did not answer within
   * @return {@code "label: message; label: no reply within N ms"}, empty when every node answered
   */
  public String describeFailures(long timeoutMillis) {
    lock.lock();
    try {
      StringBuilder text = new StringBuilder();
      for (int i = 0; i < replies.length; i++) {
        if (failures[i] != null || !done[i]) {
          text.append(text.length() == 0 ? "" : "; ")
              .append(nodes.get(i).label())
              .append(": ")
              .append(
                  failures[i] != null
                      ? failures[i].getMessage()
                      : "no reply within " + timeoutMillis + " ms");
        }
      }
      return text.toString();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Runs {@code action} once for every node: now for the nodes that have answered or failed, later
   * (in the thread that records it) for each node still missing.
   *
   * @param action given the node and its reply, {@code null} when it failed
   */
  public void whenEachDone(BiConsumer<Node, T> action) {
    boolean[] ready;
    lock.lock();
    try {
      if (answered < nodes.size()) {
        if (listeners == null) {
          listeners = new ArrayList<>(1);
        }
        listeners.add(action);
      }
      ready = done.clone();
    } finally {
      lock.unlock();
    }
    for (int i = 0; i < ready.length; i++) {
      if (ready[i]) {
        action.accept(nodes.get(i), replyOrNull(i));
      }
    }
  }

  /**
   * Whether node {@code index} has answered or failed.
   *
   * @param index the node's position
   * @return whether its outcome is recorded
   */
  boolean isDone(int index) {
    lock.lock();
    try {
      return done[index];
    } finally {
      lock.unlock();
    }
  }

  /**
   * Whether node {@code index}'s part of this round may call for a follow-up: it has not answered,
   * it failed, or its reply satisfies {@code needed}.
   */
  boolean needs(int index, Predicate<? super T> needed) {
    lock.lock();
    try {
      return !done[index] || failures[index] != null || needed.test(reply(index));
    } finally {
      lock.unlock();
    }
  }

  /** Notes what carries node {@code index}'s late reply. */
  void carry(int index, Object carrier) {
    lock.lock();
    try {
      if (carriers == null) {
        carriers = new Object[nodes.size()];
      }
      carriers[index] = carrier;
    } finally {
      lock.unlock();
    }
  }

  /** What carries node {@code index}'s reply while it has not come, else {@code null}. */
  Object carrier(int index) {
    lock.lock();
    try {
      return carriers == null || done[index] ? null : carriers[index];
    } finally {
      lock.unlock();
    }
  }

  /** Records node {@code index}'s reply, or its failure when {@code failure} is not null. */
  void record(int index, T reply, RuntimeException failure) {
    List<BiConsumer<Node, T>> actions;
    lock.lock();
    try {
      if (failure != null) {
        failures[index] = failure;
      } else {
        replies[index] = reply;
      }
      done[index] = true;
      answered++;
      changed.signalAll();
      actions = listeners == null ? List.of() : List.copyOf(listeners);
    } finally {
      lock.unlock();
    }
    // Outside the lock: an action may take long (a release), and may read this round.
    for (BiConsumer<Node, T> action : actions) {
      action.accept(nodes.get(index), failure == null ? reply : null);
    }
  }

  private T replyOrNull(int index) {
    lock.lock();
    try {
      return failures[index] == null ? reply(index) : null;
    } finally {
      lock.unlock();
    }
  }

  @SuppressWarnings("unchecked")
  private T reply(int index) {
    return (T) replies[index];
  }
}
