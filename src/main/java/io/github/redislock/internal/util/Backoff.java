package io.github.redislock.internal.util;

import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/** Capped exponential backoff with jitter, for retries while Redis is unavailable. */
public final class Backoff {
  private static final long FIRST_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
  private static final long CAP_NANOS = TimeUnit.SECONDS.toNanos(1);

  private long ceiling = FIRST_NANOS;

  /** The next delay: uniformly random in the upper half of a ceiling that doubles up to 1 s. */
  public long nextNanos() {
    long delay = ThreadLocalRandom.current().nextLong(ceiling / 2, ceiling + 1);
    ceiling = Math.min(ceiling * 2, CAP_NANOS);
    return delay;
  }

  /** A delay uniformly random in [base / 2, base * 3 / 2], so waiters do not move in step. */
  public static long jitter(long baseNanos) {
    return ThreadLocalRandom.current().nextLong(baseNanos / 2, baseNanos + baseNanos / 2 + 1);
  }
}
