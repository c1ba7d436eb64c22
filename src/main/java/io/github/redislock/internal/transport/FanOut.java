package io.github.redislock.internal.transport;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * One request sent to every node at once, each on its own thread, and the replies as they come. The
 * caller waits until it has seen enough to decide (a quorum of one answer, or a quorum made
 * impossible) or until a deadline; replies still missing then count as failures, and arrive in the
 * background later.
 *
 * @param <N> the node type
 * @param <T> the reply type
 */
public final class FanOut<N, T> {
  private final List<N> nodes;
  private final List<CompletableFuture<T>> calls;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  private final Object[] replies;
  private final RuntimeException[] failures;
  private final boolean[] done;
  private int answered;

  private FanOut(List<N> nodes, Function<N, T> request, Executor executor) {
    this.nodes = nodes;
    this.replies = new Object[nodes.size()];
    this.failures = new RuntimeException[nodes.size()];
    this.done = new boolean[nodes.size()];
    this.calls = new ArrayList<>(nodes.size());
    for (int i = 0; i < nodes.size(); i++) {
      N node = nodes.get(i);
      int index = i;
      CompletableFuture<T> call;
      try {
        call = CompletableFuture.supplyAsync(() -> request.apply(node), executor);
      } catch (RejectedExecutionException e) {
        call = CompletableFuture.failedFuture(e);
      }
      calls.add(call);
      call.whenComplete((reply, failure) -> record(index, reply, failure));
    }
  }

  /** A fan-out whose every node has answered or failed already. */
  public static <N, T> FanOut<N, T> completed(
      List<N> nodes, Object[] replies, RuntimeException[] failures) {
    return new FanOut<>(nodes, replies, failures);
  }

  private FanOut(List<N> nodes, Object[] replies, RuntimeException[] failures) {
    this.nodes = nodes;
    this.replies = replies.clone();
    this.failures = failures.clone();
    this.done = new boolean[nodes.size()];
    java.util.Arrays.fill(done, true);
    this.answered = nodes.size();
    this.calls = new ArrayList<>(nodes.size());
    for (int i = 0; i < nodes.size(); i++) {
      @SuppressWarnings("unchecked")
      T reply = (T) replies[i];
      calls.add(
          failures[i] != null
              ? CompletableFuture.failedFuture(failures[i])
              : CompletableFuture.completedFuture(reply));
    }
  }

  /** Sends {@code request} to every node. */
  public static <N, T> FanOut<N, T> send(List<N> nodes, Function<N, T> request, Executor executor) {
    return new FanOut<>(nodes, request, executor);
  }

  /**
   * Waits until {@code decided} holds for this fan-out, every node answered, or the deadline
   * passes. The wait is bounded by the per-node timeout, so it does not stop for an interrupt (an
   * unlock by an interrupted thread must still release); the flag is kept for the caller.
   */
  public FanOut<N, T> awaitUntil(long deadlineNanos, Predicate<FanOut<N, T>> decided) {
    boolean interrupted = false;
    lock.lock();
    try {
      while (answered < nodes.size() && !decided.test(this)) {
        long left = deadlineNanos - System.nanoTime();
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

  /** Number of nodes whose reply, so far, satisfies {@code test}. */
  public int count(Predicate<T> test) {
    lock.lock();
    try {
      int count = 0;
      for (int i = 0; i < replies.length; i++) {
        @SuppressWarnings("unchecked")
        T reply = (T) replies[i];
        if (failures[i] == null && isAnswered(i) && test.test(reply)) {
          count++;
        }
      }
      return count;
    } finally {
      lock.unlock();
    }
  }

  /** Number of nodes that have not answered yet. */
  public int unanswered() {
    lock.lock();
    try {
      return nodes.size() - answered;
    } finally {
      lock.unlock();
    }
  }

  /** Number of nodes that failed (an exception, not a missing reply). */
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

  /** Number of nodes that failed, or have not answered yet. */
  public int failedOrMissing() {
    lock.lock();
    try {
      int count = 0;
      for (int i = 0; i < replies.length; i++) {
        if (failures[i] != null || !isAnswered(i)) {
          count++;
        }
      }
      return count;
    } finally {
      lock.unlock();
    }
  }

  /** The replies so far, in node order; {@code null} for nodes that failed or did not answer. */
  public List<T> replies() {
    lock.lock();
    try {
      List<T> list = new ArrayList<>(replies.length);
      for (int i = 0; i < replies.length; i++) {
        @SuppressWarnings("unchecked")
        T reply = failures[i] == null ? (T) replies[i] : null;
        list.add(reply);
      }
      return list;
    } finally {
      lock.unlock();
    }
  }

  /** Each failed or missing node with what went wrong, for an exception message. */
  public String describeFailures(Function<N, String> label, long timeoutMillis) {
    lock.lock();
    try {
      StringBuilder text = new StringBuilder();
      for (int i = 0; i < replies.length; i++) {
        if (failures[i] != null || !isAnswered(i)) {
          text.append(text.length() == 0 ? "" : "; ")
              .append(label.apply(nodes.get(i)))
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

  /** The failures so far, to attach as suppressed exceptions. */
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

  /** Runs {@code action} for every node once its reply arrives, now or later. */
  public void whenEachDone(BiConsumer<N, T> action) {
    for (int i = 0; i < nodes.size(); i++) {
      N node = nodes.get(i);
      calls.get(i).whenComplete((reply, failure) -> action.accept(node, reply));
    }
  }

  private boolean isAnswered(int index) {
    return done[index];
  }

  private void record(int index, T reply, Throwable failure) {
    lock.lock();
    try {
      if (failure != null) {
        Throwable cause =
            failure instanceof CompletionException && failure.getCause() != null
                ? failure.getCause()
                : failure;
        failures[index] =
            cause instanceof RuntimeException runtime ? runtime : new IllegalStateException(cause);
      } else {
        replies[index] = reply;
      }
      done[index] = true;
      answered++;
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }
}
