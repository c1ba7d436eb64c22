package io.github.redislock.internal.util;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/** Daemon threads named {@code redis-lock-...}, so leaks are easy to spot. */
public final class Threads {
  private static final AtomicInteger SEQUENCE = new AtomicInteger();

  private Threads() {}

  public static ThreadFactory daemon(String purpose) {
    return task -> {
      Thread thread = new Thread(task, purpose + "-" + SEQUENCE.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    };
  }
}
