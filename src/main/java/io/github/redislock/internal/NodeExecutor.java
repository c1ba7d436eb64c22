package io.github.redislock.internal;

import io.github.redislock.internal.backend.LockKeys;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/** Runs a background Redis call on the threads of the node that serves its keys. */
@FunctionalInterface
interface NodeExecutor {

  /**
   * Runs {@code task}, a call to Redis on {@code keys}, on a thread of their node.
   *
   * @throws RejectedExecutionException when the node's threads are all busy and its queue is full
   *     (the message names the node and the bound), or the factory is closed
   */
  void execute(LockKeys keys, Runnable task);

  /**
   * Takes {@code task}, given for {@code keys}, out of its queue if no thread has taken it yet and
   * the executor can; a task whose caller gave up does nothing when it runs, but takes a place in
   * the queue until then.
   */
  default void remove(LockKeys keys, Runnable task) {}

  /** Runs every task on {@code executor}, whatever its node. */
  static NodeExecutor of(Executor executor) {
    return (keys, task) -> executor.execute(task);
  }
}
