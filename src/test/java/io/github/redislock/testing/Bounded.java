package io.github.redislock.testing;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * Runs a call that must end by itself, such as a {@code lock()} that must throw rather than retry
 * forever, and tells what it threw. A call still running after {@link Timing#awaitAtMost()} fails
 * the test (a hang), and is interrupted.
 */
public final class Bounded {
  private Bounded() {}

  /** A call that may throw anything. */
  @FunctionalInterface
  public interface Call {
    void run() throws Exception;
  }

  /**
   * Runs {@code call} on a thread of its own and waits until it ends.
   *
   * @param what the call, for the failure message
   * @param call the call
   * @return what it threw, or {@code null} if it returned
   * @throws org.awaitility.core.ConditionTimeoutException if it did not end in time
   */
  public static Throwable thrownBy(String what, Call call) {
    CompletableFuture<Throwable> outcome = new CompletableFuture<>();
    Thread thread =
        new Thread(
            () -> {
              try {
                call.run();
                outcome.complete(null);
              } catch (Throwable t) {
                outcome.complete(t);
              }
            },
            "bounded-call");
    thread.setDaemon(true);
    thread.start();
    try {
      await(what + " ends by itself (throws or returns) rather than hangs")
          .atMost(Timing.awaitAtMost())
          .pollInterval(Duration.ofMillis(10))
          .until(outcome::isDone);
      return outcome.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    } catch (ExecutionException e) {
      throw new IllegalStateException(e);
    } finally {
      if (!outcome.isDone()) {
        thread.interrupt();
      }
    }
  }
}
