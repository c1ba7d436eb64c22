package io.github.redislock.internal.kind;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The entries in Redis of one kind's waits not over yet: acquired or left, an entry goes. A closing
 * factory takes them all out, in parallel, before it closes its clients.
 */
final class WaitEntries {
  private static final Logger log = LoggerFactory.getLogger(WaitEntries.class);

  /** An entry in Redis of a wait not over yet. */
  interface Entry {
    /**
     * The factory is closing: marks the wait left, and tells how to take its entry out.
     *
     * @return the leaving to run, or {@code null} when the wait left already or sent no attempt
     */
    Runnable leaveAtClose();
  }

  /** How long a closing factory waits for its waiters' entries to be taken out. */
  static final long LEAVE_AT_CLOSE_MILLIS = 1000;

  private final Set<Entry> open = ConcurrentHashMap.newKeySet();
  private final Executor io;

  /**
   * The entries of one kind's waits.
   *
   * @param io where the entries are taken out in parallel at close
   */
  WaitEntries(Executor io) {
    this.io = io;
  }

  void add(Entry entry) {
    open.add(entry);
  }

  void remove(Entry entry) {
    open.remove(entry);
  }

  /**
   * Marks every wait left and takes its entry out, in parallel, waiting at most {@value
   * #LEAVE_AT_CLOSE_MILLIS} ms: an entry left behind would hold the waiters of other processes back
   * until its lease ran out.
   */
  void leaveAll() {
    List<CompletableFuture<Void>> leaving = new ArrayList<>();
    for (Entry entry : open) {
      Runnable leave = entry.leaveAtClose();
      if (leave != null) {
        try {
          leaving.add(CompletableFuture.runAsync(leave, io));
        } catch (RejectedExecutionException e) {
          leave.run();
        }
      }
    }
    try {
      CompletableFuture.allOf(leaving.toArray(CompletableFuture[]::new))
          .get(LEAVE_AT_CLOSE_MILLIS, TimeUnit.MILLISECONDS);
    } catch (TimeoutException | ExecutionException e) {
      log.debug("waiters' entries not all taken out at close; they end with their leases", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
